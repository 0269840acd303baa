package dev.pushgate.appliance.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The audit chain tests on SQLite files, and the storage types only SQLite lets a column change
 * (issue 29: a value re-stored as another type hashes alike but escapes the appliance's lookups).
 */
class AuditChainSqliteTest extends AuditChainContract {
  private int stores;

  @Override
  String freshStore() {
    return tmp.resolve("audit-" + (stores++) + ".db").toString();
  }

  @Test
  void aRunIdStoredAsABlobIsABreakNotAHiddenRecord() throws Exception {
    List<Long> ids = writeFive();
    sql("UPDATE audit SET run_id = CAST(run_id AS BLOB) WHERE id = " + ids.get(2));
    // What the re-typing does: the timeline's SQL equality no longer finds the record.
    assertThat(new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE)).timeline("run-1"))
        .hasSize(4);
    assertBroken(ids.get(2), 3, "run_id stored as blob, not text" + AuditStorage.WHY);
  }

  /**
   * A value re-stored with another type reads back alike: {@code 3.5} reads as seq 3; a text
   * {@code at} or {@code seq} compares and sorts apart from every number. Not a trailing space
   * for text: the columns' integer affinity would turn "3 " back into 3.
   */
  @ParameterizedTest
  @CsvSource(delimiter = ';', quoteCharacter = '"', value = {
      "reason = CAST(reason AS BLOB) ; reason stored as blob, not text",
      "seq = 3.5 ; seq stored as real, not integer",
      "seq = seq || 'x' ; seq stored as text, not integer",
      "at = at || 'x' ; at stored as text, not integer"})
  void aColumnReStoredAsAnotherTypeIsABreak(String set, String what) throws Exception {
    List<Long> ids = writeFive();
    sql("UPDATE audit SET " + set + " WHERE id = " + ids.get(2));
    assertBroken(ids.get(2), 3, what + AuditStorage.WHY);
  }

  @Test
  void aHeadSeqStoredAsTextIsABreak() throws Exception {
    List<Long> ids = writeFive();
    sql("UPDATE audit_heads SET seq = seq || 'x' WHERE host = 'host-a'");
    assertBroken(ids.get(4), 5, "audit_heads.seq stored as text, not integer"
        + AuditStorage.WHY);
  }

  /**
   * SQLite took a NUL as it was before NUL was stored as U+2400; such a record's hash covers the
   * raw NUL, and it still verifies and reads back with it.
   */
  @Test
  void aNulStoredRawBeforeTheRuleStillVerifies() throws Exception {
    AuditStore audit = new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE));
    audit.record(List.of(command(T0, "run-1", "ls x /tmp")));
    ChainedRecord written = audit.timeline("run-1").get(0);
    ChainedRecord raw = new ChainedRecord(written.id(), written.host(), written.seq(),
        written.prevHash(), null, written.chained(),
        written.entry().toBuilder().ref("ls \u0000 /tmp").build());
    String hash = AuditHash.of(raw);
    sql("UPDATE audit SET ref = 'ls ' || char(0) || ' /tmp', hash = '" + hash + "' WHERE id = "
        + written.id());
    sql("UPDATE audit_heads SET hash = '" + hash + "' WHERE host = 'host-a'");

    assertThat(audit.timeline("run-1").get(0).entry().ref()).isEqualTo("ls \u0000 /tmp");
    assertThat(new AuditVerifier(db).verify().intact()).isTrue();
  }
}
