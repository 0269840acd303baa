package dev.pushgate.appliance.launch;

import dev.pushgate.appliance.runs.RunRequestException;
import dev.pushgate.appliance.runs.Runs;
import dev.pushgate.appliance.store.Ledger;
import dev.pushgate.broker.BrokerException;
import dev.pushgate.gateway.RunContext;
import dev.pushgate.sandbox.EnvironmentVariables;
import dev.pushgate.sandbox.SandboxBindMount;
import dev.pushgate.sandbox.SandboxEvent;
import dev.pushgate.sandbox.LaunchRequest;
import dev.pushgate.sandbox.SandboxLaunchException;
import dev.pushgate.sandbox.SandboxLauncher;
import dev.pushgate.sandbox.SandboxListener;
import dev.pushgate.sandbox.SandboxPlan;
import dev.pushgate.sandbox.SandboxProcess;
import dev.pushgate.sandbox.SandboxSpec;
import dev.pushgate.sandbox.SandboxViolation;
import dev.pushgate.types.UntrustedText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Launches a live run's command in the appliance, under the plan the run was created with, with
 * the launcher {@code pushgate exec} uses ({@code POST /v1/runs/{id}/launch}, docs/launcher.md).
 * A run has at most one launched command at a time (its writable mounts are lent to one sandbox
 * user at a time anyway), and the appliance at most {@code max}. A command ends with its run:
 * teardown, the TTL and the appliance stopping kill it.
 *
 * <p>The plans are kept in memory only: a run resumed after a restart of the appliance cannot be
 * launched here (its plan held the read token of its start); its launcher creates a new run.
 */
public final class Launches implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Launches.class);
  /** Launches running at once on one appliance, every run together. */
  public static final int DEFAULT_MAX = 16;
  /** How long a run's end waits for its command to be gone, so teardown answers after it. */
  private static final Duration END_WAIT = Duration.ofSeconds(10);
  /** How every launch refused after the plan begins. */
  private static final String NOT_LAUNCHED = "not launched: ";

  /** A launch that does not start: the control API's status, its message and the ways out. */
  public static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final transient List<String> waysOut;

    Refused(int status, String message, List<String> waysOut) {
      super(message);
      this.status = status;
      this.waysOut = List.copyOf(waysOut);
    }

    Refused(int status, String message) {
      this(status, message, List.of());
    }

    public int status() {
      return status;
    }

    public List<String> waysOut() {
      return waysOut;
    }
  }

  /**
   * What a run's launch needs from its start; {@code plan} is null for a run without one. {@code
   * resolved}: where each of the plan's host paths led when the run was created and its paths
   * were judged.
   */
  private record Launchable(SandboxPlan plan, Path gitConfig, String credential,
      Map<String, Path> resolved) {}

  /** One launched command of a run. */
  /** {@code text} with each of {@code secrets} (none empty) as {@code ***}. */
  public static String redact(String text, Collection<String> secrets) {
    if (text == null) {
      return null;
    }
    String out = text;
    for (String s : secrets) {
      out = out.replace(s, "***");
    }
    return out;
  }

  /** {@code v} with each of {@code secrets} as {@code ***} in its action, target and text. */
  public static SandboxViolation redact(SandboxViolation v, Collection<String> secrets) {
    return new SandboxViolation(redact(v.action(), secrets), redact(v.target(), secrets),
        redact(v.raw(), secrets));
  }

  public final class Launch {
    private final String runId;
    private final SandboxPlan plan;
    private final List<String> secrets;
    private volatile SandboxProcess process;

    private Launch(String runId, SandboxPlan plan, List<String> secrets) {
      this.runId = runId;
      this.plan = plan;
      this.secrets = secrets;
    }

    public String runId() {
      return runId;
    }

    /** What the command runs under; its environment holds the run's tokens. */
    public SandboxPlan plan() {
      return plan;
    }

    /** The process; set once the launch has started. */
    public SandboxProcess process() {
      return process;
    }

    /**
     * {@code text} with the run's tokens as {@code ***}: for lines of the stream that are not the
     * command's own output (a violation quotes a line of its standard error).
     */
    public String redact(String text) {
      return Launches.redact(text, secrets);
    }

    /** {@code event}, a violation with the run's tokens as {@code ***}; output as it is. */
    SandboxEvent redacted(SandboxEvent event) {
      if (!(event instanceof SandboxEvent.Violation v)) {
        return event;
      }
      return new SandboxEvent.Violation(Launches.redact(v.violation(), secrets));
    }

    /** Kills the command (if it still runs) and waits a bounded time for it to be gone. */
    public void stop(String reason) {
      SandboxProcess p = process;
      if (p == null) {
        return;
      }
      p.kill(reason);
      try {
        if (p.waitFor(END_WAIT).isEmpty()) {
          log.warn("run {}: its launched command (pid {}) has not ended {} s after it was killed",
              runId, p.pid(), END_WAIT.toSeconds());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private final Runs runs;
  private final SandboxLauncher launcher;
  private final Path hookScript;
  private final String gatewayUrl;
  private final Path gatewaySocket;
  private final int max;
  private final Semaphore slots;
  private final Map<String, Launchable> launchable = new ConcurrentHashMap<>();
  private final Map<String, Launch> running = new ConcurrentHashMap<>();

  /**
   * @param hookScript a copy of {@code pushgate-hook} the launches hand in
   * @param gatewaySocket the gateway socket bridged into a bubblewrap sandbox, or null
   * @param max launches running at once, every run together
   */
  public Launches(Runs runs, SandboxLauncher launcher, Path hookScript, String gatewayUrl,
      Path gatewaySocket, int max) {
    if (max < 1) {
      throw new IllegalArgumentException("at least one launch must be allowed: " + max);
    }
    this.runs = runs;
    this.launcher = launcher;
    this.hookScript = hookScript;
    this.gatewayUrl = gatewayUrl;
    this.gatewaySocket = gatewaySocket;
    this.max = max;
    this.slots = new Semaphore(max);
  }

  /** Keeps what a launch of {@code run} needs, for as long as the run lives. */
  public void remember(Runs.StartedRun run) {
    launchable.put(run.runId(), new Launchable(run.sandbox(), Path.of(run.gitConfigPath()),
        run.runCredential(), resolvedMounts(run.sandbox())));
    if (!runs.isLive(run.runId())) {
      launchable.remove(run.runId()); // it ended meanwhile: its end has already been heard
    }
  }

  /** The run ended: no launch of it any more, and its command is killed. */
  public void onRunEnded(String runId) {
    launchable.remove(runId);
    Launch launch = running.get(runId);
    if (launch != null) {
      launch.stop("the run ended");
    }
  }

  /**
   * Starts {@code command} under the run's plan; its events go to {@code listener}, which must not
   * block.
   *
   * @param workdir where the command starts: the run's workdir or a directory inside it; null for
   *     the workdir
   * @throws Refused when nothing was started, with the status the control API answers
   */
  public Launch start(String runId, List<String> command, String workdir,
      SandboxListener listener) throws Refused {
    Launchable run = launchable.get(runId);
    if (run == null || !runs.isLive(runId)) {
      throw whyNot(runId);
    }
    if (run.plan() == null) {
      throw new Refused(422, "run " + runId + " has no sandbox plan: it was created without a"
          + " workdir, so there is nothing to launch it under",
          List.of("create the run with a workdir (and the other sandbox fields you need)"));
    }
    String moved = movedMount(run);
    if (moved != null) {
      throw new Refused(422, NOT_LAUNCHED + moved + "; the run's paths were judged where they"
          + " led when it was created, and a link put in since could lead anywhere (the"
          + " appliance's own data directory among them)", List.of(
              "put the directory back as it was when the run was created",
              "tear the run down and create a new one for the directory as it is now"));
    }
    SandboxPlan plan = withWorkdir(run.plan(), workdir);
    Map<String, String> env = new LinkedHashMap<>(plan.env().asMap());
    freshReadToken(runId, run.credential(), env);
    // Whatever of the run's tokens a line of the stream other than output could quote.
    Set<String> secrets = new LinkedHashSet<>();
    for (String s : Arrays.asList(run.credential(), plan.env().get("GH_TOKEN"),
        env.get("GH_TOKEN"), env.get("PUSHGATE_RUN_TOKEN"))) {
      if (s != null && !s.isEmpty()) {
        secrets.add(s);
      }
    }
    plan = new SandboxPlan(plan.spec(), plan.requestedBackend(), plan.effectiveBackend(),
        plan.backendReason(), plan.verdict(), plan.probeNote(), EnvironmentVariables.of(env),
        plan.enforcement(), plan.filesystem(), plan.egress());

    Launch launch = new Launch(runId, plan, List.copyOf(secrets));
    Launch other = running.putIfAbsent(runId, launch);
    if (other != null) {
      SandboxProcess p = other.process();
      throw new Refused(409, "run " + runId + " already has a launched command"
          + (p == null ? "" : " (pid " + p.pid() + ")") + "; one at a time",
          List.of("wait for it to end, or tear the run down (DELETE /v1/runs/" + runId
              + "), which kills it"));
    }
    if (!slots.tryAcquire()) {
      running.remove(runId, launch);
      throw new Refused(429, max + " launched commands already run on this appliance, the most"
          + " it runs at once", List.of("try again when one has ended"));
    }
    SandboxProcess process;
    try {
      LaunchRequest request = RunLaunchRequest.of(plan, command, run.gitConfig(), hookScript,
          gatewayUrl, gatewaySocket).withApiInterception(runs.apiInterception(runId));
      // A violation quotes paths and lines the agent chose: the run's tokens leave it here, so
      // that no listener (the stream, the audit) ever holds them.
      process = launcher.launch(request, event -> listener.onEvent(launch.redacted(event)));
    } catch (SandboxLaunchException e) {
      release(launch);
      // The launcher's own refusals say "not launched" already; the others get it here.
      String why = e.getMessage().startsWith(NOT_LAUNCHED) ? e.getMessage()
          : NOT_LAUNCHED + e.getMessage();
      throw new Refused(422, launch.redact(why), e.waysOut());
    } catch (RuntimeException e) {
      release(launch);
      throw e;
    }
    launch.process = process;
    log.info("run {}: launched {} ({} argument(s)) as pid {}", runId,
        UntrustedText.printable(command.get(0)), command.size() - 1, process.pid());
    Thread waiter = new Thread(() -> awaitEnd(launch), "pushgate-launch-" + runId);
    waiter.setDaemon(true);
    waiter.start();
    if (!launchable.containsKey(runId) || !runs.isLive(runId)) {
      // The run ended while this launch was being set up, after its end looked for commands.
      launch.stop("the run ended");
    }
    return launch;
  }

  /** Kills every launched command: the appliance is stopping. */
  @Override
  public void close() {
    List<Launch> all = List.copyOf(running.values());
    for (Launch l : all) {
      SandboxProcess p = l.process();
      if (p != null) {
        p.kill("the appliance is stopping");
      }
    }
    for (Launch l : all) {
      l.stop("the appliance is stopping");
    }
  }

  private void awaitEnd(Launch launch) {
    try {
      int code = launch.process.waitFor();
      log.info("run {}: launched command (pid {}) ended with {}", launch.runId,
          launch.process.pid(), code);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.warn("run {}: waiting for its launched command failed: {}", launch.runId, e.toString());
    } finally {
      release(launch);
    }
  }

  private void release(Launch launch) {
    if (running.remove(launch.runId, launch)) {
      slots.release();
    }
  }

  /** Why a run cannot be launched that has no plan here. */
  private Refused whyNot(String runId) {
    Optional<Ledger.RunRow> row;
    try {
      row = runs.find(runId);
    } catch (SQLException e) {
      log.error("cannot read the ledger for run {}", runId, e);
      return new Refused(500, "the appliance cannot read its ledger");
    }
    if (row.isEmpty()) {
      return new Refused(404, "no run " + runId);
    }
    if (!runs.isLive(runId)) {
      return new Refused(404, "run " + runId + " has ended");
    }
    return new Refused(409, "run " + runId + " was created before the appliance last started;"
        + " its plan is not kept across a restart",
        List.of("tear it down (DELETE /v1/runs/" + runId + ") and create a new run"));
  }

  /** The run's current read token in place of the one of its start, which may have expired. */
  private void freshReadToken(String runId, String credential, Map<String, String> env) {
    if (!env.containsKey("GH_TOKEN")
        || env.get("GH_TOKEN").startsWith(dev.pushgate.gateway.api.ApiSentinel.PREFIX)) {
      return; // no token at all, or the sentinel of the run's GitHub API boundary: it never expires
    }
    Optional<RunContext> context = runs.authenticate(credential);
    if (context.isEmpty()) {
      return;
    }
    try {
      env.put("GH_TOKEN", runs.currentReadToken(context.get()).reveal());
    } catch (BrokerException | RunRequestException e) {
      log.warn("run {}: no fresh read token for its launch ({}); it gets the one of its start",
          runId, e.getMessage());
    }
  }

  /**
   * The plan with the command starting in {@code workdir}, which must be the run's workdir or a
   * directory inside it, as written and with symbolic links followed.
   */
  /** Where each host path of the plan leads now; a run without a plan has none. */
  private static Map<String, Path> resolvedMounts(SandboxPlan plan) {
    Map<String, Path> out = new LinkedHashMap<>();
    if (plan != null) {
      for (SandboxBindMount m : plan.spec().bindMounts()) {
        out.put(m.hostPath(), resolved(m.hostPath()));
      }
    }
    return out;
  }

  /** Which host path of the run now leads elsewhere than at its creation, in words; or null. */
  private static String movedMount(Launchable run) {
    for (Map.Entry<String, Path> e : run.resolved().entrySet()) {
      Path now = resolved(e.getKey());
      if (!now.equals(e.getValue())) {
        return UntrustedText.printable(e.getKey()) + " now leads to "
            + UntrustedText.printable(now.toString()) + ", not to "
            + UntrustedText.printable(e.getValue().toString()) + " as when the run was created";
      }
    }
    return null;
  }

  /**
   * The path as the kernel resolves it: the longest part that exists with its symbolic links
   * followed, then the rest as written (a mount made only when it exists may not exist yet).
   */
  static Path resolved(String hostPath) {
    Path literal = Path.of(hostPath).toAbsolutePath().normalize();
    Path existing = literal;
    while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
      existing = existing.getParent();
    }
    if (existing == null) {
      return literal;
    }
    try {
      return existing.toRealPath().resolve(existing.relativize(literal)).normalize();
    } catch (IOException | SecurityException e) {
      // A link that leads nowhere, or a directory on the way we may not search: as written.
      return literal;
    }
  }

  static SandboxPlan withWorkdir(SandboxPlan plan, String workdir) throws Refused {
    if (workdir == null) {
      return plan;
    }
    SandboxSpec s = plan.spec();
    if (s.guestWorkdir() == null) {
      throw new Refused(400, "workdir: the run has no workdir to start inside");
    }
    Path base = Path.of(s.guestWorkdir()).normalize();
    Path asked;
    try {
      asked = Path.of(workdir);
    } catch (InvalidPathException e) {
      throw new Refused(400, "workdir is not a path: " + UntrustedText.printable(workdir));
    }
    if (!asked.isAbsolute() || !asked.normalize().startsWith(base)) {
      throw new Refused(400, "workdir " + UntrustedText.printable(workdir)
          + " is not the run's workdir " + base + " or a directory inside it");
    }
    try {
      Path real = asked.toRealPath();
      if (!real.startsWith(base.toRealPath())) {
        throw new Refused(400, "workdir " + UntrustedText.printable(workdir)
            + " leads out of the run's workdir " + base + " through a symbolic link");
      }
      if (!java.nio.file.Files.isDirectory(real)) {
        throw new Refused(400, "workdir " + UntrustedText.printable(workdir)
            + " is not a directory");
      }
    } catch (IOException e) {
      throw new Refused(400, "workdir " + UntrustedText.printable(workdir)
          + " does not exist");
    }
    SandboxSpec spec = new SandboxSpec(s.sessionId(), s.workspaceId(), s.agentId(),
        s.bindMounts(), s.networkEnabled(), s.egressAllowlist(), asked.normalize().toString(),
        s.mode(), s.protectedPaths(), s.runnerStateDirs(), s.execGrantRoots());
    return new SandboxPlan(spec, plan.requestedBackend(), plan.effectiveBackend(),
        plan.backendReason(), plan.verdict(), plan.probeNote(), plan.env(), plan.enforcement(),
        plan.filesystem(), plan.egress());
  }
}
