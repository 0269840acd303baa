package dev.pushgate.appliance.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.appliance.store.ChainedRecord;
import dev.pushgate.types.AuditEntry;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code pushgate audit --run}'s table names each record as its reader would. */
class TimelineTest {
  @Test
  void aGitHubApiCallIsLabelledAnApiCallNotAPush() {
    String table = Timeline.table(List.of(
        record(1, AuditEntry.Type.PUSH, "POST api.github.com/repos/acme/widget/pulls",
            "api:open-pull-request", "#new", null),
        record(2, AuditEntry.Type.API_CALL, "#new", "open-pull-request", null,
            "POST api.github.com/repos/acme/widget/pulls"),
        record(3, AuditEntry.Type.PUSH, "refs/heads/main", "update", "push main", null)));
    List<String> lines = table.lines().toList();
    // Written as a push before API calls had their own type, read as what it is.
    assertThat(lines.get(1)).contains("  api-call  ", "open-pull-request #new (POST"
        + " api.github.com/repos/acme/widget/pulls)").doesNotContain(" push ");
    assertThat(lines.get(2).substring(lines.get(2).indexOf("api-call")))
        .isEqualTo(lines.get(1).substring(lines.get(1).indexOf("api-call")));
    assertThat(lines.get(3)).contains("  push  ");
  }

  private static ChainedRecord record(long id, AuditEntry.Type type, String ref, String kind,
      String rule, String subject) {
    AuditEntry e = new AuditEntry(type, Instant.EPOCH, "run-1", "ws-1", "acme/widget", ref, null,
        null, kind, "denied", rule, null, "denied", null, null, null, subject, null);
    return new ChainedRecord(id, "host", id, null, null, ChainedRecord.AT_WRITE, e);
  }
}
