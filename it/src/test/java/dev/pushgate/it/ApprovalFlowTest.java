package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/** "Ask first" in a single push: held open, then forwarded or refused, never "push again". */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApprovalFlowTest {
  /** A run whose pushes to main ask first. */
  static final String ASK_MAIN = """
      {"workspaceId": "ws", "repository": "acme/widget",
       "rules": {"push": [{"refs": "refs/heads/main", "decision": "ask",
                           "reason": "main needs a human"}]}}""";

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving("--approver-poll-grace", "2s")
      .withRepos("acme/widget");

  /** The run the tests push from, and its git environment. */
  private String runId;
  private Map<String, String> env;

  @BeforeAll
  void start() throws Exception {
    // The default approval timeout: an approver answers whatever the machine's load; the time
    // out has a test and an appliance of its own. A short poll grace: an approver that stopped
    // polling stops counting soon (a long poll counts for all its length, so a waiting approver
    // counts throughout).
    JsonNode run = app.get().createRun(ASK_MAIN);
    runId = run.get("runId").asText();
    env = RunningAppliance.runEnv(run);
  }

  @Test
  void anApprovedPushLandsInTheSamePush() throws Exception {
    Path w = worktree("approve");
    Thread approver = approver("allow", "alice", null);
    LivePush push = LivePush.start(w, app.dir().resolve("home"), env, "push", "origin", "main");
    String heldLine = push.awaitStderr("waiting for approval of update refs/heads/main");
    assertThat(heldLine).startsWith("remote: ");
    assertThat(push.finish()).isZero();
    approver.join(10_000);
    assertThat(forgeMain()).isEqualTo(head(w));

    JsonNode audit = app.get().control().get("/v1/audit?runId=" + runId).body();
    assertThat(audit.get("decisions")).anySatisfy(d -> {
      assertThat(d.get("ref").asText()).isEqualTo("refs/heads/main");
      assertThat(d.get("decision").asText()).isEqualTo("allowed");
      assertThat(d.get("outcome").asText()).isEqualTo("ok");
      assertThat(d.get("reason").asText()).isEqualTo("main needs a human (approved by alice)");
    });
  }

  @Test
  void aDeniedPushIsRejectedWithTheApproversReason() throws Exception {
    Path w = worktree("deny");
    String before = forgeMain();
    approver("deny", "bob", "not today");
    GitRun.Result r = git().in(w, "push", "origin", "main").failed();
    assertThat(r.stderr()).contains(
        "! [remote rejected] main -> main (Control Center policy: denied by bob: not today)");
    assertThat(forgeMain()).isEqualTo(before);
  }

  @Test
  void theCliListsAndAnswersQuestions() throws Exception {
    Path w = worktree("cli");
    String before = forgeMain();
    String data = app.get().dataDir.toString();
    Thread approver = new Thread(() -> {
      try {
        for (int i = 0; i < 40; i++) {
          JsonNode pending = app.get().control().get("/v1/approvals?wait=2").body()
              .get("questions");
          if (pending.size() > 0) {
            String id = pending.get(0).get("id").asText();
            assertThat(RunningAppliance.cli("approvals", "--data-dir", data))
                .contains(id).contains("update refs/heads/main of acme/widget");
            RunningAppliance.cli("approvals", "answer", id, "deny", "--by", "carol",
                "--reason", "cli says no", "--data-dir", data);
            return;
          }
        }
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    approver.start();
    awaitApprover();
    GitRun.Result r = git().in(w, "push", "origin", "main").failed();
    approver.join(30_000);
    assertThat(r.stderr()).contains("(Control Center policy: denied by carol: cli says no)");
    assertThat(forgeMain()).isEqualTo(before);
  }

  @Test
  void withNoApproverConnectedAskIsAnImmediateDeny() throws Exception {
    Path w = worktree("none");
    // Until the appliance itself no longer counts an approver (a long poll keeps counting for
    // the poll grace after it ends); a plain list does not count as one.
    Wait.until(Duration.ofSeconds(30), "the appliance to count no approver connected",
        () -> !approverConnected());
    // Immediate: no question is held, so no approver timeout can be what ends it (that deny
    // names the timeout, anUnansweredQuestionTimesOutAsADeny).
    GitRun.Result r = git().in(w, "push", "origin", "main").failed();
    assertThat(r.stderr()).contains(
        "! [remote rejected] main -> main (Control Center policy: main needs a human"
            + " (no approver is connected))");
  }

  @Test
  void anUnansweredQuestionTimesOutAsADeny() throws Exception {
    // An appliance of its own: no approver of another test may answer, and the approval timeout
    // is short here only, where it is what the test waits for. Nothing here needs time within
    // it: the question is on the stream before the timeout can run out, and is read after.
    try (RunningAppliance timing = RunningAppliance.start(app.dir().resolve("data-timeout"),
        "--approval-timeout", "3s")) {
      timing.forgeCreate("acme/widget");
      unansweredTimesOut(timing, RunningAppliance.runEnv(timing.createRun(ASK_MAIN)));
    }
  }

  private void unansweredTimesOut(RunningAppliance timing, Map<String, String> env)
      throws Exception {
    Path w = worktree(env, "timeout");
    try (ApprovalStream events = ApprovalStream.connect(timing.dataDir)) {
      LivePush push = LivePush.start(w, app.dir().resolve("home"), env, "push", "origin", "main");
      String line;
      while ((line = events.readLine()) != null && !line.startsWith("event: question")) {
        // skip keepalives
      }
      assertThat(line).isEqualTo("event: question");
      assertThat(events.readLine()).contains("\"ref\":\"refs/heads/main\"")
          .contains("\"reason\":\"main needs a human\"");
      assertThat(push.finish()).isNotZero();
      assertThat(push.stderr()).contains(
          "! [remote rejected] main -> main (Control Center policy: main needs a human"
              + " (nobody answered within 3 s))");
    }
  }

  // --- fixtures ---

  private GitRun git() {
    return new GitRun(app.dir().resolve("home"), env);
  }

  private Path worktree(String name) throws Exception {
    return worktree(env, name);
  }

  private Path worktree(Map<String, String> env, String name) throws Exception {
    return worktree(app.dir(), env, name);
  }

  /**
   * A clone of acme/widget in {@code dir} with one new commit, made with the run's environment
   * {@code env} and the home {@code dir/home}.
   */
  static Path worktree(Path dir, Map<String, String> env, String name) throws Exception {
    GitRun git = new GitRun(Files.createDirectories(dir.resolve("home")), env);
    git.in(dir, "clone", "-q", "https://github.com/acme/widget.git", name).ok();
    Path w = dir.resolve(name);
    Files.writeString(w.resolve(name + ".txt"), name + "\n");
    git.in(w, "add", ".").ok();
    git.in(w, "commit", "-qm", "ask " + name).ok();
    return w;
  }

  /** An approver that long-polls until a question comes, then answers it. */
  private Thread approver(String decision, String by, String reason) throws Exception {
    Thread t = new Thread(() -> {
      try {
        for (int i = 0; i < 60; i++) {
          JsonNode pending = app.get().control().get("/v1/approvals?wait=5").body()
              .get("questions");
          if (pending.size() > 0) {
            String id = pending.get(0).get("id").asText();
            app.get().control().post("/v1/approvals/" + id, "{\"decision\": \"" + decision
                + "\", \"by\": \"" + by + "\""
                + (reason == null ? "" : ", \"reason\": \"" + reason + "\"") + "}");
            return;
          }
        }
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    t.setDaemon(true);
    t.start();
    awaitApprover();
    return t;
  }

  /** Until the appliance counts an approver: a question asked from now on is held, not refused. */
  private void awaitApprover() throws Exception {
    Wait.until(Duration.ofSeconds(30), "the appliance to count the approver connected",
        this::approverConnected);
  }

  private boolean approverConnected() throws Exception {
    return app.get().control().get("/v1/approvals").body().get("approverConnected").asBoolean();
  }

  private String forgeMain() throws Exception {
    try (Repository r = new FileRepository(app.get().forgeRepo("acme/widget").toFile())) {
      return r.exactRef("refs/heads/main").getObjectId().name();
    }
  }

  private String head(Path w) throws Exception {
    return git().in(w, "rev-parse", "HEAD").ok().stdout().strip();
  }

  /** A git push whose stderr is read while it runs. */
  static final class LivePush {
    private final Process process;
    private final LiveLines stderr;

    private LivePush(Process process) {
      this.process = process;
      this.stderr = LiveLines.of(process.getErrorStream());
    }

    static LivePush start(Path dir, Path home, Map<String, String> env, String... args)
        throws Exception {
      List<String> cmd = new ArrayList<>(List.of("git"));
      cmd.addAll(List.of(args));
      ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
      pb.environment().keySet().removeIf(k -> k.startsWith("GIT_"));
      pb.environment().put("HOME", home.toString());
      pb.environment().put("GIT_CONFIG_NOSYSTEM", "1");
      pb.environment().put("GIT_TERMINAL_PROMPT", "0");
      pb.environment().putAll(env);
      pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
      return new LivePush(pb.start());
    }

    String awaitStderr(String text) throws InterruptedException {
      return stderr.await(text, "git");
    }

    int finish() throws InterruptedException {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("git push did not finish:\n" + stderr());
      }
      stderr.awaitEnd(5_000);
      return process.exitValue();
    }

    String stderr() {
      return stderr.text();
    }
  }
}
