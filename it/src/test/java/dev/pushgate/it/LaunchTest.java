package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.ControlClient;
import dev.pushgate.testkit.Host;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.Transport;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Launching a command in an existing run (docs/launcher.md): {@code POST /v1/runs/{id}/launch}
 * on the control socket, {@code pushgate launch}, and the Python example launcher, against the
 * real jar and real bubblewrap (skipped without it unless SANDBOX_REQUIRE_BWRAP=1, as {@link
 * ExecTest}).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class LaunchTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern PY_RUN = Pattern.compile("launcher: run (run_[0-9a-f]+)\n");

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving()
      .forSandboxedRuns().withRepos("acme/widget");

  @BeforeAll
  static void start() {
    ExecTest.requireBwrap();
  }

  /** The control socket, as a launcher reaches it. */
  private static Path socket() {
    return app.get().dataDir.resolve("control.sock");
  }

  @Test
  void aLaunchStreamsOutputAndEventsThenTheExitCodeAndNoTokenOutsideTheOutput() throws Exception {
    LaunchRun run = launchRun("stream");
    String readToken = run.json().get("env").get("GH_TOKEN").asText();

    List<JsonNode> lines;
    try (Stream s = Stream.open(run.id(), launchBody(List.of("sh", "-c", """
        echo out
        echo err >&2
        test -n "$GH_TOKEN" && test -n "$PUSHGATE_RUN_TOKEN" && echo has-the-run-tokens
        test -f "$GIT_CONFIG_GLOBAL" && echo has-the-git-config
        touch "/usr/pg-$GH_TOKEN-$PUSHGATE_RUN_TOKEN"
        exit 3
        """), null))) {
      assertThat(s.status).isEqualTo(200);
      assertThat(s.contentType).isEqualTo("application/x-ndjson");
      lines = s.rest();
    }

    JsonNode started = lines.get(0);
    assertThat(started.get("type").asText()).isEqualTo("started");
    assertThat(started.get("runId").asText()).isEqualTo(run.id());
    assertThat(started.get("backend").asText()).isEqualTo("native");
    assertThat(started.get("workdir").asText()).isEqualTo(run.work().toString());
    assertThat(started.get("sandbox").asText()).startsWith("bubblewrap");
    assertThat(started.get("weakenings").get(0).asText())
        .startsWith("denyWriteGlobs set by the rules to []");
    assertThat(lines.get(lines.size() - 1)).isEqualTo(JSON.readTree("{\"type\":\"exit\",\"code\":3}"));
    assertThat(data(lines, "stdout")).isEqualTo("out\nhas-the-run-tokens\nhas-the-git-config\n");
    assertThat(data(lines, "stderr")).startsWith("err\n").contains("Read-only file system");
    List<JsonNode> events = ofType(lines, "event");
    assertThat(events).hasSize(1);
    assertThat(events.get(0).get("event").asText()).isEqualTo("violation");
    assertThat(events.get(0).get("action").asText()).isEqualTo("file-write*");
    assertThat(events.get(0).get("target").asText()).isEqualTo("/usr/pg-***-***");
    // The tokens are in the command's own output (it printed them), and nowhere else.
    for (JsonNode line : lines) {
      if (!line.get("type").asText().matches("stdout|stderr")) {
        assertThat(line.toString()).doesNotContain(readToken).doesNotContain(run.credential());
      }
    }
    assertThat(app.get().logText()).doesNotContain(readToken).doesNotContain(run.credential());
    assertThat(app.get().control().delete("/v1/runs/" + run.id()).status()).isEqualTo(200);
  }

  @Test
  void aRebaseLeftInProgressIsMovedAsideAndReportedInTheStreamAndTheRunsAudit() throws Exception {
    LaunchRun run = launchRun("left-rebase");

    List<JsonNode> lines;
    try (Stream s = Stream.open(run.id(), launchBody(List.of("sh", "-c", """
        mkdir -p .git/rebase-merge && echo 'exec touch /tmp/x' > .git/rebase-merge/git-rebase-todo
        mkdir ".git/named-$PUSHGATE_RUN_TOKEN"
        """), null))) {
      lines = s.rest();
    }

    Path state = run.work().resolve(".git/rebase-merge");
    String detail = state + ": an operation in progress left by the run (git would resume or"
        + " conclude it: --continue, commit, bisect); moved to rebase-merge.planted-by-run (git"
        + " does not read it there)";
    assertThat(ofType(lines, "event")).anySatisfy(e -> {
      assertThat(e.get("action").asText()).isEqualTo("git-metadata");
      assertThat(e.get("target").asText()).isEqualTo(state.toString());
      assertThat(e.get("detail").asText()).isEqualTo(detail);
    });
    assertThat(state).doesNotExist();
    String timeline = RunningAppliance.cli("audit", "--run", run.id(), "--data-dir",
        app.get().dataDir.toString());
    assertThat(timeline).contains("run-end-finding").contains("git-metadata " + state)
        .contains("moved to rebase-merge.planted-by-run")
        // A name spelling the run's credential is reported, the credential is not.
        .contains("git-metadata " + run.work().resolve(".git/named-***"));
    assertThat(lines.toString()).contains("named-***");
    assertThat(timeline + lines + app.get().logText()).doesNotContain(run.credential());
    app.get().control().delete("/v1/runs/" + run.id());
  }

  @Test
  void badAndRefusedLaunchesAreAnsweredWithAnErrorAndLaunchNothing() throws Exception {
    Path work = workdir("refused");
    String runId = createRun(work).get("runId").asText();
    String path = "/v1/runs/" + runId + "/launch";
    Path marker = work.resolve("ran");
    String touch = launchBody(List.of("touch", marker.toString()), null);

    assertError(Wire.unix(socket(), "POST", path, "{\"command\": [\"true\"".getBytes(
        StandardCharsets.UTF_8)), 400, "malformed JSON");
    assertError(Wire.unix(socket(), "POST", path, new byte[] {'{', '"', (byte) 0xff, '"', '}'}),
        400, "the request body is not valid UTF-8");
    assertError(post(path, "{\"command\": \"touch " + marker + "\"}"), 400,
        "command must be an array of strings, not a string");
    assertError(post(path, "{\"command\": [\"touch\", \"" + marker + "\"], \"env\": {}}"), 400,
        "unknown field \"env\": a launch takes command and workdir");
    assertError(post(path, launchBody(List.of("touch", marker.toString()), app.dir().toString())),
        400, "workdir " + app.dir() + " is not the run's workdir " + work
            + " or a directory inside it");
    Path sub = Files.createDirectories(work.resolve("sub"));
    Files.createSymbolicLink(sub.resolve("out"), app.dir());
    assertError(post(path, launchBody(List.of("touch", marker.toString()),
        sub.resolve("out").toString())), 400, "workdir " + sub.resolve("out")
        + " leads out of the run's workdir " + work + " through a symbolic link");
    assertError(post(path, launchBody(List.of("touch", marker.toString()),
        work.resolve("../refused/../refused/missing").toString())), 400, "workdir");
    assertError(post("/v1/runs/run_000000000000000000000000/launch", touch), 404,
        "no run run_000000000000000000000000");
    assertError(Wire.unix(socket(), "GET", path, null), 405,
        "use POST to launch a command in a run");

    String plain = app.get()
        .createRun("{\"workspaceId\": \"ws-launch\", \"repository\": \"acme/widget\"}")
        .get("runId").asText();
    assertError(post("/v1/runs/" + plain + "/launch", touch), 422,
        "run " + plain + " has no sandbox plan");

    assertThat(app.get().control().delete("/v1/runs/" + runId).status()).isEqualTo(200);
    assertError(post(path, touch), 404, "run " + runId + " has ended");
    assertThat(marker).doesNotExist();
    app.get().control().delete("/v1/runs/" + plain);
  }

  @Test
  void aRunHasOneCommandAtATimeAndItsTeardownKillsIt() throws Exception {
    Path work = workdir("teardown");
    String runId = createRun(work).get("runId").asText();
    try (Stream s = Stream.open(runId, launchBody(List.of("sh", "-c", "echo up; exec sleep 600"),
        null))) {
      long pid = s.next().get("pid").asLong();
      assertThat(s.next().get("data").asText()).isEqualTo("up\n");

      ControlClient.Answer second = post("/v1/runs/" + runId + "/launch",
          launchBody(List.of("true"), null));
      assertError(second, 409, "run " + runId + " already has a launched command (pid " + pid
          + "); one at a time");

      assertThat(app.get().control().delete("/v1/runs/" + runId).status()).isEqualTo(200);
      // Teardown answers once the command is gone.
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
      List<JsonNode> rest = s.rest();
      assertThat(ofType(rest, "event")).extracting(n -> n.get("event").asText() + ": "
          + n.get("reason").asText()).containsExactly("killed: the run ended");
      assertThat(rest.get(rest.size() - 1).get("type").asText()).isEqualTo("exit");
      assertThat(rest.get(rest.size() - 1).get("code").asInt()).isNotZero();
    }
    assertThat(Forge.liveCredentials(app.get(), runId)).isZero();
  }

  /**
   * Two runs of one workdir: the second's launch is refused while the first holds it lent, in one
   * sentence an agent can act on (it said "not launched: not launched: …").
   */
  @Test
  void aSecondRunsLaunchOnAWorkdirLentToTheFirstIsRefusedSayingWhoHoldsIt() throws Exception {
    Assumptions.assumeTrue(Host.isRoot(), "only root lends a workdir to a sandbox user");
    Path work = workdir("lent");
    String first = createRun(work).get("runId").asText();
    String second = createRun(work).get("runId").asText();
    try (Stream s = Stream.open(first, launchBody(List.of("sleep", "600"), null))) {
      assertThat(s.next().get("type").asText()).isEqualTo("started");
      ControlClient.Answer refused = post("/v1/runs/" + second + "/launch",
          launchBody(List.of("touch", work.resolve("ran").toString()), null));
      assertThat(refused.status()).as(refused.raw()).isEqualTo(422);
      // The lender is the appliance's process, whose pid the loan names.
      assertThat(refused.body().get("error").asText()).matches(Pattern.quote("not launched: "
          + work + " is already lent to the sandbox user by run " + first + " (pid ")
          + "\\d+" + Pattern.quote("); a directory is lent to one run at a time"));
      assertThat(work.resolve("ran")).doesNotExist();
    } finally {
      app.get().control().delete("/v1/runs/" + first);
      app.get().control().delete("/v1/runs/" + second);
    }
  }

  @Test
  void aClientThatGoesAwayHasItsCommandKilledAndTheRunMayLaunchAgain() throws Exception {
    Path work = workdir("gone");
    String runId = createRun(work).get("runId").asText();
    long pid;
    try (Stream s = Stream.open(runId, launchBody(List.of("sleep", "600"), null))) {
      pid = s.next().get("pid").asLong();
      s.abort();
    }
    // Seen at the next heartbeat at the latest.
    Wait.until(Duration.ofSeconds(60), "the launched command to be killed",
        () -> !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
    List<JsonNode> again = Wait.forValue(Duration.ofSeconds(60), "a second launch of the run",
        () -> {
          try (Stream s = Stream.open(runId, launchBody(List.of("echo", "again"), null))) {
            return s.status == 200 ? s.rest() : null;
          }
        }, v -> v != null);
    assertThat(data(again, "stdout")).isEqualTo("again\n");
    assertThat(app.get().logText()).contains("run " + runId + ": launched command (pid " + pid
        + ") ended with ");
    app.get().control().delete("/v1/runs/" + runId);
  }

  @Test
  void neitherTheSandboxSocketNorTheLoopbackPortLaunches() throws Exception {
    LaunchRun run = launchRun("sockets");
    Path marker = run.work().resolve("ran");
    byte[] body = launchBody(List.of("touch", marker.toString()), null)
        .getBytes(StandardCharsets.UTF_8);
    String path = "/v1/runs/" + run.id() + "/launch";

    Wire.Answer sandbox = Wire.unix(Path.of(run.json().get("gateway").get("socket").asText()),
        "POST", path, run.credential(), body);
    assertThat(sandbox.status()).isEqualTo(404);
    assertThat(sandbox.body()).startsWith("Not served to sandboxes");
    Wire.Answer loopback = Wire.tcp(app.get().port(), "POST", path, run.credential(),
        "application/json", body);
    assertThat(loopback.status()).isEqualTo(404);
    assertThat(marker).doesNotExist();
    app.get().control().delete("/v1/runs/" + run.id());
  }

  @Test
  void pushgateLaunchWritesTheOutputReportsViolationsAndExitsWithTheCommandsCode()
      throws Exception {
    Path work = workdir("cli");
    String runId = createRun(work).get("runId").asText();
    Files.createDirectories(work.resolve("sub"));

    Cli cli = cli("launch", "--data-dir", app.get().dataDir.toString(), "--workdir",
        work.resolve("sub").toString(), runId, "--", "sh", "-c",
        "pwd; echo to-stderr >&2; touch /usr/pushgate-it; exit 7");

    assertThat(cli.exit()).as(cli.stderr()).isEqualTo(7);
    assertThat(cli.stdout()).isEqualTo(work.resolve("sub") + "\n");
    assertThat(cli.stderr()).contains("to-stderr\n")
        .contains("pushgate: launched in run " + runId + " in " + work.resolve("sub")
            + " (native, pid ")
        .contains(") under bubblewrap")
        .contains("pushgate: weakened: denyWriteGlobs set by the rules to []")
        .contains("pushgate: sandbox violation: file-write* \"/usr/pushgate-it\"\n");
    app.get().control().delete("/v1/runs/" + runId);
  }

  @Test
  void pushgateLaunchExits125WhenTheRunIsUnknownOrNoApplianceRuns() throws Exception {
    Cli unknown = cli("launch", "--data-dir", app.get().dataDir.toString(),
        "run_000000000000000000000000", "--", "true");
    assertThat(unknown.exit()).isEqualTo(125);
    assertThat(unknown.stderr()).isEqualTo("pushgate: no run run_000000000000000000000000\n");

    Path none = Files.createDirectory(app.dir().resolve("no-appliance"));
    Files.setPosixFilePermissions(none, PosixFilePermissions.fromString("rwx------"));
    Cli stopped = cli("launch", "--data-dir", none.toString(), "run_0", "--", "true");
    assertThat(stopped.exit()).isEqualTo(125);
    assertThat(stopped.stderr()).startsWith("pushgate: no appliance is running on " + none);

    Cli badId = cli("launch", "--data-dir", app.get().dataDir.toString(), "../../v1/audit", "--",
        "true");
    assertThat(badId.exit()).isEqualTo(125);
    assertThat(badId.stderr()).isEqualTo("pushgate: not a run id: ../../v1/audit\n");
  }

  @Test
  void thePythonExampleCreatesARunLaunchesStreamsAndTearsItDown() throws Exception {
    requirePython();
    Path work = workdir("python");
    Path rules = Files.writeString(app.dir().resolve("rules.json"), "{\"denyWriteGlobs\": []}");
    Path script = Path.of("../packaging/examples/launcher.py").toAbsolutePath().normalize();
    ProcessBuilder pb = new ProcessBuilder("python3", script.toString(), "--data-dir",
        app.get().dataDir.toString(), "--repo", "acme/widget", "--workdir", work.toString(),
            "--rules",
        rules.toString(), "--", "sh", "-c", "echo from-the-sandbox; echo to-stderr >&2; exit 5");
    Cli py = run(pb);

    assertThat(py.exit()).as(py.stderr()).isEqualTo(5);
    assertThat(py.stdout()).isEqualTo("from-the-sandbox\n");
    assertThat(py.stderr()).contains("to-stderr\n").contains("launcher: started pid ");
    Matcher m = PY_RUN.matcher(py.stderr());
    assertThat(m.find()).as(py.stderr()).isTrue();
    String runId = m.group(1);
    assertThat(py.stderr()).contains("launcher: run " + runId + " torn down (200)");
    assertThat(app.get().control().get("/v1/runs/" + runId).body().get("state").asText())
        .isEqualTo("ended");
    assertThat(Forge.liveCredentials(app.get(), runId)).isZero();
  }

  // ---- helpers

  /** A streamed launch over the control socket, read line by line. */
  static final class Stream implements AutoCloseable {
    final HttpClient client = new HttpClient();
    final InputStreamResponseListener listener = new InputStreamResponseListener();
    Request request;
    int status;
    String contentType;
    BufferedReader lines;

    static Stream open(String runId, String body) throws Exception {
      Stream s = new Stream();
      s.client.start();
      s.request = s.client.newRequest("http://localhost/v1/runs/" + runId + "/launch")
          .transport(new Transport.TCPUnix(socket())).method(HttpMethod.POST)
          .idleTimeout(0, TimeUnit.SECONDS)
          .body(new StringRequestContent("application/json", body));
      s.request.send(s.listener);
      var response = s.listener.get(60, TimeUnit.SECONDS);
      s.status = response.getStatus();
      s.contentType = response.getHeaders().get("Content-Type");
      s.lines = new BufferedReader(
          new InputStreamReader(s.listener.getInputStream(), StandardCharsets.UTF_8));
      return s;
    }

    /** The next line but heartbeats, or null at the end of the stream. */
    JsonNode next() throws IOException {
      for (String line; (line = lines.readLine()) != null; ) {
        JsonNode n = JSON.readTree(line);
        if (!n.path("type").asText().equals("heartbeat")) {
          return n;
        }
      }
      return null;
    }

    List<JsonNode> rest() throws IOException {
      List<JsonNode> all = new ArrayList<>();
      for (JsonNode n; (n = next()) != null; ) {
        all.add(n);
      }
      return all;
    }

    /** Goes away: the connection is closed under the stream. */
    void abort() throws Exception {
      request.abort(new IOException("the test's client went away"));
      client.stop();
    }

    @Override
    public void close() throws Exception {
      client.stop();
    }
  }

  record Cli(int exit, String stdout, String stderr) {}

  private static Cli cli(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("java", "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC", "-jar", RunningAppliance.jar().toString()));
    cmd.addAll(List.of(args));
    return run(new ProcessBuilder(cmd));
  }

  private static Cli run(ProcessBuilder pb) throws Exception {
    Path out = Files.createTempFile(app.dir(), "out", ".txt");
    Path err = Files.createTempFile(app.dir(), "err", ".txt");
    pb.redirectOutput(out.toFile()).redirectError(err.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    Process p = pb.start();
    if (!p.waitFor(180, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail(String.join(" ", pb.command()) + " did not finish in 180 s:\n" + Files.readString(err));
    }
    return new Cli(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  private static Path workdir(String name) throws IOException {
    return Files.createDirectories(app.dir().resolve("work-" + name)).toRealPath();
  }

  /** A sandboxed run of {@code work}; bubblewrap cannot deny file-name globs, so none are set. */
  private static JsonNode createRun(Path work) throws Exception {
    return app.get().createRun(JSON.writeValueAsString(JSON.createObjectNode()
        .put("workspaceId", "ws-launch").put("repository", "acme/widget")
        .put("workdir", work.toString()).put("runner", "harness-bash")
        .set("rules", JSON.readTree("{\"denyWriteGlobs\": []}"))));
  }

  /** A run created by {@link #createRun} for a new workdir {@code name}, with what tests use. */
  private record LaunchRun(Path work, JsonNode json, String id, String credential) {}

  private static LaunchRun launchRun(String name) throws Exception {
    Path work = workdir(name);
    JsonNode run = createRun(work);
    return new LaunchRun(work, run, run.get("runId").asText(),
        run.get("env").get("PUSHGATE_RUN_TOKEN").asText());
  }

  private static String launchBody(List<String> command, String workdir) throws Exception {
    var body = JSON.createObjectNode();
    var argv = body.putArray("command");
    command.forEach(argv::add);
    if (workdir != null) {
      body.put("workdir", workdir);
    }
    return JSON.writeValueAsString(body);
  }

  private static ControlClient.Answer post(String path, String body) throws Exception {
    return app.get().control().post(path, body);
  }

  private static void assertError(ControlClient.Answer a, int status, String message) {
    assertThat(a.status()).as(a.raw()).isEqualTo(status);
    assertThat(a.body().get("error").asText()).as(a.raw()).startsWith(message);
  }

  private static void assertError(Wire.Answer a, int status, String message) throws Exception {
    assertThat(a.status()).as(a.body()).isEqualTo(status);
    assertThat(JSON.readTree(a.body()).get("error").asText()).startsWith(message);
  }

  private static List<JsonNode> ofType(List<JsonNode> lines, String type) {
    return lines.stream().filter(n -> n.get("type").asText().equals(type)).toList();
  }

  private static String data(List<JsonNode> lines, String type) {
    StringBuilder b = new StringBuilder();
    ofType(lines, type).forEach(n -> b.append(n.get("data").asText()));
    return b.toString();
  }

  /** Skips without python3, or fails when CI sets SANDBOX_REQUIRE_BWRAP=1 (.ci/run installs it). */
  private static void requirePython() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "python3"))) {
        return;
      }
    }
    if ("1".equals(System.getenv("SANDBOX_REQUIRE_BWRAP"))) {
      fail("SANDBOX_REQUIRE_BWRAP=1 (CI) but this host lacks python3");
    }
    Assumptions.abort("this host lacks python3");
  }
}
