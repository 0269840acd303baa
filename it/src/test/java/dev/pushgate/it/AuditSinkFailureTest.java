package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * attack35c: a push refused because the audit file cannot be written was left in the audit as
 * {@code allowed … pending} for good; the real git client's refused push now reads as not
 * forwarded in the appliance's audit.
 */
class AuditSinkFailureTest {
  @TempDir Path tmp;

  @Test
  void aPushRefusedForTheAuditFileReadsAsNotForwarded() throws Exception {
    Path sink = tmp.resolve("audit.jsonl");
    try (RunningAppliance app = RunningAppliance.start(tmp.resolve("data"),
        "--audit-file", sink.toString())) {
      app.forgeCreate("acme/widget");
      JsonNode run = app.createRun(
          "{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\"}");
      String runId = run.get("runId").asText();
      GitRun git = new GitRun(Files.createDirectories(tmp.resolve("home")),
          RunningAppliance.runEnv(run));
      Path w = Clones.withOneCommit(git, tmp, "acme/widget", "x\n", "x");

      // The file cannot be opened for writing (root ignores permissions; a directory it cannot).
      Files.deleteIfExists(sink);
      Files.createDirectory(sink);
      GitRun.Result r = git.in(w, "push", "origin", "HEAD:refs/heads/feature").failed();
      assertThat(r.stderr()).contains("the audit log is unavailable, so nothing can be pushed");
      Files.delete(sink);

      JsonNode decisions = app.control().get("/v1/audit?runId=" + runId).body()
          .get("decisions");
      assertThat(decisions).singleElement().satisfies(d -> {
        assertThat(d.get("ref").asText()).isEqualTo("refs/heads/feature");
        assertThat(d.get("outcome").asText())
            .isEqualTo("not forwarded: the audit log is unavailable");
      });
    }
  }
}
