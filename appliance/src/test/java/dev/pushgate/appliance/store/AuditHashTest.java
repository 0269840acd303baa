package dev.pushgate.appliance.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.types.AuditEntry;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class AuditHashTest {
  /**
   * A chain written before the hash was fed to the digest piece by piece must verify after it:
   * the value below is what the form built whole as text (pushgate up to f8eebc4d) gave for this
   * record, with null fields and text outside ASCII.
   */
  @Test
  void aRecordHashesAsTheFormBuiltWholeDid() {
    AuditEntry e = AuditEntry.builder(AuditEntry.Type.API_CALL)
        .at(Instant.ofEpochMilli(1_765_000_000_123L)).runId("run-1").workspaceId("ws")
        .repository("acme/widget").ref("#1").kind("write-tracker").decision("allowed")
        .reason("commenting is allowed: « naïve » ✓").outcome("ok").durationMillis(3L)
        .subject("POST api.github.com/repos/acme/widget/issues/1/comments").build();
    ChainedRecord r = new ChainedRecord(42, "host-a", 7, AuditHash.GENESIS, null,
        ChainedRecord.AT_WRITE, e);

    assertThat(AuditHash.of(r))
        .isEqualTo("fe49c8a6eff33f060321bde01a9acb3e4b760b31aa5f9be08ee584423c6085f5");
  }
}
