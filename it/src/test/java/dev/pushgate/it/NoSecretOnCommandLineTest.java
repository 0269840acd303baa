package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * No secret on any command line: a process's arguments are readable by every local user in
 * {@code /proc/PID/cmdline}. While real git fetches and pushes through a run's git config, and
 * while the Claude Code hook script runs, every command line of their process trees is read
 * again and again until they end; each curl they start is held (see {@link CurlGate}) until its
 * and its caller's command lines have been read.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NoSecretOnCommandLineTest {
  private static final List<String> SECRET_PREFIXES = List.of("pgr_", "ghs_");
  // a leak is reported with the secret cut short, so the report itself shows none
  private static final Pattern SECRET = Pattern.compile("(pgr_|ghs_)[A-Za-z0-9_.-]{4}[A-Za-z0-9_.-]*");

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().withRepos("acme/widget");

  JsonNode run;

  @BeforeAll
  void start() throws Exception {
    run = app.get().createRun("{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\"}");
  }

  /** What the watch saw: command lines holding a secret, and how many curl calls it held. */
  record Watched(int exit, String output, List<String> leaks, int curlCalls) {}

  @Test
  void aFetchShowsNoSecretAndRunsNoCredentialHelperWithOnlyTheConfig()
      throws Exception {
    CurlGate gate = CurlGate.in(Files.createDirectories(app.dir().resolve("fetch-gate")));
    // Only the run's config, no GH_TOKEN: reads go through the gateway, which needs no helper.
    GitRun git = new GitRun(Files.createDirectories(app.dir().resolve("home")), Map.of(
        "GIT_CONFIG_GLOBAL", run.at("/env/GIT_CONFIG_GLOBAL").asText(),
        "PATH", gate.path()));

    Watched clone = watch(gate, app.dir(), git, "clone", "https://github.com/acme/widget.git", "w");
    assertThat(clone.exit()).as(clone.output()).isZero();
    assertThat(clone.curlCalls()).as("no credential helper ran curl").isZero();
    assertThat(clone.leaks()).isEmpty();

    Watched fetch = watch(gate, app.dir().resolve("w"), git, "fetch", "origin");
    assertThat(fetch.exit()).as(fetch.output()).isZero();
    assertThat(fetch.curlCalls()).isZero();
    assertThat(fetch.leaks()).isEmpty();
  }

  @Test
  void aPushThroughTheGatewayShowsNoSecret() throws Exception {
    CurlGate gate = CurlGate.in(Files.createDirectories(app.dir().resolve("push-gate")));
    GitRun git = new GitRun(Files.createDirectories(app.dir().resolve("home-push")), Map.of(
        "GIT_CONFIG_GLOBAL", run.at("/env/GIT_CONFIG_GLOBAL").asText(),
        "GH_TOKEN", run.at("/env/GH_TOKEN").asText(),
        "PATH", gate.path()));
    Watched clone = watch(gate, app.dir(), git, "clone", "https://github.com/acme/widget.git", "p");
    assertThat(clone.exit()).as(clone.output()).isZero();
    Path work = app.dir().resolve("p");
    Files.writeString(work.resolve("note.txt"), "hello\n");
    git.in(work, "add", "note.txt").ok();
    git.in(work, "commit", "-m", "note").ok();

    Watched push = watch(gate, work, git, "push", "origin", "HEAD:refs/heads/feature/note");
    assertThat(push.exit()).as(push.output()).isZero();
    assertThat(push.leaks()).isEmpty();
    assertThat(clone.leaks()).isEmpty();
  }

  @Test
  void theHookScriptShowsNoSecret() throws Exception {
    Path dir = Files.createDirectories(app.dir().resolve("hook"));
    RunningAppliance.cli("hook", "install", "--to", dir.resolve("installed").toString());
    CurlGate gate = CurlGate.in(dir);
    ProcessBuilder pb = new ProcessBuilder(dir.resolve("installed/pushgate-hook").toString());
    pb.environment().keySet().removeIf(k -> k.startsWith("PUSHGATE_"));
    pb.environment().put("PATH", gate.path());
    pb.environment().put("PUSHGATE_HOOK_URL", run.at("/env/PUSHGATE_HOOK_URL").asText());
    pb.environment().put("PUSHGATE_RUN_TOKEN", run.at("/env/PUSHGATE_RUN_TOKEN").asText());
    Path input = dir.resolve("input.json");
    Files.writeString(input, "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\","
        + "\"tool_input\":{\"command\":\"git status\"}}");
    Path out = dir.resolve("out.txt");
    pb.redirectInput(input.toFile()).redirectOutput(out.toFile()).redirectErrorStream(true);

    Watched hook = watch(gate, pb.start());
    String answer = Files.readString(out);
    assertThat(hook.exit()).as(answer).isZero();
    assertThat(answer).contains("\"permissionDecision\":\"allow\"");
    assertThat(hook.curlCalls()).isEqualTo(1);
    assertThat(hook.leaks()).isEmpty();
  }

  /** Inside bubblewrap, where the host sees the sandbox's processes like any other. */
  @Test
  void aFetchInsideTheSandboxShowsNoSecret() throws Exception {
    ExecTest.requireBwrap();
    // searchable by the sandbox's user, as ExecTest's root
    Files.setPosixFilePermissions(app.dir(), PosixFilePermissions.fromString("rwx--x--x"));
    Path sandboxed = Files.createDirectories(app.dir().resolve("sandboxed")).toRealPath();
    Files.setPosixFilePermissions(sandboxed, PosixFilePermissions.fromString("rwx--x--x"));
    Path work = Files.createDirectories(sandboxed.resolve("work"));
    CurlGate gate = CurlGate.in(work);
    Path rules = Files.writeString(sandboxed.resolve("rules.yaml"), "denyWriteGlobs: []\n");
    ProcessBuilder pb = new ProcessBuilder("java", "-jar", RunningAppliance.jar().toString(),
        "exec", "--data-dir", app.get().dataDir.toString(), "--repo", "acme/widget",
        "--workdir", work.toString(), "--rules", rules.toString(), "--", "sh", "-c",
        "PATH=" + gate.path() + "; git clone -q https://github.com/acme/widget.git w"
            + " && git -C w fetch -q origin && echo fetched-inside")
        .directory(work.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("GIT_") || k.equals("GH_TOKEN"));
    pb.environment().put("HOME", Files.createDirectories(sandboxed.resolve("home")).toString());
    Path out = sandboxed.resolve("exec.txt");
    pb.redirectOutput(out.toFile()).redirectErrorStream(true)
        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));

    Watched exec = watch(gate, pb.start());
    String output = Files.readString(out);
    assertThat(exec.exit()).as(output).isZero();
    assertThat(output).contains("fetched-inside");
    assertThat(exec.curlCalls()).as("no credential helper ran curl").isZero();
    assertThat(exec.leaks()).isEmpty();
  }

  private Watched watch(CurlGate gate, Path dir, GitRun git, String... args)
      throws Exception {
    Path out = Files.createTempFile(app.dir(), "git", ".out");
    Watched w = watch(gate, git.start(dir, out, out, args));
    return new Watched(w.exit(), Files.readString(out), w.leaks(), w.curlCalls());
  }

  /**
   * Reads the process table until {@code p} ends: every command line below {@code p} must hold
   * no secret, and no command line anywhere may hold this run's own. A held curl is let go only
   * after a reading that began while it (and its caller) waited.
   */
  private Watched watch(CurlGate gate, Process p) throws Exception {
    String credential = run.at("/env/PUSHGATE_RUN_TOKEN").asText();
    String readToken = run.at("/env/GH_TOKEN").asText();
    Set<String> leaks = new LinkedHashSet<>();
    int before = gate.releasedCount();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    try {
      while (!p.waitFor(5, TimeUnit.MILLISECONDS)) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("the watched process did not end in 120 s");
        }
        List<Path> held = gate.held();
        ProcessTable table = ProcessTable.read();
        for (ProcessTable.Entry e : table.tree(p.pid())) {
          if (SECRET_PREFIXES.stream().anyMatch(e.commandLine()::contains)) {
            leaks.add(masked(e.commandLine()));
          }
        }
        for (ProcessTable.Entry e : table.all()) {
          if (e.commandLine().contains(credential) || e.commandLine().contains(readToken)) {
            leaks.add(masked(e.commandLine()));
          }
        }
        for (Path call : held) {
          gate.release(call);
        }
      }
    } finally {
      if (p.isAlive()) {
        p.destroyForcibly();
      }
    }
    return new Watched(p.exitValue(), "", List.copyOf(leaks), gate.releasedCount() - before);
  }

  private static String masked(String commandLine) {
    return SECRET.matcher(commandLine).replaceAll(m -> m.group(1) + "…");
  }
}
