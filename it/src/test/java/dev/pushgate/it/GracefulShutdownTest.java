package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Stopping the appliance during a push: git sees an error, no ref moves, the audit keeps it. */
class GracefulShutdownTest {
  /** Its own appliance, which the test stops: a failure's message ends with what it logged. */
  @RegisterExtension
  static final ApplianceExtension appliance = ApplianceExtension.serving().withRepos("acme/widget");

  /** Pushes held at once when the appliance stops. */
  private static final int HELD = 3;

  @TempDir Path tmp;

  @Test
  void pushesHeldWhenTheApplianceStopsAreRefusedAndNothingMoves() throws Exception {
    RunningAppliance app = appliance.get();
    Path data = app.dataDir;
    ApprovalStream approver = null;
    ApproverWatch watch = null;
    List<ApprovalFlowTest.LivePush> pushes = new ArrayList<>();
    try {
      String before = forgeMain(app);
      // An approver that is connected but never answers.
      approver = ApprovalStream.connect(data);
      // Several runs' pushes held at once: every refusal is written as the stop begins, and
      // each must reach its git whole.
      for (int i = 0; i < HELD; i++) {
        JsonNode run = app.createRun("""
            {"workspaceId": "ws", "repository": "acme/widget",
             "rules": {"push": [{"refs": "refs/heads/main", "decision": "ask"}]}}""");
        Map<String, String> env = RunningAppliance.runEnv(run);
        Path home = Files.createDirectories(tmp.resolve("home" + i));
        Path w = Clones.withOneCommit(new GitRun(home, env),
            Files.createDirectories(tmp.resolve("run" + i)),
            "acme/widget", "held " + i + "\n", "held");
        ApprovalFlowTest.LivePush push =
            ApprovalFlowTest.LivePush.start(w, home, env, "push", "origin", "main");
        push.awaitStderr("waiting for approval");
        pushes.add(push);
      }
      watch = ApproverWatch.start(data);
      app.close(); // SIGTERM, as systemd stops it

      for (ApprovalFlowTest.LivePush push : pushes) {
        assertThat(push.finish()).isNotZero();
        assertThat(push.stderr()).contains("! [remote rejected] main -> main (Control Center"
            + " policy: the question was withdrawn before anyone answered: the appliance is"
            + " shutting down)");
      }
      assertThat(forgeMain(app)).isEqualTo(before);
      assertThat(app.logText()).contains("pushgate stopping")
          .doesNotContain("stopping before every held push's refusal was written");
      // The watching approver is told, in a line, and exits 1: no stack trace.
      assertThat(watch.awaitExit()).isEqualTo(1);
      // Told in the stream's last event, or, when the stopping appliance closes the connection
      // before that event is read, by the closed connection itself.
      assertThat(watch.stderr()).isIn(
          "pushgate: the appliance is stopping; no longer connected as an approver\n",
          "pushgate: lost the connection to the appliance (the appliance closed the connection);"
              + " no longer connected as an approver\n");
    } finally {
      if (approver != null) {
        approver.close();
      }
      if (watch != null) {
        watch.close();
      }
      app.close();
    }
    String audit = RunningAppliance.cli("audit", "--refused", "--data-dir", data.toString());
    assertThat(audit).contains("the appliance is shutting down");
    // Withdrawn by the shutdown, not denied by anyone.
    String json = RunningAppliance.cli("audit", "--refused", "--json", "--data-dir",
        data.toString());
    assertThat(json).contains("\"code\":\"APPROVAL_CANCELLED\"")
        .doesNotContain("APPROVAL_DENIED");
  }

  private static String forgeMain(RunningAppliance app) throws Exception {
    try (Repository r = new FileRepository(app.forgeRepo("acme/widget").toFile())) {
      return r.exactRef("refs/heads/main").getObjectId().name();
    }
  }
}
