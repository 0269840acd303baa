package dev.pushgate.appliance.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.appliance.Settings;
import dev.pushgate.appliance.launch.Launches;
import dev.pushgate.appliance.launch.RunLaunchRequest;
import dev.pushgate.gitconfig.OwnGit;
import dev.pushgate.policy.RulesException;
import dev.pushgate.policy.WorkspaceRules;
import dev.pushgate.sandbox.EnvironmentSanitiser;
import dev.pushgate.sandbox.EnvironmentVariables;
import dev.pushgate.sandbox.FilesystemPolicy;
import dev.pushgate.sandbox.LaunchRequest;
import dev.pushgate.sandbox.LocalLauncher;
import dev.pushgate.sandbox.PassedVariables;
import dev.pushgate.sandbox.SandboxBackend;
import dev.pushgate.sandbox.SandboxEvent;
import dev.pushgate.sandbox.RefusalReason;
import dev.pushgate.sandbox.SandboxLaunchException;
import dev.pushgate.sandbox.SandboxPlan;
import dev.pushgate.sandbox.SandboxProcess;
import dev.pushgate.sandbox.SandboxUser;
import dev.pushgate.sandbox.SandboxViolation;
import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code pushgate exec}: the one-line way to run a command as an agent run. Creates the run over
 * the control socket, launches COMMAND in the run's sandbox from this process (the answer carries
 * the plan; see docs/sandbox.md), streams its output, ends the run when it exits, revoking every
 * credential, and exits with its code. A run whose sandbox verdict is refused never launches.
 */
@Command(
    name = "exec",
    mixinStandardHelpOptions = true,
    description = {
        "Run COMMAND as an agent run of a running appliance: a run is created for the repository,"
            + " COMMAND starts in the run's sandbox (bubblewrap on Linux) with the run's"
            + " environment, its output is streamed, and when it exits the run is ended and every"
            + " credential it held is revoked. Exits with COMMAND's code; 125 when pushgate itself"
            + " could not run it.",
        "Without --workdir, COMMAND runs in ./NAME, cloned first (inside the sandbox) when it does"
            + " not exist yet."},
    footer = {"", "Examples:",
        "  pushgate exec --repo acme/widget --rules rules.yaml -- bash",
        "  pushgate exec --repo acme/widget --workdir ~/work/widget --rules rules.yaml -- claude",
        "  pushgate exec --repo acme/widget --attach acme/lib --mode review -- make test"})
final class ExecCommand implements Callable<Integer> {
  /** pushgate's own failure, as docker and env use it: never mistaken for COMMAND's code. */
  static final int FAILED = 125;

  private static final ObjectMapper JSON = new ObjectMapper();

  @Option(names = "--repo", required = true, paramLabel = "OWNER/NAME",
      description = "The run's own repository.")
  String repo;

  @Option(names = "--attach", paramLabel = "OWNER/NAME",
      description = "A repository attached to the workspace (may be pushed to); repeatable.")
  List<String> attach = new ArrayList<>();

  @Option(names = "--mode", defaultValue = "chat", paramLabel = "MODE",
      description = "chat, plan, review or orchestrate; the last three mount everything"
          + " read-only. Default: ${DEFAULT-VALUE}")
  String mode;

  @Option(names = "--rules", paramLabel = "FILE",
      description = "Workspace rules, YAML or JSON. Without it the appliance's default rules"
          + " apply: on Linux the command runs under bubblewrap with the name-deny layer"
          + " (pushgate-denyfs) refusing writes to secret-file names such as .env; only where"
          + " that layer cannot run is the launch refused (see docs/sandbox.md).")
  Path rules;

  @Option(names = "--workdir", paramLabel = "DIR",
      description = "Run in this existing directory as it is. Default: ./NAME, cloned first when"
          + " missing.")
  Path workdir;

  @Option(names = "--workspace", defaultValue = "local", paramLabel = "ID",
      description = "The workspace id the run belongs to. Default: ${DEFAULT-VALUE}")
  String workspace;

  @Option(names = "--ttl", converter = Units.DurationConverter.class, paramLabel = "DURATION",
      description = "The run's lifetime (its credentials end with it). Default: the appliance's.")
  Duration ttl;

  @Option(names = "--timeout", converter = Units.DurationConverter.class, paramLabel = "DURATION",
      description = "Kill COMMAND after this long. Default: no limit.")
  Duration timeout;

  @Option(names = "--sandbox-user", paramLabel = "UID[:GID]",
      description = "Who the sandbox runs as when pushgate runs as root. Default: a user id of"
          + " each launch's own, from 2100000000 up, that no account or process on the host has."
          + " A user named here is shared by every launch that names it, and by every process"
          + " of the host running as it: they can read the run's tokens.")
  String sandboxUser;

  @Mixin RunningDataDir dataDir;

  @Option(names = "--pass-env", split = ",", paramLabel = "NAME",
      description = "A variable of this environment that COMMAND gets, on top of PATH, HOME,"
          + " USER, SHELL, LANG, LC_*, TERM, TZ, TMPDIR and git's author and committer; every"
          + " other variable is dropped. Repeatable, or comma-separated.")
  List<String> passEnv = new ArrayList<>();

  @Parameters(paramLabel = "COMMAND", arity = "1..*",
      description = "The command and its arguments, after --.")
  List<String> command;

  private final PrintStream out = Stdio.out();
  private final PrintStream err = Stdio.err();

  /** The directory this exec made for its clone, removed again when nothing came of it. */
  private Path createdDir;

  /**
   * Every failure of pushgate's own, a thrown one included, exits {@link #FAILED} (never picocli's
   * 1, which COMMAND could have returned) and leaves no directory of exec's own making behind.
   */
  @Override
  public Integer call() throws Exception {
    try {
      return execute();
    } catch (Exception e) {
      removeIfCreated();
      return fail(Failure.message(e));
    }
  }

  private int execute() throws Exception {
    quietLogs();
    RepoSlug slug;
    SandboxUser user;
    String rulesJson;
    PassedVariables passed;
    try {
      slug = RepoSlug.parse(repo);
      for (String a : attach) {
        RepoSlug.parse(a);
      }
      user = sandboxUser == null ? null : SandboxUser.parse(sandboxUser);
      rulesJson = rules == null ? null : readRules(rules);
      passed = PassedVariables.of(passEnv);
    } catch (IllegalArgumentException | IOException e) {
      return fail(Failure.message(e));
    }

    // The appliance first: without one, exec makes nothing (no directory, no clone).
    ControlSocket socket;
    try {
      socket = dataDir.control();
    } catch (Exception e) {
      return fail(Failure.message(e));
    }
    try (ControlSocket control = socket) {
      return execute(control, slug, user, rulesJson, passed);
    }
  }

  private int execute(ControlSocket control, RepoSlug slug, SandboxUser user, String rulesJson,
      PassedVariables passed) throws Exception {
    Path dir;
    boolean clone = false;
    if (workdir != null) {
      dir = workdir.toAbsolutePath().normalize();
      if (!Files.isDirectory(dir)) {
        return fail("--workdir " + workdir + " is not a directory");
      }
    } else {
      dir = Path.of(slug.name()).toAbsolutePath().normalize();
      if (!Files.exists(dir)) {
        Files.createDirectory(dir);
        createdDir = dir;
        clone = true;
      } else if (!Files.isDirectory(dir.resolve(".git"))) {
        return fail(dir + " exists and is not a git checkout; pass --workdir to run in it");
      }
    }
    dir = dir.toRealPath();
    if (createdDir != null) {
      createdDir = dir;
    }

    ControlSocket.Answer answer;
    try {
      answer = control.post("/v1/runs", request(dir, rulesJson));
    } catch (Exception e) {
      // A socket left by an appliance that stopped: nobody answers.
      removeIfCreated();
      return fail(Failure.message(e));
    }
    if (answer.status() != 201) {
      removeIfCreated();
      JsonNode verdict = answer.body() == null ? null
          : answer.body().path("sandbox").path("verdict");
      if (verdict != null && verdict.path("launch").asText().equals("refused")) {
        List<String> waysOut = new ArrayList<>();
        verdict.path("waysOut").forEach(w -> waysOut.add(w.asText()));
        return notLaunched(verdict.path("reason").asText(), waysOut);
      }
      return fail(answer.body() != null && answer.body().hasNonNull("error")
          ? answer.body().get("error").asText() : "the control API answered " + answer.status());
    }
    JsonNode run = answer.body();
    String runId = run.get("runId").asText();
    AtomicReference<SandboxProcess> current = new AtomicReference<>();
    Path hookDir = null;
    AtomicBoolean ended = new AtomicBoolean();
    Runnable teardown = () -> {
      if (ended.compareAndSet(false, true)) {
        end(control, runId);
      }
    };
    Thread hook = new Thread(() -> {
      SandboxProcess p = current.get();
      if (p != null) {
        p.kill("pushgate exec was interrupted");
        try {
          p.waitFor(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      teardown.run();
    }, "pushgate-exec-teardown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      SandboxPlan plan = withLocalBasics(
          JSON.treeToValue(run.get("sandbox"), SandboxPlan.class), passed);
      if (!plan.verdict().launches()) {
        removeIfCreated();
        return notLaunched(plan.verdict().reason(), plan.verdict().waysOut());
      }
      describe(runId, dir, plan);
      hookDir = Files.createTempDirectory("pushgate-hook-");
      JsonNode gateway = run.path("gateway");
      LaunchRequest base = RunLaunchRequest.of(plan, command,
              Path.of(run.get("gitConfigPath").asText()), HookCommand.writeScript(hookDir),
              gateway.path("url").asText(),
              gateway.hasNonNull("socket") ? Path.of(gateway.get("socket").asText()) : null)
          .withInheritedStdin().withTimeout(timeout)
          .withApiInterception(apiInterception(run.path("githubApi")));
      LocalLauncher launcher = new LocalLauncher(
          LocalLauncher.Settings.defaults().withSandboxUser(user));
      if (clone) {
        err.println("pushgate: cloning " + slug + " into " + dir + " (in the sandbox)");
        // No template: the clone starts without sample hooks or info/, which the command's
        // launch then keeps from being created.
        LaunchRequest cloneRequest = new LaunchRequest(forClone(plan),
            OwnGit.inRunEnvironment("clone", "--quiet", "--template=",
                run.path("repositoryUrl").asText("https://github.com/" + slug + ".git"), "."),
            base.bridges(), base.files(), false, timeout);
        int code = launch(launcher, cloneRequest, current, control, runId);
        if (code != 0) {
          removeIfCreated();
          err.println("pushgate: the clone failed (exit " + code + "); COMMAND was not run");
          return code;
        }
        createdDir = null;
      }
      return launch(launcher, base, current, control, runId);
    } catch (SandboxLaunchException e) {
      err.println("pushgate: " + e.getMessage());
      for (String way : e.waysOut()) {
        err.println("pushgate:   - " + way);
      }
      return FAILED;
    } finally {
      removeIfCreated();
      deleteHookCopy(hookDir);
      teardown.run();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // Already shutting down: the hook is running.
      }
    }
  }

  /**
   * The plan for exec's own clone: the same sandbox without the write denies inside the workdir.
   * They keep the agent from creating git hooks, shell rc files and editor or agent settings; the
   * clone only writes what the repository holds (as a clone on the host would), and the deny
   * paths that then exist are covered read-only for COMMAND. Blocking them here would also leave
   * the workdir non-empty, which git clone refuses.
   */
  private static SandboxPlan forClone(SandboxPlan p) {
    FilesystemPolicy fs = p.filesystem();
    return new SandboxPlan(p.spec(), p.requestedBackend(), p.effectiveBackend(),
        p.backendReason(), p.verdict(), p.probeNote(), p.env(), p.enforcement(),
        new FilesystemPolicy(fs.writableRoots(), fs.readDeny(), List.of(), fs.writeDenyGlobs()),
        p.egress());
  }

  /**
   * The plan with this process's basics and passed variables added under the run's own: exec
   * never sends its environment to the control socket, so it is filtered here, by the same
   * allowlist the appliance applies to a launcher's {@code env}.
   */
  private static SandboxPlan withLocalBasics(SandboxPlan p, PassedVariables passed) {
    EnvironmentVariables env = EnvironmentSanitiser.sanitise(
        EnvironmentVariables.fromHost(System.getenv()), p.env(), passed);
    return new SandboxPlan(p.spec(), p.requestedBackend(), p.effectiveBackend(),
        p.backendReason(), p.verdict(), p.probeNote(), env, p.enforcement(), p.filesystem(),
        p.egress());
  }

  private int notLaunched(String reason, List<String> waysOut) {
    err.println("pushgate: not launched: " + reason);
    err.println("pushgate: the ways out:");
    for (String way : waysOut) {
      err.println("pushgate:   - " + way);
    }
    return FAILED;
  }

  private String request(Path dir, String rulesJson) throws IOException {
    ObjectNode body = JSON.createObjectNode();
    body.put("workspaceId", workspace);
    body.put("mode", mode);
    body.put("repository", repo);
    ArrayNode attached = body.putArray("attachedRepositories");
    attach.forEach(attached::add);
    if (rulesJson != null) {
      body.set("rules", JSON.readTree(rulesJson));
    }
    if (ttl != null) {
      body.put("ttlSeconds", Math.max(1, ttl.toSeconds()));
    }
    body.put("workdir", dir.toString());
    body.put("runner", "harness-bash");
    // No "env": this process's environment stays here (see withLocalBasics).
    return JSON.writeValueAsString(body);
  }

  /** The run's GitHub API boundary as the control API names it; null when it has none. */
  private static dev.pushgate.sandbox.ApiInterception apiInterception(JsonNode githubApi) {
    if (githubApi.isMissingNode() || githubApi.isNull() || !githubApi.hasNonNull("boundaryPort")
        || !githubApi.hasNonNull("boundaryHandle")) {
      return null;
    }
    List<String> hosts = new ArrayList<>();
    githubApi.path("hosts").forEach(h -> hosts.add(h.asText()));
    JsonNode proxy = githubApi.path("sharedProxy");
    dev.pushgate.sandbox.ApiInterception.ProxyLogin shared = proxy.hasNonNull("port")
        && proxy.hasNonNull("user") && proxy.hasNonNull("password")
        ? new dev.pushgate.sandbox.ApiInterception.ProxyLogin(proxy.get("port").asInt(),
            proxy.get("user").asText(),
            dev.pushgate.types.Secret.of(proxy.get("password").asText()))
        : null;
    return new dev.pushgate.sandbox.ApiInterception(hosts, new java.net.InetSocketAddress(
        java.net.InetAddress.getLoopbackAddress(), githubApi.get("boundaryPort").asInt()),
        githubApi.get("boundaryHandle").asText(), null, shared);
  }

  private int launch(LocalLauncher launcher, LaunchRequest request,
      AtomicReference<SandboxProcess> current, ControlSocket control, String runId)
      throws SandboxLaunchException, InterruptedException {
    List<String> secrets = runTokens(request.plan());
    SandboxProcess p = launcher.launch(request, event -> {
      if (event instanceof SandboxEvent.Stdout s) {
        out.print(s.data());
        out.flush();
      } else if (event instanceof SandboxEvent.Stderr s) {
        err.print(s.data());
        err.flush();
      } else if (event instanceof SandboxEvent.Violation raw) {
        // A path the agent chose may spell the run's tokens: neither this output nor the audit
        // gets them (as the appliance's launch stream).
        SandboxViolation v = Launches.redact(raw.violation(), secrets);
        err.println("pushgate: sandbox violation: "
            + RefusalReason.subject(v.action(), v.target()));
        if (v.endOfRun()) {
          // What was undone, and where the planted thing now is: the operator acts on this.
          err.println("pushgate:   " + v.raw());
          recordFinding(control, runId, v);
        } else {
          err.println("pushgate:   why: " + RefusalReason.of(v));
        }
      } else if (event instanceof SandboxEvent.Killed k) {
        err.println("pushgate: killed: " + k.reason());
      }
    });
    current.set(p);
    int code = p.waitFor();
    if (p.handle().error() != null) {
      err.println("pushgate: " + p.handle().error());
      return FAILED;
    }
    return code;
  }

  private void describe(String runId, Path dir, SandboxPlan plan) {
    if (plan.effectiveBackend() == SandboxBackend.NONE) {
      err.println("pushgate: run " + runId + " in " + dir + " WITHOUT an OS sandbox: "
          + plan.backendReason());
    } else {
      err.println("pushgate: run " + runId + " in " + dir + " under "
          + plan.enforcement().osSandboxNote());
    }
    for (String w : plan.enforcement().weakenings()) {
      err.println("pushgate: weakened: " + w);
    }
  }

  /**
   * Puts an end-of-run finding in the run's audit timeline: the launcher runs in this process,
   * so the appliance hears of it only from here. A failure is said, not fatal: the finding has
   * been printed and what it says was done is done.
   */
  private void recordFinding(ControlSocket control, String runId, SandboxViolation v) {
    ObjectNode body = JSON.createObjectNode();
    body.putArray("findings").addObject().put("action", v.action()).put("target", v.target())
        .put("detail", v.raw());
    try {
      control.post("/v1/runs/" + runId + "/findings", body.toString()).orThrow();
    } catch (Exception e) {
      err.println("pushgate:   (not in the run's audit: " + Failure.message(e) + ")");
    }
  }

  /** The run's tokens in the command's environment: the credential and the GitHub sentinel. */
  private static List<String> runTokens(SandboxPlan plan) {
    List<String> out = new ArrayList<>();
    for (String name : List.of("PUSHGATE_RUN_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")) {
      String value = plan.env().get(name);
      if (value != null && !value.isEmpty()) {
        out.add(value);
      }
    }
    return out;
  }

  private void end(ControlSocket control, String runId) {
    try {
      JsonNode t = control.delete("/v1/runs/" + runId).orThrow();
      int revoked = t.path("revoked").size();
      int pending = t.path("pending").size();
      err.println("pushgate: run " + runId + " ended: " + revoked + " credential(s) revoked"
          + (pending == 0 ? "" : ", " + pending + " still being revoked (the appliance retries)"));
    } catch (Exception e) {
      err.println("pushgate: could not end run " + runId + " (" + Failure.message(e)
          + "); its credentials end with its TTL");
    }
  }

  private static String readRules(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new IOException("the rules file " + file + " does not exist");
    }
    try {
      return WorkspaceRules.parse(Files.readString(file)).toJson().toString();
    } catch (RulesException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage());
    }
  }

  /** The launcher copied the hook into the sandbox's staging; this copy is not needed after. */
  private static void deleteHookCopy(Path hookDir) {
    if (hookDir == null) {
      return;
    }
    try {
      Files.deleteIfExists(hookDir.resolve("pushgate-hook"));
      Files.deleteIfExists(hookDir);
    } catch (IOException e) {
      // A temporary file left behind: harmless, it is the script the jar carries.
    }
  }

  /** The directory exec made, if it is still empty: a failed clone's leftovers stay to read. */
  private void removeIfCreated() {
    if (createdDir != null) {
      try {
        Files.deleteIfExists(createdDir);
      } catch (IOException e) {
        // Not empty after all: leave it.
      }
      createdDir = null;
    }
  }

  private int fail(String message) {
    err.println("pushgate: " + message);
    return FAILED;
  }

  /** The CLI speaks for itself on standard error; the libraries' info lines would only clutter. */
  private static void quietLogs() {
    if (LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)
        instanceof ch.qos.logback.classic.Logger root) {
      root.setLevel(ch.qos.logback.classic.Level.WARN);
    }
  }
}
