package dev.pushgate.appliance.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code runs} and {@code audit} print for people. */
class OutputsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant NOW = Instant.parse("2026-12-04T03:45:10.123Z");

  @Test
  void runsShowTheirBackendAndReadableTimes() throws Exception {
    JsonNode runs = JSON.readTree("""
        [{"runId": "run_1", "repository": "acme/widget", "mode": "chat", "backend": "bubblewrap",
          "workspaceId": "ws-1", "createdAt": "2026-12-04T03:42:10Z",
          "expiresAt": "2026-12-04T03:57:10.5Z"},
         {"runId": "run_2", "repository": "acme/gadget", "mode": "review", "backend": null,
          "workspaceId": "ws-2", "createdAt": "2026-12-03T03:45:10Z",
          "expiresAt": "2026-12-04T11:45:10Z"}]""");
    String[] lines = RunsCommand.table(runs, NOW).split("\n");
    assertThat(lines[0]).containsPattern(
        "RUN +REPOSITORY +MODE +BACKEND +WORKSPACE +STARTED +EXPIRES");
    assertThat(lines[1]).containsPattern("run_1 +acme/widget +chat +bubblewrap +ws-1 +3m ago"
        + " +2026-12-04 03:57:10Z \\(in 12m\\)");
    assertThat(lines[2]).containsPattern("run_2 +acme/gadget +review +none +ws-2 +1d ago"
        + " +2026-12-04 11:45:10Z \\(in 7h\\)");
    assertThat(lines[1].indexOf("ws-1")).isEqualTo(lines[2].indexOf("ws-2"));
  }

  @Test
  void theAuditTableShowsTheRefusalCode() throws Exception {
    List<JsonNode> rows = List.of(JSON.readTree("""
        {"at": "2026-12-04T03:45:10.123456Z", "runId": "run_1", "repository": "acme/widget",
         "ref": "refs/heads/main", "kind": "update", "decision": "denied", "code": "RULE_DENIED",
         "reason": "push to main is denied", "outcome": "not forwarded"}"""), JSON.readTree("""
        {"at": "2026-12-04T03:46:00Z", "runId": "run_1", "repository": "acme/widget",
         "ref": "refs/heads/feature", "kind": "create", "decision": "allowed", "code": null,
         "reason": "r", "outcome": "ok"}"""));
    String[] lines = AuditCommand.table(rows).split("\n");
    assertThat(lines[0]).containsPattern("TIME +RUN +REPOSITORY +REF / COMMAND +KIND +DECISION"
        + " +CODE +REASON / OUTCOME");
    assertThat(lines[1]).containsPattern("^2026-12-04 03:45:10Z +run_1 +acme/widget +main"
        + " +update +denied +RULE_DENIED +push to main is denied$");
    assertThat(lines[2]).containsPattern("feature +create +allowed +- +ok$");
  }

  @Test
  void relativeTimesUseTheLargestWholeUnit() {
    assertThat(Times.relative(NOW.plusSeconds(30), NOW)).isEqualTo("in 30s");
    assertThat(Times.relative(NOW.minusSeconds(180), NOW)).isEqualTo("3m ago");
    assertThat(Times.relative(NOW.plusSeconds(7_200 + 59), NOW)).isEqualTo("in 2h");
    assertThat(Times.relative(NOW, NOW)).isEqualTo("now");
    assertThat(Times.at("not a time")).isEqualTo("not a time");
  }
}
