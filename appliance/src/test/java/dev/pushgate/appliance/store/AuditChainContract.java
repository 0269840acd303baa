package dev.pushgate.appliance.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.approvals.Answer;
import dev.pushgate.approvals.Question;
import dev.pushgate.gateway.AuditLog;
import dev.pushgate.gateway.RefusalCode;
import dev.pushgate.testkit.MutableClock;
import dev.pushgate.types.AuditEntry;
import dev.pushgate.types.Secret;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * The audit chain on every database: what is written verifies, and an edit, a deletion or a
 * reordering made straight in the database is named by {@link AuditVerifier}. A subclass says
 * where a fresh, empty store is.
 */
abstract class AuditChainContract extends StoreContract {

  @Test
  void aReaderWaitsForThePushOutcomesOwedWhenItAsked() throws Exception {
    // A push's outcome is written after git's answer: a reader that asks in between (the
    // Control Center, `pushgate audit` right after `git push` returned) is held until it is.
    AuditStore audit = new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE));
    List<AuditStore.Row> rows = audit.record(List.of(
        push(T0, "run-1", "refs/heads/main", "allowed", null, "pending")));
    AuditLog.Owed owed = audit.owe(rows.get(0));
    java.util.concurrent.CompletableFuture<List<AuditEntry>> listed =
        new java.util.concurrent.CompletableFuture<>();
    java.util.concurrent.CompletableFuture<List<ChainedRecord>> timeline =
        new java.util.concurrent.CompletableFuture<>();
    Thread lister = started(() -> {
      try {
        listed.complete(audit.list(new AuditStore.Query(null, "run-1", null, null, 0)));
      } catch (Exception | Error e) {
        listed.completeExceptionally(e);
      }
    });
    Thread timelineReader = started(() -> {
      try {
        timeline.complete(audit.timeline("run-1"));
      } catch (Exception | Error e) {
        timeline.completeExceptionally(e);
      }
    });
    for (Thread reader : List.of(lister, timelineReader)) {
      dev.pushgate.testkit.Wait.until(java.time.Duration.ofSeconds(10),
          reader.getName() + " has read or waits", () -> !reader.isAlive()
              || reader.getState() == Thread.State.TIMED_WAITING);
    }
    assertThat(listed).as("the listing waits for the owed outcome").isNotDone();
    assertThat(timeline).as("the timeline waits for the owed outcome").isNotDone();

    owed.settle(AuditEntry.Outcome.OK, 7);

    assertThat(listed.get(10, TimeUnit.SECONDS)).extracting(AuditEntry::outcome)
        .containsExactly("ok");
    assertThat(timeline.get(10, TimeUnit.SECONDS)).extracting(r -> r.entry().type().id())
        .containsExactly("push", "push-outcome");
    // Nothing owed: a reader does not wait.
    assertThat(audit.latest(AuditStore.Query.all())).extracting(AuditEntry::outcome)
        .containsExactly("ok");
  }

  @Test
  void anOutcomeThatCouldNotBeWrittenHoldsNoReaderBack() throws Exception {
    AuditStore audit = new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE));
    AuditLog.Owed owed = audit.owe(new AuditStore.Row(999_999));

    assertThatThrownBy(() -> owed.settle(AuditEntry.Outcome.OK, 1))
        .isInstanceOf(AuditLog.AuditException.class).hasMessageContaining("no audit record 999999");
    List<List<AuditEntry>> listed = new java.util.concurrent.CopyOnWriteArrayList<>();
    Thread reader = started(() -> {
      try {
        listed.add(audit.list(AuditStore.Query.all()));
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    });
    dev.pushgate.testkit.Wait.until(java.time.Duration.ofSeconds(10), "the reader has read or"
        + " waits", () -> !reader.isAlive() || reader.getState() == Thread.State.TIMED_WAITING);
    assertThat(listed).as("read at once, not held for the failed outcome")
        .containsExactly(List.of());
    reader.join();
  }

  private static Thread started(Runnable r) {
    Thread t = new Thread(r, "audit reader");
    t.start();
    return t;
  }

  @Test
  void aFreshDatabaseVerifiesClean() throws SQLException {
    AuditVerifier.Result r = new AuditVerifier(db).verify();
    assertThat(r.intact()).isTrue();
    assertThat(r.records()).isZero();
    assertThat(r.hosts()).isEmpty();
  }

  @Test
  void everyKindOfRecordChainsAndVerifies() throws Exception {
    AuditChain chain = new AuditChain(db, "host-a", AuditSink.NONE);
    AuditStore audit = new AuditStore(chain);
    Ledger ledger = new Ledger(db, SecretBox.openOrCreate(tmp.resolve("key")), "host-a", chain);
    ApprovalStore approvals = new ApprovalStore(chain, new MutableClock(T0.plusSeconds(5)));

    long token = ledger.recordCredential("run-1", "read", "acme/widget", Secret.of("ghs_secret1"),
        T0, T0.plusSeconds(3600));
    audit.record(List.of(command(T0.plusSeconds(1), "run-1", "git push origin main")));
    Question q = new Question("q-1", T0.plusSeconds(2), T0.plusSeconds(300), "push", "run-1",
        "ws-1", "acme/widget", "refs/heads/main", "update", "0".repeat(40), "1".repeat(40), null,
        "ask refs/heads/main", "main asks first", List.of());
    approvals.asked(q);
    approvals.ended(q, new Answer(Answer.Outcome.ALLOWED, "alice", "looks fine"));
    List<AuditStore.Row> rows = audit.record(List.of(
        push(T0.plusSeconds(6), "run-1", "refs/heads/main", "allowed", null, "pending")));
    audit.settle(rows.get(0), AuditEntry.Outcome.OK, 42);
    ledger.markRevoked(token, T0.plusSeconds(7));
    ledger.markRevoked(token, T0.plusSeconds(8)); // confirmed twice, audited once

    assertThat(audit.timeline("run-1")).extracting(r -> r.entry().type().id())
        .containsExactly("token-issued", "command", "approval-asked", "approval-answered",
            "push", "push-outcome", "token-revoked");
    List<ChainedRecord> all = audit.timeline("run-1");
    assertThat(all).extracting(ChainedRecord::seq).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
    assertThat(all.get(3).entry().actor()).isEqualTo("alice");
    assertThat(all.get(5).entry().settles()).isEqualTo(rows.get(0).id());
    assertThat(all.toString()).doesNotContain("ghs_secret1");
    // The listing still shows the decision with its outcome, as when settling updated it.
    assertThat(audit.list(new AuditStore.Query(null, "run-1", null, null, 0)))
        .extracting(AuditEntry::outcome).containsExactly("not run", "ok");

    AuditVerifier.Result r = new AuditVerifier(db).verify();
    assertThat(r.broken()).isNull();
    assertThat(r.records()).isEqualTo(7);
    assertThat(r.hosts()).containsExactly("host-a");
  }

  @Test
  void anEditedColumnIsNamed() throws Exception {
    List<Long> ids = writeFive();
    sql("UPDATE audit SET reason = 'nothing to see' WHERE id = " + ids.get(2));
    assertBroken(ids.get(2), 3, "hash mismatch");
  }

  @Test
  void anEditedChainColumnIsNamed() throws Exception {
    List<Long> ids = writeFive();
    sql("UPDATE audit SET at = at + 1 WHERE id = " + ids.get(1));
    assertBroken(ids.get(1), 2, "hash mismatch");
  }

  @Test
  void aDeletedRecordIsNamedByTheNextOne() throws Exception {
    List<Long> ids = writeFive();
    sql("DELETE FROM audit WHERE id = " + ids.get(2));
    assertBroken(ids.get(3), 4, "missing seq 3");
  }

  @Test
  void rowsWhoseContentsAreSwappedAreNamed() throws Exception {
    List<Long> ids = writeFive();
    // Every column but the id trades places: the chain columns travel with the contents.
    swapContents(ids.get(1), ids.get(2));
    AuditVerifier.Result r = new AuditVerifier(db).verify();
    assertThat(r.broken()).isNotNull();
    assertThat(r.broken().id()).isIn(ids.get(1), ids.get(2));
    assertThat(r.broken().what()).isEqualTo("hash mismatch");
  }

  @Test
  void reorderedSequenceNumbersAreNamed() throws Exception {
    List<Long> ids = writeFive();
    sql("UPDATE audit SET seq = -1 WHERE id = " + ids.get(1));
    sql("UPDATE audit SET seq = 2 WHERE id = " + ids.get(2));
    sql("UPDATE audit SET seq = 3 WHERE id = " + ids.get(1));
    assertBroken(ids.get(2), 2, "prev mismatch");
  }

  @Test
  void aCutOffEndIsNamedByTheHead() throws Exception {
    List<Long> ids = writeFive();
    sql("DELETE FROM audit WHERE id = " + ids.get(4));
    AuditVerifier.Result r = new AuditVerifier(db).verify();
    assertThat(r.broken()).isEqualTo(new AuditVerifier.Break(ids.get(3), "host-a", 4,
        "missing seq 5 at the end (the head says seq 5)"));
  }

  @Test
  void aCutOffEndOfSeveralRecordsIsNamedByTheHead() throws Exception {
    List<Long> ids = writeFive();
    sql("DELETE FROM audit WHERE id IN (" + ids.get(3) + ", " + ids.get(4) + ")");
    assertBroken(ids.get(2), 3, "missing seq 4..5 at the end (the head says seq 5)");
  }

  @Test
  void aCutOffEndWithItsHeadDeletedIsNamed() throws Exception {
    List<Long> ids = writeFive();
    // issue 29: the blind end, until the missing head was a break of its own
    sql("DELETE FROM audit WHERE id IN (" + ids.get(3) + ", " + ids.get(4) + ")");
    sql("DELETE FROM audit_heads WHERE host = 'host-a'");
    assertBroken(ids.get(2), 3, "no head (the host has records up to seq 3 but no row in"
        + " audit_heads, so records cut off the end would not show)");
  }

  @Test
  void aDeletedHeadIsNamed() throws Exception {
    List<Long> ids = writeFive();
    sql("DELETE FROM audit_heads WHERE host = 'host-a'");
    assertBroken(ids.get(4), 5, "no head (the host has records up to seq 5 but no row in"
        + " audit_heads, so records cut off the end would not show)");
  }

  @Test
  void aHeadBehindItsLastRecordIsNamed() throws Exception {
    List<Long> ids = writeFive();
    sql("UPDATE audit_heads SET seq = 3, hash = '" + hashOf(ids.get(2))
        + "' WHERE host = 'host-a'");
    assertBroken(ids.get(4), 5, "head behind (the head says seq 3, the records go on to seq 5)");
  }

  /**
   * A head moved back or deleted by hand while the appliance runs: its chain, which remembers the
   * end it wrote, still meets the head it finds, so the next record collides with one at its
   * number and the append fails, and the edit stays for the verifier, as when every append read
   * the head.
   */
  @Test
  void anAppendAfterItsHeadWasMovedBackIsRefusedAndTheHeadStaysForTheVerifier()
      throws Exception {
    AuditStore audit = new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE));
    List<Long> ids = appendFive(audit);
    sql("UPDATE audit_heads SET seq = 3, hash = '" + hashOf(ids.get(2))
        + "' WHERE host = 'host-a'");

    assertThatThrownBy(() -> audit.record(List.of(
        push(T0, "run-1", "refs/heads/after", "allowed", null, "ok"))))
        .isInstanceOf(AuditLog.AuditException.class);

    assertBroken(ids.get(4), 5, "head behind (the head says seq 3, the records go on to seq 5)");
  }

  @Test
  void anAppendAfterItsHeadWasDeletedIsRefusedAndTheLossStaysForTheVerifier() throws Exception {
    AuditStore audit = new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE));
    List<Long> ids = appendFive(audit);
    sql("DELETE FROM audit_heads WHERE host = 'host-a'");

    assertThatThrownBy(() -> audit.record(List.of(
        push(T0, "run-1", "refs/heads/after", "allowed", null, "ok"))))
        .isInstanceOf(AuditLog.AuditException.class);

    assertBroken(ids.get(4), 5, "no head (the host has records up to seq 5 but no row in"
        + " audit_heads, so records cut off the end would not show)");
  }

  /** Five records appended by {@code audit}'s own chain, which then remembers their end. */
  private static List<Long> appendFive(AuditStore audit) throws Exception {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(audit.record(List.of(push(T0, "run-1", "refs/heads/b" + i, "allowed", null, "ok")))
          .get(0).id());
    }
    return ids;
  }

  @Test
  void aHeadNamingAHashNoRecordHasIsNamed() throws Exception {
    List<Long> ids = writeFive();
    sql("UPDATE audit_heads SET hash = '" + "ab".repeat(32) + "' WHERE host = 'host-a'");
    assertBroken(ids.get(4), 5, "head names a hash no record has (abababababab…)");
  }

  @Test
  void aHeadNamingAnotherRecordsHashIsNamed() throws Exception {
    List<Long> ids = writeFive();
    sql("UPDATE audit_heads SET hash = '" + hashOf(ids.get(1)) + "' WHERE host = 'host-a'");
    assertBroken(ids.get(4), 5, "head mismatch (the head's hash is record " + ids.get(1)
        + "'s, not the last record's)");
  }

  @Test
  void aHeadWithoutRecordsMustBeAtTheStart() throws Exception {
    writeFive();
    sql("DELETE FROM audit");
    sql("UPDATE audit_heads SET seq = 0 WHERE host = 'host-a'");
    AuditVerifier.Break b = new AuditVerifier(db).verify().broken();
    assertThat(b).isNotNull();
    assertThat(b.id()).isNull();
    assertThat(b.host()).isEqualTo("host-a");
    assertThat(b.seq()).isZero();
    assertThat(b.what()).matches("head names a hash no record has \\([0-9a-f]{12}…\\)");
  }

  @Test
  void aCutOffEndWithItsHeadRewrittenIsTheKnownBlindSpot() throws Exception {
    List<Long> ids = writeFive();
    // What docs/audit.md says a chain alone cannot see: the last records and the head, both
    // rewritten by someone who can write the database. The sink's copy is the remedy.
    String hash = db.with(c -> {
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT hash FROM audit WHERE id = " + ids.get(3))) {
        rs.next();
        return rs.getString(1);
      }
    });
    sql("DELETE FROM audit WHERE id = " + ids.get(4));
    sql("UPDATE audit_heads SET seq = 4, hash = '" + hash + "' WHERE host = 'host-a'");
    assertThat(new AuditVerifier(db).verify().intact()).isTrue();
  }

  @Test
  void twoHostsChainsInterleavedInOneDatabaseVerify() throws Exception {
    AuditStore a = new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE));
    AuditStore b = new AuditStore(new AuditChain(open(), "host-b", AuditSink.NONE));
    for (int i = 0; i < 5; i++) {
      a.record(List.of(push(T0.plusSeconds(i), "run-a", "refs/heads/a" + i, "allowed", null,
          "pending")));
      b.settle(b.record(List.of(push(T0.plusSeconds(i), "run-b", "refs/heads/b" + i, "allowed",
          null, "pending"))).get(0), AuditEntry.Outcome.OK, i);
    }
    AuditVerifier.Result r = new AuditVerifier(db).verify();
    assertThat(r.broken()).isNull();
    assertThat(r.records()).isEqualTo(15);
    assertThat(r.hosts()).containsExactlyInAnyOrder("host-a", "host-b");
  }

  /**
   * Between two appends of one chain object, another connection appends to the same host's
   * chain and to another host's: the next record follows theirs, with the next id.
   */
  @Test
  void anAppendAfterAnotherConnectionsFollowsTheirRecords() throws Exception {
    AuditStore mine = new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE));
    AuditStore sameHost = new AuditStore(new AuditChain(open(), "host-a", AuditSink.NONE));
    AuditStore otherHost = new AuditStore(new AuditChain(open(), "host-b", AuditSink.NONE));
    mine.record(List.of(push(T0, "run-1", "refs/heads/1", "allowed", null, "ok")));
    mine.record(List.of(push(T0, "run-1", "refs/heads/2", "allowed", null, "ok")));
    sameHost.record(List.of(push(T0, "run-1", "refs/heads/3", "allowed", null, "ok")));
    mine.record(List.of(push(T0, "run-1", "refs/heads/4", "allowed", null, "ok")));
    otherHost.record(List.of(push(T0, "run-2", "refs/heads/x", "allowed", null, "ok")));
    mine.record(List.of(push(T0, "run-1", "refs/heads/5", "allowed", null, "ok")));

    List<ChainedRecord> chained = mine.timeline("run-1");
    assertThat(chained).extracting(rec -> rec.entry().ref()).containsExactly(
        "refs/heads/1", "refs/heads/2", "refs/heads/3", "refs/heads/4", "refs/heads/5");
    assertThat(chained).extracting(ChainedRecord::seq).containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(chained.get(4).id()).isGreaterThan(otherHost.timeline("run-2").get(0).id());
    AuditVerifier.Result r = new AuditVerifier(db).verify();
    assertThat(r.broken()).isNull();
    assertThat(r.records()).isEqualTo(6);
  }

  @Test
  void concurrentAppendsKeepTheChainIntact() throws Exception {
    AuditChain chain = new AuditChain(db, "host-a", AuditSink.NONE);
    AuditStore shared = new AuditStore(chain);
    // A second handle on the same host's chain, as a second chain object would be: the head row
    // serialises it with the first rather than letting it fork the chain.
    AuditStore second = new AuditStore(new AuditChain(open(), "host-a", AuditSink.NONE));
    concurrently(8, t -> {
      AuditStore audit = t == 7 ? second : shared;
      for (int i = 0; i < 20; i++) {
        audit.settle(audit.record(List.of(push(T0, "run-" + t, "refs/heads/b" + i, "allowed",
            null, "pending"))).get(0), AuditEntry.Outcome.OK, i);
      }
    });
    AuditVerifier.Result r = new AuditVerifier(db).verify();
    assertThat(r.broken()).isNull();
    assertThat(r.records()).isEqualTo(320);
  }

  @Test
  void verifyWhileAnotherConnectionAppendsSeesNoBreak() throws Exception {
    // The head and the records are read in one snapshot: an append between the two reads would
    // otherwise look like a head behind (or ahead of) its chain.
    AuditStore writer = new AuditStore(new AuditChain(open(), "host-a", AuditSink.NONE));
    Database reader = open();
    List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
    Thread appends = new Thread(() -> {
      try {
        for (int i = 0; i < 300; i++) {
          writer.record(List.of(push(T0, "run-1", "refs/heads/b" + i, "allowed", null, "ok")));
        }
      } catch (Throwable e) {
        errors.add(e);
      }
    });
    appends.start();
    List<AuditVerifier.Break> breaks = new ArrayList<>();
    int checks = 0;
    while (appends.isAlive() || checks == 0) {
      AuditVerifier.Result r = new AuditVerifier(reader).verify();
      if (!r.intact()) {
        breaks.add(r.broken());
      }
      checks++;
    }
    appends.join();
    assertThat(errors).isEmpty();
    assertThat(breaks).as("breaks seen in %d checks", checks).isEmpty();
  }

  /**
   * attack35c: PostgreSQL refuses NUL in text, so a hook command holding one was never audited
   * there and the call was refused "audit log unavailable". Both stores keep it as U+2400, and the
   * hash, the sink and every reader see that same text.
   */
  @Test
  void aNulInATextIsStoredAsItsSymbolAndVerifies() throws Exception {
    List<ChainedRecord> sunk = new ArrayList<>();
    AuditStore audit = new AuditStore(new AuditChain(db, "host-a", sunk::addAll));
    audit.record(List.of(command(T0, "run-1", "ls \u0000 /tmp")));

    ChainedRecord stored = audit.timeline("run-1").get(0);
    assertThat(stored.entry().ref()).isEqualTo("ls \u2400 /tmp");
    assertThat(sunk).singleElement().satisfies(r -> {
      assertThat(r.entry().ref()).isEqualTo("ls \u2400 /tmp");
      assertThat(r.hash()).isEqualTo(stored.hash());
    });
    assertThat(AuditHash.of(stored)).isEqualTo(stored.hash());
    assertThat(new AuditVerifier(db).verify().intact()).isTrue();
  }

  /**
   * A lone surrogate (a JSON body's {@code "\ud800"}, a name read as UTF-16) has no UTF-8 form:
   * each store and the hash must agree on what is kept, or the chain reads as tampered with.
   */
  @Test
  void aLoneSurrogateInATextIsStoredAsTheReplacementCharacterAndVerifies() throws Exception {
    List<ChainedRecord> sunk = new ArrayList<>();
    AuditStore audit = new AuditStore(new AuditChain(db, "host-a", sunk::addAll));
    audit.record(List.of(command(T0, "run-1", "ls \ud800 x\udc00 \ud83d\ude00")));

    ChainedRecord stored = audit.timeline("run-1").get(0);
    assertThat(stored.entry().ref()).isEqualTo("ls \ufffd x\ufffd \ud83d\ude00");
    assertThat(sunk).singleElement().satisfies(r -> {
      assertThat(r.entry().ref()).isEqualTo(stored.entry().ref());
      assertThat(r.hash()).isEqualTo(stored.hash());
    });
    assertThat(AuditHash.of(stored)).isEqualTo(stored.hash());
    assertThat(new AuditVerifier(db).verify().intact()).isTrue();
  }

  @Test
  void twoRecordsAtOneSequenceNumberAreRefused() throws Exception {
    writeFive();
    // A writer that got the head wrong (a second process with the same host id) is refused.
    assertThatThrownBy(() -> sql("INSERT INTO audit(record_type, at, run_id, repository,"
        + " decision, host, seq, prev_hash, hash, chained) VALUES ('push', 0, 'run-x', 'a/b',"
        + " 'allowed', 'host-a', 3, 'x', 'y', 'write')")).isInstanceOf(SQLException.class);
  }

  @Test
  void rowsWrittenBeforeTheChainAreChainedAtUpgrade() throws Exception {
    String older = freshStore();
    Database.Target target = Database.parse(older);
    Flyway.configure(Database.class.getClassLoader())
        .dataSource(target.jdbcUrl(), target.user(), target.password())
        .locations("classpath:db/migration/" + target.dialect().id())
        .target("2").load().migrate();
    try (Connection c = DriverManager.getConnection(target.jdbcUrl(), target.user(),
        target.password()); Statement s = c.createStatement()) {
      for (int i = 0; i < 3; i++) {
        s.executeUpdate("INSERT INTO audit(at, run_id, workspace_id, repository, ref, kind,"
            + " decision, outcome, duration_ms) VALUES (" + (T0.toEpochMilli() + i)
            + ", 'run-old', 'ws', 'acme/widget', 'refs/heads/x" + i + "', '"
            + (i == 1 ? "command" : "update") + "', 'allowed', '" + (i == 2 ? "pending" : "ok")
            + "', 0)");
      }
    }
    url = older;
    Database upgraded = open();
    AuditStore audit = new AuditStore(new AuditChain(upgraded, "host-a", AuditSink.NONE));
    List<ChainedRecord> old = audit.timeline("run-old");
    assertThat(old).extracting(ChainedRecord::host).containsOnly("(before-chain)");
    assertThat(old).extracting(ChainedRecord::chained).containsOnly("upgrade");
    assertThat(old).extracting(r -> r.entry().type().id())
        .containsExactly("push", "command", "push");
    // A decision pending at the upgrade is settled by a record of the new chain.
    audit.settle(new AuditStore.Row(old.get(2).id()), AuditEntry.Outcome.OK, 9);
    assertThat(audit.list(new AuditStore.Query(null, "run-old", null, null, 0)))
        .extracting(AuditEntry::outcome).containsExactly("ok", "ok", "ok");
    AuditVerifier.Result r = new AuditVerifier(upgraded).verify();
    assertThat(r.broken()).isNull();
    assertThat(r.hosts()).containsExactlyInAnyOrder("(before-chain)", "host-a");
    assertThat(r.records()).isEqualTo(4);
  }

  /**
   * Before API calls had a record type of their own they were written as push records (kind
   * {@code api:<action>}, the call in {@code ref}, what it acted on in {@code rule}). A database
   * holding such records keeps them as written: the chain verifies across them and the records
   * written since, and every reader shows both as API calls with the same columns.
   */
  @Test
  void apiCallsWrittenAsPushesStillVerifyAndReadAsApiCalls() throws Exception {
    AuditStore audit = new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE));
    audit.record(List.of(AuditEntry.builder(AuditEntry.Type.PUSH).at(T0).runId("run-api")
        .workspaceId("ws-1").repository("acme/widget")
        .ref("POST api.github.com/repos/acme/widget/pulls").kind("api:open-pull-request")
        .decision(AuditEntry.Decision.DENIED).rule("#new").code("RULE_DENIED")
        .reason("no pull requests in chat mode").outcome(AuditEntry.Outcome.NOT_FORWARDED)
        .durationMillis(3L).build()));
    new dev.pushgate.appliance.api.AuditedApiCalls(audit).record(List.of(
        new dev.pushgate.gateway.api.ApiRecord(T0.plusSeconds(1), "run-api", "ws-1", "POST",
            "api.github.com", "/repos/acme/widget/pulls", "open-pull-request", "acme/widget",
            "#new", "denied", "no pull requests in chat mode", 0, 3)));

    assertThat(audit.timeline("run-api")).extracting(r -> r.entry().type().id())
        .containsExactly("push", "api-call");
    assertThat(audit.timeline("run-api")).extracting(r -> r.entry().asRead())
        .extracting(e -> e.type().id(), AuditEntry::kind, AuditEntry::ref, AuditEntry::subject,
            AuditEntry::rule)
        .containsOnly(org.assertj.core.groups.Tuple.tuple("api-call", "open-pull-request",
            "#new", "POST api.github.com/repos/acme/widget/pulls", null));
    List<AuditEntry> listed = audit.list(new AuditStore.Query(true, "run-api", null, null, 0));
    assertThat(listed).hasSize(2);
    assertThat(listed.get(0)).usingRecursiveComparison().ignoringFields("at")
        .isEqualTo(listed.get(1));
    assertThat(listed.get(1).code()).isEqualTo("RULE_DENIED");
    assertThat(listed.get(1).outcome()).isEqualTo("not forwarded");
    AuditVerifier.Result r = new AuditVerifier(open()).verify();
    assertThat(r.broken()).isNull();
    assertThat(r.records()).isEqualTo(2);
  }

  @Test
  void aRowOfAHostNotYetUpgradedIsListedAndReportedUnchained() throws Exception {
    List<Long> ids = writeFive();
    sql("INSERT INTO audit(at, run_id, repository, ref, kind, decision, outcome, duration_ms)"
        + " VALUES (0, 'run-old', 'acme/widget', 'refs/heads/old', 'update', 'allowed', 'ok', 0)");
    AuditStore audit = new AuditStore(db);
    assertThat(audit.list(new AuditStore.Query(null, "run-old", null, null, 0)))
        .extracting(AuditEntry::ref).containsExactly("refs/heads/old");
    AuditVerifier.Result r = new AuditVerifier(db).verify();
    assertThat(r.broken().id()).isGreaterThan(ids.get(4));
    assertThat(r.broken().what()).isEqualTo("not chained (no host or no hash)");
  }

  @Test
  void aDecisionWhoseSinkFailsIsRefusedButKept() throws Exception {
    AuditSink broken = records -> {
      throw new java.io.IOException("disk full");
    };
    AuditStore audit = new AuditStore(new AuditChain(db, "host-a", broken));
    assertThatThrownBy(() -> audit.record(List.of(push(T0, "run-1", "refs/heads/a", "allowed",
        null, "pending")))).isInstanceOf(AuditLog.AuditException.class)
        .hasMessageContaining("disk full");
    // The refused decision is settled as not sent, in the database though the sink fails.
    // What already happened is not refused: an outcome is kept, the failure logged.
    audit.settle(new AuditStore.Row(audit.timeline("run-1").get(0).id()),
        AuditEntry.Outcome.OK, 1);
    assertThat(audit.timeline("run-1")).extracting(r -> r.entry().outcome()).containsExactly(
        "pending", "not forwarded: the audit log is unavailable", "ok");
    assertThat(new AuditVerifier(db).verify().intact()).isTrue();
  }

  /**
   * Group commit: appends that arrive while another is being written are written together, in one
   * transaction and one sink write, and none of them returns before that write has happened.
   */
  @Test
  void appendsWaitingMeanwhileAreCommittedTogetherAndReturnOnlyAfterIt() throws Exception {
    GatedSink sink = new GatedSink();
    AuditStore audit = new AuditStore(new AuditChain(db, "host-a", sink));
    List<Thread> first = startRecording(audit, 1);
    assertThat(sink.entered.await(30, TimeUnit.SECONDS)).isTrue();
    List<Thread> waiting = startRecording(audit, 5);
    awaitParked(waiting);
    assertThat(audit.timeline("run-1")).as("nothing of theirs is written while they wait")
        .hasSize(1);
    sink.release.countDown();
    joinAll(first);
    joinAll(waiting);
    assertThat(sink.batches).containsExactly(1, 5);
    assertThat(audit.timeline("run-1")).hasSize(6);
    assertThat(new AuditVerifier(db).verify().intact()).isTrue();
  }

  @Test
  void anAppendThatFailsInAGroupFailsAloneAndTheOthersAreCommitted() throws Exception {
    GatedSink sink = new GatedSink();
    AuditStore audit = new AuditStore(new AuditChain(db, "host-a", sink));
    List<Thread> first = startRecording(audit, 1);
    assertThat(sink.entered.await(30, TimeUnit.SECONDS)).isTrue();
    List<Throwable> failed = Collections.synchronizedList(new ArrayList<>());
    Thread settleNothing = new Thread(() -> {
      try {
        audit.settle(new AuditStore.Row(999_999), AuditEntry.Outcome.OK, 1);
      } catch (Throwable e) {
        failed.add(e);
      }
    });
    settleNothing.start();
    List<Thread> waiting = new ArrayList<>(List.of(settleNothing));
    waiting.addAll(startRecording(audit, 2));
    awaitParked(waiting);
    sink.release.countDown();
    joinAll(first);
    joinAll(waiting);
    assertThat(failed).singleElement().satisfies(e -> assertThat(e)
        .isInstanceOf(AuditLog.AuditException.class).hasMessageContaining("no audit record"));
    assertThat(audit.timeline("run-1")).hasSize(3);
    assertThat(new AuditVerifier(db).verify().intact()).isTrue();
  }

  /**
   * Only an outcome settles a record, so only outcomes are in the {@code settles} index: every
   * other append, an API call's before it goes upstream among them, writes one index page fewer.
   * The listing's "settled by" lookup still finds them.
   */
  @Test
  void onlyOutcomesAreIndexedBySettlesAndTheListingStillFindsThem() throws Exception {
    List<Long> ids = writeFive();
    AuditStore audit = new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE));
    audit.settle(new AuditStore.Row(ids.get(0)), AuditEntry.Outcome.OK, 7);

    assertThat(settlesIndexDefinition()).containsIgnoringCase("WHERE")
        .containsIgnoringCase("settles IS NOT NULL");
    assertThat(audit.list(new AuditStore.Query(null, "run-1", null, null, 0)))
        .extracting(AuditEntry::ref, AuditEntry::outcome)
        .contains(org.assertj.core.groups.Tuple.tuple("refs/heads/b0", "ok"));
  }

  /** How the database defines the index {@code audit_settles}. */
  abstract String settlesIndexDefinition() throws SQLException;

  /** A sink whose first write waits to be released; the size of every write. */
  private static final class GatedSink implements AuditSink {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final List<Integer> batches = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void write(List<ChainedRecord> records) throws java.io.IOException {
      batches.add(records.size());
      entered.countDown();
      try {
        if (!release.await(30, TimeUnit.SECONDS)) {
          throw new java.io.IOException("never released");
        }
      } catch (InterruptedException e) {
        throw new java.io.IOException(e);
      }
    }
  }

  /** {@code n} threads, each recording one push decision of run-1; started. */
  private static List<Thread> startRecording(AuditStore audit, int n) {
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String ref = "refs/heads/t" + i + "-" + System.nanoTime();
      threads.add(new Thread(() -> {
        try {
          audit.record(List.of(push(T0, "run-1", ref, "allowed", null, "pending")));
        } catch (AuditLog.AuditException e) {
          throw new IllegalStateException(e);
        }
      }));
    }
    threads.forEach(Thread::start);
    return threads;
  }

  /** Waits until every thread is parked (on the chain's lock), with a deadline. */
  private static void awaitParked(List<Thread> threads) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!threads.stream().allMatch(t -> t.getState() == Thread.State.WAITING)) {
      assertThat(System.nanoTime()).as("threads parked in time").isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  private static void joinAll(List<Thread> threads) throws InterruptedException {
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(60));
      assertThat(t.isAlive()).isFalse();
    }
  }

  /** Five push decisions of host-a; their ids. */
  List<Long> writeFive() throws Exception {
    AuditStore audit = new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE));
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(audit.record(List.of(push(T0.plusSeconds(i), "run-1", "refs/heads/b" + i,
          i == 2 ? "denied" : "allowed", i == 2 ? RefusalCode.RULE_DENIED : null,
          i == 2 ? "not forwarded" : "ok"))).get(0).id());
    }
    assertThat(new AuditVerifier(db).verify().intact()).isTrue();
    return ids;
  }

  String hashOf(long id) throws SQLException {
    return db.with(c -> {
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT hash FROM audit WHERE id = " + id)) {
        rs.next();
        return rs.getString(1);
      }
    });
  }

  void assertBroken(long id, long seq, String what) throws SQLException {
    AuditVerifier.Result r = new AuditVerifier(db).verify();
    assertThat(r.broken()).isEqualTo(new AuditVerifier.Break(id, "host-a", seq, what));
  }

  void sql(String statement) throws SQLException {
    db.with(c -> {
      try (Statement s = c.createStatement()) {
        return s.executeUpdate(statement);
      }
    });
  }

  private void swapContents(long a, long b) throws SQLException {
    String cols = AuditRows.COLUMNS.substring("id, ".length());
    db.inTransaction(c -> {
      List<Object[]> values = new ArrayList<>();
      for (long id : new long[] {a, b}) {
        try (PreparedStatement ps =
            c.prepareStatement("SELECT " + cols + " FROM audit WHERE id = ?")) {
          ps.setLong(1, id);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            Object[] row = new Object[rs.getMetaData().getColumnCount()];
            for (int i = 0; i < row.length; i++) {
              row[i] = rs.getObject(i + 1);
            }
            values.add(row);
          }
        }
      }
      String[] names = cols.split(", ");
      // Park the first row's seq first: (host, seq) is unique.
      try (Statement s = c.createStatement()) {
        s.executeUpdate("UPDATE audit SET seq = -seq WHERE id IN (" + a + ", " + b + ")");
      }
      for (int k = 0; k < 2; k++) {
        StringBuilder set = new StringBuilder();
        for (String n : names) {
          set.append(set.length() == 0 ? "" : ", ").append(n).append(" = ?");
        }
        try (PreparedStatement ps = c.prepareStatement(
            "UPDATE audit SET " + set + " WHERE id = ?")) {
          Object[] row = values.get(1 - k);
          for (int i = 0; i < row.length; i++) {
            ps.setObject(i + 1, row[i]);
          }
          ps.setLong(row.length + 1, k == 0 ? a : b);
          ps.executeUpdate();
        }
      }
      return null;
    });
  }

  static AuditEntry command(Instant at, String runId, String line) {
    return AuditEntry.builder(AuditEntry.Type.COMMAND).at(at).runId(runId).workspaceId("ws-1")
        .repository("acme/widget").ref(line).kind("command").decision(AuditEntry.Decision.DENIED)
        .rule("command policy").code("RULE_DENIED").reason("no pushes")
        .outcome(AuditEntry.Outcome.NOT_RUN).durationMillis(0L).build();
  }
}
