package dev.pushgate.appliance.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.gateway.AuditLog;
import dev.pushgate.testkit.Wait;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
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

  @Override
  String settlesIndexDefinition() throws SQLException {
    return db.with(c -> {
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
          "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'audit_settles'")) {
        return rs.next() ? rs.getString(1) : null;
      }
    });
  }

  /**
   * A chain remembers the end its last append left (on SQLite it does not read it again): an
   * append whose transaction was rolled back by the work around it (on SQLite's one connection a
   * transaction begun around an append holds it) must not leave the next record chained to one
   * that is not there, even when another host's record has taken the id the rolled-back one had.
   */
  @Test
  void anAppendRolledBackWithTheTransactionAroundItLeavesTheNextChainedToTheRealEnd()
      throws Exception {
    AuditStore audit = new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE));
    AuditStore otherHost = new AuditStore(new AuditChain(open(), "host-b", AuditSink.NONE));
    audit.record(List.of(push(T0, "run-1", "refs/heads/a", "allowed", null, "ok")));
    audit.record(List.of(push(T0, "run-1", "refs/heads/b", "allowed", null, "ok")));
    assertThatThrownBy(() -> db.inWriteTransaction(c -> {
      try {
        audit.record(List.of(push(T0, "run-1", "refs/heads/rolled-back", "allowed", null, "ok")));
      } catch (AuditLog.AuditException e) {
        throw new AssertionError(e);
      }
      throw new SQLException("the work around the append failed");
    })).hasMessageContaining("the work around the append failed");
    otherHost.record(List.of(push(T0, "run-2", "refs/heads/x", "allowed", null, "ok")));

    audit.record(List.of(push(T0, "run-1", "refs/heads/c", "allowed", null, "ok")));
    audit.record(List.of(push(T0, "run-1", "refs/heads/d", "allowed", null, "ok")));

    assertThat(audit.timeline("run-1")).extracting(r -> r.entry().ref())
        .containsExactly("refs/heads/a", "refs/heads/b", "refs/heads/c", "refs/heads/d");
    AuditVerifier.Result r = new AuditVerifier(db).verify();
    assertThat(r.broken()).isNull();
    assertThat(r.records()).isEqualTo(5);
  }

  /**
   * {@code AUTOINCREMENT} gives one past the larger of the table's counter and its largest id: an
   * append whose chain remembers its end must not take the counter alone for the next id when
   * another writer's row stands above it (attack of 2026-12-07: the append failed on the id).
   */
  @Test
  void anAppendFollowsTheLargestIdWhenTheCounterIsBehindIt() throws Exception {
    AuditStore audit = new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE));
    audit.record(List.of(push(T0, "run-1", "refs/heads/a", "allowed", null, "ok")));
    long last = audit.record(List.of(push(T0, "run-1", "refs/heads/b", "allowed", null, "ok")))
        .get(0).id();
    AuditStore otherHost = new AuditStore(new AuditChain(open(), "host-b", AuditSink.NONE));
    long theirs = otherHost.record(List.of(push(T0, "run-2", "refs/heads/x", "allowed", null,
        "ok"))).get(0).id();
    sql("UPDATE sqlite_sequence SET seq = " + last + " WHERE name = 'audit'");

    long next = audit.record(List.of(push(T0, "run-1", "refs/heads/c", "allowed", null, "ok")))
        .get(0).id();

    assertThat(next).isEqualTo(theirs + 1);
    AuditVerifier.Result r = new AuditVerifier(db).verify();
    assertThat(r.broken()).isNull();
    assertThat(r.records()).isEqualTo(4);
  }

  /**
   * A trigger of the database that drops the record's insert (or the head's move) fails the
   * append, however the chain inserts it: what the record says must not go ahead unrecorded.
   */
  @ParameterizedTest
  @CsvSource({"BEFORE INSERT ON audit", "BEFORE UPDATE ON audit_heads"})
  void anAppendWhoseWriteADatabaseTriggerDropsFails(String when) throws Exception {
    AuditStore audit = new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE));
    audit.record(List.of(push(T0, "run-1", "refs/heads/a", "allowed", null, "ok")));
    audit.record(List.of(push(T0, "run-1", "refs/heads/b", "allowed", null, "ok")));
    sql("CREATE TRIGGER dropped " + when + " BEGIN SELECT RAISE(IGNORE); END");

    assertThatThrownBy(() -> audit.record(List.of(
        push(T0, "run-1", "refs/heads/c", "allowed", null, "ok"))))
        .isInstanceOf(AuditLog.AuditException.class)
        .hasMessageContaining("a trigger or rule of the database dropped the write");

    sql("DROP TRIGGER dropped");
    assertThat(audit.timeline("run-1")).extracting(r -> r.entry().ref())
        .containsExactly("refs/heads/a", "refs/heads/b");
    assertThat(new AuditVerifier(db).verify().intact()).isTrue();
  }

  /** The listing's "settled by" lookup is an equality, which the partial index answers. */
  @Test
  void theSettledByLookupUsesTheSettlesIndex() throws Exception {
    String plan = db.with(c -> {
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("EXPLAIN QUERY PLAN"
          + " SELECT MAX(o.id) FROM audit o WHERE o.settles = 12")) {
        StringBuilder all = new StringBuilder();
        while (rs.next()) {
          all.append(rs.getString("detail")).append('\n');
        }
        return all.toString();
      }
    });
    assertThat(plan).contains("INDEX audit_settles");
  }

  /**
   * No commit copies the write-ahead log into the database file while the checkpointer keeps up
   * (SQLite's default does, in the commit that takes the log past 1,000 pages: milliseconds on a
   * decision's path, every couple of hundred appends; here only past twice the checkpointer's
   * bound, a backstop); the database's checkpointer does soon after, on its own thread.
   */
  @Test
  void commitsLeaveTheLogToTheCheckpointerWhichCopiesItSoon() throws Exception {
    long autocheckpoint = db.with(c -> {
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("PRAGMA wal_autocheckpoint")) {
        rs.next();
        return rs.getLong(1);
      }
    });
    assertThat(autocheckpoint).as("pages after which a commit checkpoints")
        .isEqualTo(2 * WalCheckpointer.BOUND_FRAMES);

    Path file = Path.of(url);
    long before = Files.size(file);
    AuditStore audit = new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE));
    for (int i = 0; i < 40; i++) { // some 200 pages of the log: far from 1,000
      audit.record(List.of(command(T0.plusSeconds(i), "run-1", "x".repeat(3000) + i)));
    }
    Wait.until(Duration.ofSeconds(30), "the log copied into " + file,
        () -> Files.size(file) > before);
  }

  /**
   * SQLite starts the log over only after a checkpoint copied all of it, which one racing
   * commits never does: under appends that never pause, the checkpointer finishes the copy
   * holding the writers back, and the log stays bounded.
   */
  @Test
  void theLogStaysBoundedUnderAppendsThatNeverPause() throws Exception {
    Path wal = Path.of(url + "-wal");
    AuditStore audit = new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE));
    long pageBytes = 4096 + 24; // a page and its frame header
    long written = 0;
    long largest = 0;
    for (int i = 0; written < 8 * WalCheckpointer.BOUND_FRAMES * pageBytes; i++) {
      long walBefore = Files.exists(wal) ? Files.size(wal) : 0;
      audit.record(List.of(command(T0.plusMillis(i), "run-1", "x".repeat(5000) + i)));
      long walAfter = Files.size(wal);
      written += Math.max(walAfter - walBefore, 2 * pageBytes); // at least the row's two pages
      largest = Math.max(largest, walAfter);
    }
    assertThat(largest).as("the log's largest size, of %d bytes written to it", written)
        .isLessThan(4 * WalCheckpointer.BOUND_FRAMES * pageBytes);
  }

  /**
   * Starting the log over syncs its new header (an {@code fsync}, a millisecond or more): the
   * checkpointer does it once a pass has copied the whole log, so that the next append, a
   * decision's, does not (issue 33: about one API call in a hundred waited for it). SQLite counts
   * every start-over in the log's header (its checkpoint sequence number).
   */
  @Test
  void theCheckpointerStartsTheLogOverSoNoAppendSyncsItsHeader() throws Exception {
    Path wal = Path.of(url + "-wal");
    AuditStore audit = new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE));
    audit.record(List.of(command(T0, "run-1", "first")));
    int afterFirst = logStartOvers(wal);
    Wait.until(Duration.ofSeconds(30), "the log started over with no append after the first",
        () -> logStartOvers(wal) != afterFirst);
    int startedOver = logStartOvers(wal);
    // Read within the checkpointer's pause after the append (200 ms), before its next pass.
    audit.record(List.of(command(T0.plusSeconds(1), "run-1", "second")));
    assertThat(logStartOvers(wal)).as("start-overs of the log after the second append")
        .isEqualTo(startedOver);
  }

  /** The write-ahead log header's checkpoint sequence number: one more at every start-over. */
  private static int logStartOvers(Path wal) throws java.io.IOException {
    byte[] head = new byte[16];
    try (java.io.InputStream in = Files.newInputStream(wal)) {
      if (in.readNBytes(head, 0, head.length) < head.length) {
        return -1;
      }
    }
    return java.nio.ByteBuffer.wrap(head, 12, 4).getInt();
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
