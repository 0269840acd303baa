package dev.pushgate.appliance.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.appliance.store.AuditEntry;
import dev.pushgate.appliance.store.ChainedRecord;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code pushgate audit --run}'s table names each record as its reader would. */
class TimelineTest {
  @Test
  void aGitHubApiCallIsLabelledAnApiCallNotAPush() {
    String table = Timeline.table(List.of(
        record(1, AuditEntry.Type.PUSH, "POST api.github.com/repos/acme/widget/pulls",
            "api:open-pull-request"),
        record(2, AuditEntry.Type.PUSH_OUTCOME, "POST api.github.com/repos/acme/widget/pulls",
            "api:open-pull-request"),
        record(3, AuditEntry.Type.PUSH, "refs/heads/main", "update")));
    List<String> lines = table.lines().toList();
    assertThat(lines.get(1)).contains("  api-call  ").doesNotContain(" push ");
    assertThat(lines.get(2)).contains("  api-call-outcome  ").doesNotContain("push-outcome");
    assertThat(lines.get(3)).contains("  push  ");
  }

  private static ChainedRecord record(long id, AuditEntry.Type type, String ref, String kind) {
    AuditEntry e = new AuditEntry(type, Instant.EPOCH, "run-1", "ws-1", "acme/widget", ref, null,
        null, kind, "denied", "open-pull-request", null, "denied", null, null, null, null, null);
    return new ChainedRecord(id, "host", id, null, null, ChainedRecord.AT_WRITE, e);
  }
}
