package dev.pushgate.appliance.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

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

  @Test
  void aReasonStoredAsABlobIsABreak() throws Exception {
    List<Long> ids = writeFive();
    sql("UPDATE audit SET reason = CAST(reason AS BLOB) WHERE id = " + ids.get(2));
    assertBroken(ids.get(2), 3, "reason stored as blob, not text"
        + AuditStorage.WHY);
  }

  @Test
  void aFractionalSeqIsABreak() throws Exception {
    List<Long> ids = writeFive();
    sql("UPDATE audit SET seq = 3.5 WHERE id = " + ids.get(2));
    assertBroken(ids.get(2), 3, "seq stored as real, not integer" + AuditStorage.WHY);
  }

  @Test
  void aSeqStoredAsTextIsABreak() throws Exception {
    List<Long> ids = writeFive();
    // Not a trailing space: the column's integer affinity would turn "3 " back into 3.
    sql("UPDATE audit SET seq = seq || 'x' WHERE id = " + ids.get(2));
    assertBroken(ids.get(2), 3, "seq stored as text, not integer" + AuditStorage.WHY);
  }

  @Test
  void aTimeStoredAsTextIsABreak() throws Exception {
    List<Long> ids = writeFive();
    sql("UPDATE audit SET at = at || 'x' WHERE id = " + ids.get(1));
    assertBroken(ids.get(1), 2, "at stored as text, not integer" + AuditStorage.WHY);
  }

  @Test
  void aHeadSeqStoredAsTextIsABreak() throws Exception {
    List<Long> ids = writeFive();
    sql("UPDATE audit_heads SET seq = seq || 'x' WHERE host = 'host-a'");
    assertBroken(ids.get(4), 5, "audit_heads.seq stored as text, not integer"
        + AuditStorage.WHY);
  }
}
