package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.ControlClient;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The edges of "ask first" (issue 14, item 14): a run's teardown withdraws its held questions,
 * {@code approvals watch} says "connected" only once a push would be held, and the audit names
 * the approver. Nothing here long-polls, so only the watch makes an approver connected.
 */
class ApprovalEdgesTest {
  private static final String ASK_MAIN = ApprovalFlowTest.ASK_MAIN;

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving("--approval-timeout", "60s")
      .withRepos("acme/widget");

  @BeforeAll
  static void start() throws Exception {
    Files.createDirectories(app.dir().resolve("home"));
  }

  @Test
  void teardownWithdrawsAHeldPushAndALateYesForwardsNothing() throws Exception {
    JsonNode run = app.get().createRun(ASK_MAIN);
    String runId = run.get("runId").asText();
    Path w = worktree(run, "teardown");
    String before = forgeMain();
    try (ApproverWatch watch = ApproverWatch.start(app.get().dataDir)) {
      ApprovalFlowTest.LivePush push = ApprovalFlowTest.LivePush.start(w, app.dir().resolve("home"),
          env(run), "push", "origin", "main");
      String id = questionId(watch.awaitLine("? q_"));

      assertThat(app.get().control().delete("/v1/runs/" + runId).status()).isEqualTo(200);

      assertThat(push.finish()).isNotZero();
      assertThat(push.stderr()).contains("! [remote rejected] main -> main (Control Center"
          + " policy: the question was withdrawn before anyone answered: run " + runId
          + " has ended)");
      ControlClient.Answer late = app.get().control().post("/v1/approvals/" + id,
          "{\"decision\": \"allow\", \"by\": \"mallory\"}");
      assertThat(late.status()).isEqualTo(404);
      assertThat(late.body().get("error").asText()).startsWith("no pending question " + id);
      assertThat(forgeMain()).isEqualTo(before);
      assertThat(watch.awaitLine("  " + id + " ")).isEqualTo("  " + id + " cancelled");
    }
    assertThat(decisionsOf(runId)).singleElement().satisfies(d -> {
      assertThat(d.get("ref").asText()).isEqualTo("refs/heads/main");
      assertThat(d.get("decision").asText()).isEqualTo("denied");
      assertThat(d.get("code").asText()).isEqualTo("APPROVAL_CANCELLED");
    });
  }

  @Test
  void aPushRightAfterWatchSaysConnectedIsHeldAndItsAuditNamesTheApprover() throws Exception {
    JsonNode run = app.get().createRun(ASK_MAIN);
    String runId = run.get("runId").asText();
    Path w = worktree(run, "approved");
    try (ApproverWatch watch = ApproverWatch.start(app.get().dataDir)) {
      // At once: the appliance already counts this watch as an approver.
      ApprovalFlowTest.LivePush push = ApprovalFlowTest.LivePush.start(w, app.dir().resolve("home"),
          env(run), "push", "origin", "main");
      String question = watch.awaitLine("? q_");
      assertThat(question).contains("update refs/heads/main of acme/widget")
          .contains("rule: main needs a human");
      String id = questionId(question);

      RunningAppliance.cli("approvals", "answer", id, "allow", "--by", "alice",
          "--data-dir", app.get().dataDir.toString());

      assertThat(push.finish()).as(push.stderr()).isZero();
      assertThat(watch.awaitLine("  " + id + " ")).isEqualTo("  " + id + " allowed by alice");
    }
    assertThat(forgeMain()).isEqualTo(
        new GitRun(app.dir().resolve("home"), env(run)).in(w, "rev-parse",
            "HEAD").ok().stdout().strip());
    assertThat(decisionsOf(runId)).singleElement().satisfies(d -> {
      assertThat(d.get("decision").asText()).isEqualTo("allowed");
      assertThat(d.get("reason").asText()).isEqualTo("main needs a human (approved by alice)");
      assertThat(d.get("outcome").asText()).isEqualTo("ok");
    });
    assertThat(RunningAppliance.cli("audit", "--run", runId, "--decisions", "--data-dir",
        app.get().dataDir.toString())).contains("ok; main needs a human (approved by alice)");
  }

  static String questionId(String watchLine) {
    return watchLine.substring(2, watchLine.indexOf(' ', 2));
  }

  private static Map<String, String> env(JsonNode run) {
    return RunningAppliance.runEnv(run);
  }

  private static Path worktree(JsonNode run, String name) throws Exception {
    return ApprovalFlowTest.worktree(app.dir(), env(run), name);
  }

  private static String forgeMain() throws Exception {
    try (Repository r = new FileRepository(app.get().forgeRepo("acme/widget").toFile())) {
      return r.exactRef("refs/heads/main").getObjectId().name();
    }
  }

  private JsonNode decisionsOf(String runId) throws Exception {
    return app.get().control().get("/v1/audit?runId=" + runId).body().get("decisions");
  }
}
