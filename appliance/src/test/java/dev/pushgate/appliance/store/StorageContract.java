package dev.pushgate.appliance.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.approvals.Answer;
import dev.pushgate.approvals.Question;
import dev.pushgate.forge.ForgeTokens;
import dev.pushgate.gateway.RefusalCode;
import dev.pushgate.testkit.MutableClock;
import dev.pushgate.types.AuditEntry;
import dev.pushgate.types.Secret;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The storage tests every database runs: the ledger, the audit log, approvals and forge tokens,
 * and two appliances (two {@link Database}s) sharing one store. A subclass says where a fresh,
 * empty store is.
 */
abstract class StorageContract extends StoreContract {
  SecretBox box;

  @BeforeEach
  void openBox() throws Exception {
    box = SecretBox.openOrCreate(tmp.resolve("ledger.key"));
  }

  @Test
  void runRoundTripsEveryColumn() throws SQLException {
    Ledger ledger = new Ledger(db, box, "host-a");
    Ledger.RunRow full = new Ledger.RunRow("run-1", "ws-1", "session-1", "agent-1", "chat",
        "acme/widget", 4_294_967_296L, "[\"acme/gadget\"]", "{\"push\":[]}", "hash-1",
        "/data/runs/run-1/gitconfig", null, T0, T0.plus(Duration.ofHours(8)), null, null);
    Ledger.RunRow sparse = new Ledger.RunRow("run-2", "ws-2", null, null, "agent", "acme/other",
        null, "[]", "{}", "hash-2", null, null, T0, T0.plusSeconds(60), null, null);
    ledger.insertRun(full);
    ledger.insertRun(sparse);

    assertThat(ledger.run("run-1")).contains(full);
    assertThat(ledger.run("run-2")).contains(sparse);
    assertThat(ledger.run("run-3")).isEmpty();

    ledger.setBackend("run-1", "bwrap");
    assertThat(ledger.run("run-1").orElseThrow().backend()).isEqualTo("bwrap");
  }

  @Test
  void endingARunKeepsTheFirstEndAndDropsItFromUnendedRuns() throws SQLException {
    Ledger ledger = new Ledger(db, box, "host-a");
    ledger.insertRun(run("run-1", "hash-1"));
    ledger.insertRun(run("run-2", "hash-2"));

    ledger.endRun("run-1", "teardown", T0.plusSeconds(5));
    ledger.endRun("run-1", "expired", T0.plusSeconds(9));

    Ledger.RunRow ended = ledger.run("run-1").orElseThrow();
    assertThat(ended.endedAt()).isEqualTo(T0.plusSeconds(5));
    assertThat(ended.endReason()).isEqualTo("teardown");
    assertThat(ended.live(T0.plusSeconds(6))).isFalse();
    assertThat(ledger.unendedRuns()).extracting(Ledger.RunRow::id).containsExactly("run-2");
  }

  @Test
  void credentialTokensAreSealedAtRestAndOpenedOnRead() throws SQLException {
    Ledger ledger = new Ledger(db, box, "host-a");
    ledger.insertRun(run("run-1", "hash-1"));
    long read = ledger.recordCredential("run-1", "read", "acme/widget",
        Secret.of("ghs_readTokenOfRunOne000000000000000000"), T0, T0.plusSeconds(3600));
    long write = ledger.recordCredential("run-1", "write", "acme/widget",
        Secret.of("ghs_writeTokenOfRunOne00000000000000000"), T0, null);

    assertThat(write).isGreaterThan(read);
    List<Ledger.LiveCredential> live = ledger.liveCredentials("run-1");
    assertThat(live).extracting(Ledger.LiveCredential::id).containsExactly(read, write);
    assertThat(live.get(0).token().reveal()).isEqualTo("ghs_readTokenOfRunOne000000000000000000");
    assertThat(live.get(0).expiresAt()).isEqualTo(T0.plusSeconds(3600));
    assertThat(live.get(1).kind()).isEqualTo("write");
    assertThat(live.get(1).expiresAt()).isNull();

    byte[] stored = db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT token FROM credentials WHERE id = ?")) {
        ps.setLong(1, read);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getBytes(1);
        }
      }
    });
    assertThat(new String(stored, StandardCharsets.ISO_8859_1)).doesNotContain("ghs_");
  }

  @Test
  void aCredentialThatCannotBeUnsealedIsLeftOut() throws Exception {
    Ledger ledger = new Ledger(db, box, "host-a");
    ledger.insertRun(run("run-1", "hash-1"));
    ledger.recordCredential("run-1", "read", "acme/widget", Secret.of("ghs_one"), T0, null);

    SecretBox otherKey = SecretBox.openOrCreate(tmp.resolve("other.key"));
    assertThat(new Ledger(db, otherKey, "host-a").liveCredentials("run-1")).isEmpty();
  }

  @Test
  void revocationBookkeepingCountsAttemptsAndKeepsTheLastError() throws SQLException {
    Ledger ledger = new Ledger(db, box, "host-a");
    ledger.insertRun(run("run-1", "hash-1"));
    long id = ledger.recordCredential("run-1", "read", "acme/widget", Secret.of("ghs_one"), T0,
        null);

    ledger.markRevokeFailed(id, "upstream answered 502");
    ledger.markRevokeFailed(id, "upstream answered 503");
    assertThat(ledger.liveCredentials()).extracting(Ledger.LiveCredential::id).containsExactly(id);
    assertThat(revocationColumns(id)).containsExactly(null, 2L, "upstream answered 503");

    ledger.markRevoked(id, T0.plusSeconds(30));
    assertThat(ledger.liveCredentials()).isEmpty();
    assertThat(ledger.liveCredentials("run-1")).isEmpty();
    assertThat(revocationColumns(id)).containsExactly(T0.plusSeconds(30).toEpochMilli(), 3L, null);
  }

  @Test
  void liveCredentialsSpanEveryRunOfTheHost() throws SQLException {
    Ledger ledger = new Ledger(db, box, "host-a");
    ledger.insertRun(run("run-1", "hash-1"));
    ledger.insertRun(run("run-2", "hash-2"));
    long one = ledger.recordCredential("run-1", "read", "acme/widget", Secret.of("ghs_1"), T0,
        null);
    long two = ledger.recordCredential("run-2", "read", "acme/widget", Secret.of("ghs_2"), T0,
        null);
    long three = ledger.recordCredential("run-2", "write", "acme/widget", Secret.of("ghs_3"), T0,
        null);
    ledger.markRevoked(two, T0);

    assertThat(ledger.liveCredentials()).extracting(Ledger.LiveCredential::id)
        .containsExactly(one, three);
    assertThat(ledger.liveCredentials("run-2")).extracting(Ledger.LiveCredential::id)
        .containsExactly(three);
  }

  @Test
  void auditRecordsSettlesAndListsInOrder() throws Exception {
    AuditStore audit = new AuditStore(db);
    List<AuditStore.Row> ids = audit.record(List.of(
        push(T0, "run-1", "acme/widget", "refs/heads/feature", "allowed", null, "pending"),
        push(T0, "run-1", "acme/widget", "refs/heads/main", "denied", RefusalCode.RULE_DENIED,
            "not forwarded")));
    assertThat(ids).hasSize(2);
    assertThat(ids.get(1).id()).isGreaterThan(ids.get(0).id());

    audit.settle(ids.get(0), AuditEntry.Outcome.OK, 420);

    List<AuditEntry> all = audit.list(AuditStore.Query.all());
    assertThat(all).hasSize(2);
    AuditEntry first = all.get(0);
    assertThat(first.at()).isEqualTo(T0);
    assertThat(first.workspaceId()).isEqualTo("ws-1");
    assertThat(first.oldId()).isEqualTo("0".repeat(40));
    assertThat(first.newId()).isEqualTo("1".repeat(40));
    assertThat(first.kind()).isEqualTo("update");
    assertThat(first.rule()).isEqualTo("push refs/heads/*");
    assertThat(first.code()).isNull();
    assertThat(first.outcome()).isEqualTo("ok");
    assertThat(first.durationMillis()).isEqualTo(420);
    assertThat(all.get(1).code()).isEqualTo(RefusalCode.RULE_DENIED.name());
    assertThat(all.get(1).reason()).isEqualTo("because refs/heads/main");
  }

  @Test
  void auditListAppliesEveryFilter() throws Exception {
    AuditStore audit = new AuditStore(db);
    audit.record(List.of(
        push(T0, "run-1", "acme/widget", "refs/heads/a", "allowed", null, "ok"),
        push(T0.plusSeconds(10), "run-1", "acme/widget", "refs/heads/main", "denied",
            RefusalCode.RULE_DENIED, "not forwarded"),
        push(T0.plusSeconds(20), "run-2", "Acme/Gadget", "refs/heads/b", "allowed", null,
            "rejected: non-fast-forward"),
        push(T0.plusSeconds(30), "run-2", "acme/gadget", "refs/heads/c", "allowed", null,
            "pending")));

    assertThat(refs(audit, new AuditStore.Query(true, null, null, null, 0)))
        .containsExactly("refs/heads/main", "refs/heads/b");
    assertThat(refs(audit, new AuditStore.Query(false, null, null, null, 0)))
        .containsExactly("refs/heads/a", "refs/heads/b", "refs/heads/c");
    assertThat(refs(audit, new AuditStore.Query(null, "run-2", null, null, 0)))
        .containsExactly("refs/heads/b", "refs/heads/c");
    assertThat(refs(audit, new AuditStore.Query(null, null, "ACME/gadget", null, 0)))
        .containsExactly("refs/heads/b", "refs/heads/c");
    assertThat(refs(audit, new AuditStore.Query(null, null, null, T0.plusSeconds(10), 0)))
        .containsExactly("refs/heads/main", "refs/heads/b", "refs/heads/c");
    assertThat(refs(audit, new AuditStore.Query(null, null, null, null, 2)))
        .containsExactly("refs/heads/a", "refs/heads/main");
    assertThat(refs(audit, new AuditStore.Query(true, "run-2", "acme/gadget",
        T0.plusSeconds(15), 10))).containsExactly("refs/heads/b");
    assertThat(refs(audit, new AuditStore.Query(null, "run-9", null, null, 0))).isEmpty();
  }

  @Test
  void latestListsTheNewestDecisionsFirstWithTheirOutcomes() throws Exception {
    AuditStore audit = new AuditStore(db);
    List<AuditStore.Row> rows = audit.record(List.of(
        push(T0, "run-1", "acme/widget", "refs/heads/a", "allowed", null, "pending"),
        push(T0.plusSeconds(10), "run-1", "acme/widget", "refs/heads/b", "allowed", null, "ok"),
        push(T0.plusSeconds(20), "run-2", "acme/widget", "refs/heads/c", "denied",
            RefusalCode.RULE_DENIED, "not forwarded")));
    audit.settle(rows.get(0), AuditEntry.Outcome.OK, 5);

    List<AuditEntry> latest = audit.latest(new AuditStore.Query(null, null, null, null, 2));
    assertThat(latest).extracting(AuditEntry::ref)
        .containsExactly("refs/heads/c", "refs/heads/b");
    assertThat(audit.latest(new AuditStore.Query(null, null, null, null, 10)))
        .extracting(AuditEntry::ref).containsExactly("refs/heads/c", "refs/heads/b",
            "refs/heads/a");
    assertThat(audit.latest(new AuditStore.Query(null, null, null, null, 10)).get(2).outcome())
        .isEqualTo("ok");
    assertThat(audit.latest(new AuditStore.Query(null, "run-1", null, null, 1)))
        .extracting(AuditEntry::ref).containsExactly("refs/heads/b");
  }

  @Test
  void approvalsRecordTheQuestionAndHowItEnded() throws SQLException {
    MutableClock clock = new MutableClock(T0.plusSeconds(42));
    ApprovalStore approvals = new ApprovalStore(db, clock);
    Question q = new Question("q-1", T0, T0.plusSeconds(300), "push", "run-1", "ws-1",
        "acme/widget", "refs/heads/main", "update", "0".repeat(40), "1".repeat(40), null,
        "push refs/heads/main", "ask first", List.of());
    approvals.asked(q);
    assertThat(approvalColumns("q-1")).containsExactly("push", "run-1", "refs/heads/main",
        T0.toEpochMilli(), null, null, null);

    approvals.ended(q, new Answer(Answer.Outcome.ALLOWED, "alice", "looks fine"));
    assertThat(approvalColumns("q-1")).containsExactly("push", "run-1", "refs/heads/main",
        T0.toEpochMilli(), T0.plusSeconds(42).toEpochMilli(), "allowed", "alice");
  }

  @Test
  void forgeTokensAreCheckedRevokedAndExpire() throws SQLException {
    MutableClock clock = new MutableClock(T0);
    ForgeTokens tokens = new ForgeTokens(new ForgeTokenRows(db), clock, Duration.ofHours(1));
    Map<String, String> permissions = new LinkedHashMap<>();
    permissions.put("contents", "write");
    permissions.put("metadata", "read");
    ForgeTokens.Issued write = tokens.issue(List.of(7L, 8L), permissions);
    ForgeTokens.Issued read = tokens.issue(List.of(7L), Map.of("contents", "read"));

    assertThat(write.token().reveal()).matches("ghs_[A-Za-z0-9]{36}");
    assertThat(write.expiresAt()).isEqualTo(T0.plus(Duration.ofHours(1)));
    ForgeTokens.Grant grant = tokens.check(write.token().reveal()).orElseThrow();
    assertThat(grant.repositoryIds()).containsExactly(7L, 8L);
    assertThat(grant.permissions()).containsExactly(Map.entry("contents", "write"),
        Map.entry("metadata", "read"));
    assertThat(grant.canWrite(8)).isTrue();
    assertThat(tokens.check("ghs_unknown")).isEmpty();
    assertThat(tokens.check("")).isEmpty();

    assertThat(tokens.revoke(write.token().reveal())).isTrue();
    assertThat(tokens.revoke(write.token().reveal())).isFalse();
    assertThat(tokens.check(write.token().reveal())).isEmpty();

    clock.set(T0.plus(Duration.ofMinutes(59)));
    assertThat(tokens.check(read.token().reveal())).isPresent();
    clock.set(T0.plus(Duration.ofHours(1)));
    assertThat(tokens.check(read.token().reveal())).isEmpty();
    assertThat(tokens.revoke(read.token().reveal())).isFalse();
  }

  @Test
  void aTransactionIsAllOrNothing() throws SQLException {
    Ledger ledger = new Ledger(db, box, "host-a");
    ledger.insertRun(run("run-1", "hash-1"));
    try {
      db.inTransaction(c -> {
        try (PreparedStatement ps = c.prepareStatement("UPDATE runs SET backend = 'x'")) {
          ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO runs(id) VALUES ('run-2')")) {
          return ps.executeUpdate();
        }
      });
    } catch (SQLException expected) {
      // NOT NULL columns are missing.
    }
    assertThat(ledger.run("run-1").orElseThrow().backend()).isNull();
    assertThat(ledger.run("run-2")).isEmpty();
    assertThat(ledger.run("run-1")).isPresent();
  }

  @Test
  void hostsSharingAStoreSeeEachOthersRunsAuditAndTokens() throws Exception {
    Database other = open();
    Ledger a = new Ledger(db, box, "host-a");
    Ledger b = new Ledger(other, box, "host-b");
    a.insertRun(run("run-a", "hash-a"));
    long fromA = a.recordCredential("run-a", "read", "acme/widget", Secret.of("ghs_a"), T0, null);
    b.insertRun(run("run-b", "hash-b"));
    long fromB = b.recordCredential("run-b", "read", "acme/widget", Secret.of("ghs_b"), T0, null);
    assertThat(fromB).isNotEqualTo(fromA);

    assertThat(b.run("run-a")).isPresent();
    assertThat(a.run("run-b")).isPresent();

    new AuditStore(db).record(List.of(
        push(T0, "run-a", "acme/widget", "refs/heads/x", "allowed", null, "ok")));
    new AuditStore(other).record(List.of(
        push(T0, "run-b", "acme/widget", "refs/heads/y", "denied", RefusalCode.RULE_DENIED,
            "not forwarded")));
    assertThat(refs(new AuditStore(db), AuditStore.Query.all()))
        .containsExactly("refs/heads/x", "refs/heads/y");

    MutableClock clock = new MutableClock(T0);
    ForgeTokens.Issued t = new ForgeTokens(new ForgeTokenRows(db), clock, Duration.ofHours(1))
        .issue(List.of(1L), Map.of("contents", "read"));
    assertThat(new ForgeTokens(new ForgeTokenRows(other), clock, Duration.ofHours(1)).check(t.token().reveal()))
        .isPresent();
  }

  @Test
  void revocableCredentialsAreThoseOfRunsNotLiveInTheLedger() throws SQLException {
    Database other = open();
    Ledger a = new Ledger(db, box, "host-a");
    Ledger b = new Ledger(other, box, "host-b");
    Instant now = T0.plus(Duration.ofHours(9)); // after run()'s 8 hours
    a.insertRun(new Ledger.RunRow("run-live", "ws-1", null, null, "chat", "acme/widget", 7L, "[]",
        "{}", "hash-1", null, null, T0, now.plusSeconds(60), null, null));
    a.insertRun(run("run-ended", "hash-2"));
    a.insertRun(run("run-expired", "hash-3"));
    b.insertRun(run("run-b-expired", "hash-4"));
    b.insertRun(run("run-b-ended", "hash-5"));
    long live = a.recordCredential("run-live", "read", "acme/widget", Secret.of("ghs_1"), T0, null);
    long ended = a.recordCredential("run-ended", "read", "acme/widget", Secret.of("ghs_2"), T0,
        null);
    long expired = a.recordCredential("run-expired", "write", "acme/widget", Secret.of("ghs_3"),
        T0, null);
    long otherHosts = b.recordCredential("run-b-expired", "read", "acme/widget",
        Secret.of("ghs_4"), T0, null);
    long otherEnded = b.recordCredential("run-b-ended", "read", "acme/widget",
        Secret.of("ghs_5"), T0, null);
    long revoked = a.recordCredential("run-ended", "write", "acme/widget", Secret.of("ghs_6"), T0,
        null);
    a.endRun("run-ended", "torn down", T0.plusSeconds(1));
    b.endRun("run-b-ended", "torn down", T0.plusSeconds(1));
    a.markRevoked(revoked, T0.plusSeconds(2));

    // host-b's expired run is host-b's to end; once ended, any host revokes what it held
    List<Ledger.LiveCredential> revocable = a.revocableCredentials(now);
    assertThat(revocable).extracting(Ledger.LiveCredential::id)
        .containsExactly(ended, expired, otherEnded);
    assertThat(revocable.get(1).token().reveal()).isEqualTo("ghs_3");
    assertThat(new Ledger(other, box).revocableCredentials(now))
        .extracting(Ledger.LiveCredential::id)
        .containsExactly(ended, expired, otherHosts, otherEnded);
    assertThat(a.liveCredentials()).extracting(Ledger.LiveCredential::id)
        .contains(live).doesNotContain(otherHosts);
  }

  @Test
  void eachHostRecoversAndSweepsOnlyItsOwnUnendedRuns() throws SQLException {
    Database other = open();
    Ledger a = new Ledger(db, box, "host-a");
    Ledger b = new Ledger(other, box, "host-b");
    a.insertRun(run("run-a", "hash-a"));
    long credA = a.recordCredential("run-a", "read", "acme/widget", Secret.of("ghs_a"), T0, null);
    b.insertRun(run("run-b", "hash-b"));
    long credB = b.recordCredential("run-b", "read", "acme/widget", Secret.of("ghs_b"), T0, null);

    assertThat(a.unendedRuns()).extracting(Ledger.RunRow::id).containsExactly("run-a");
    assertThat(b.unendedRuns()).extracting(Ledger.RunRow::id).containsExactly("run-b");
    assertThat(a.liveCredentials()).extracting(Ledger.LiveCredential::id).containsExactly(credA);
    assertThat(b.liveCredentials()).extracting(Ledger.LiveCredential::id).containsExactly(credB);

    Ledger everyHost = new Ledger(other, box);
    assertThat(everyHost.unendedRuns()).extracting(Ledger.RunRow::id)
        .containsExactly("run-a", "run-b");
    assertThat(everyHost.liveCredentials()).extracting(Ledger.LiveCredential::id)
        .containsExactly(credA, credB);
  }

  @Test
  void aReplacementHostSeesAndRevokesADeadHostsLiveCredentials() throws SQLException {
    Ledger dead = new Ledger(db, box, "host-a");
    dead.insertRun(run("run-a", "hash-a"));
    long cred = dead.recordCredential("run-a", "write", "acme/widget",
        Secret.of("ghs_deadHostsToken"), T0, T0.plusSeconds(3600));
    db.close();

    Database replacementDb = open();
    Ledger replacement = new Ledger(replacementDb, box, "host-b");
    List<Ledger.LiveCredential> live = replacement.liveCredentials("run-a");
    assertThat(live).extracting(Ledger.LiveCredential::id).containsExactly(cred);
    assertThat(live.get(0).token().reveal()).isEqualTo("ghs_deadHostsToken");

    // Ending the dead host's run hands its credentials to whichever host sweeps next.
    replacement.endRun("run-a", "host lost", T0.plusSeconds(60));
    assertThat(replacement.liveCredentials()).extracting(Ledger.LiveCredential::id)
        .containsExactly(cred);
    replacement.markRevoked(cred, T0.plusSeconds(61));
    assertThat(replacement.liveCredentials()).isEmpty();

    // A host that takes over the dead host's id recovers its runs itself.
    Ledger sameId = new Ledger(replacementDb, box, "host-a");
    assertThat(sameId.liveCredentials("run-a")).isEmpty();
    assertThat(sameId.run("run-a").orElseThrow().endReason()).isEqualTo("host lost");
  }

  @Test
  void aHostTakingOverADeadHostsIdRecoversItsRuns() throws SQLException {
    Ledger dead = new Ledger(db, box, "host-a");
    dead.insertRun(run("run-a", "hash-a"));
    long cred = dead.recordCredential("run-a", "read", "acme/widget", Secret.of("ghs_a"), T0,
        null);

    Ledger successor = new Ledger(open(), box, "host-a");
    assertThat(successor.unendedRuns()).extracting(Ledger.RunRow::id).containsExactly("run-a");
    assertThat(successor.liveCredentials()).extracting(Ledger.LiveCredential::id)
        .containsExactly(cred);
  }

  @Test
  void concurrentWritersFromTwoHostsAllLand() throws Exception {
    Database other = open();
    concurrently(6, t -> {
      AuditStore audit = new AuditStore(t % 2 == 0 ? db : other);
      for (int i = 0; i < 20; i++) {
        audit.record(List.of(push(T0, "run-" + t, "acme/widget", "refs/heads/b" + i, "allowed",
            null, "ok")));
      }
    });
    assertThat(new AuditStore(other).list(new AuditStore.Query(null, null, null, null, 500)))
        .hasSize(120);
  }

  @Test
  void reopeningAMigratedStoreChangesNothing() throws SQLException {
    Ledger ledger = new Ledger(db, box, "host-a");
    ledger.insertRun(run("run-1", "hash-1"));
    List<String> before = history(db);

    Database again = open();
    assertThat(history(again)).isEqualTo(before).contains("1", "2");
    assertThat(new Ledger(again, box, "host-a").run("run-1")).isPresent();
  }

  static List<String> history(Database d) throws SQLException {
    return d.with(c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT version FROM flyway_schema_history WHERE success = ? ORDER BY installed_rank")) {
        ps.setBoolean(1, true);
        List<String> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(rs.getString(1));
          }
        }
        return out;
      }
    });
  }

  static Ledger.RunRow run(String id, String credentialHash) {
    return new Ledger.RunRow(id, "ws-1", null, null, "chat", "acme/widget", 7L, "[]", "{}",
        credentialHash, null, null, T0, T0.plus(Duration.ofHours(8)), null, null);
  }

  private static List<String> refs(AuditStore audit, AuditStore.Query q) throws SQLException {
    return audit.list(q).stream().map(AuditEntry::ref).toList();
  }

  private List<Object> revocationColumns(long id) throws SQLException {
    return db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT revoked_at, revoke_attempts, last_error FROM credentials WHERE id = ?")) {
        ps.setLong(1, id);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          long revoked = rs.getLong(1);
          Long revokedAt = rs.wasNull() ? null : revoked;
          List<Object> out = new ArrayList<>();
          out.add(revokedAt);
          out.add(rs.getLong(2));
          out.add(rs.getString(3));
          return out;
        }
      }
    });
  }

  private List<Object> approvalColumns(String id) throws SQLException {
    return db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT action, run_id, ref, asked_at,"
          + " ended_at, outcome, answered_by FROM approvals WHERE id = ?")) {
        ps.setString(1, id);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          List<Object> out = new ArrayList<>();
          out.add(rs.getString(1));
          out.add(rs.getString(2));
          out.add(rs.getString(3));
          out.add(rs.getLong(4));
          long ended = rs.getLong(5);
          out.add(rs.wasNull() ? null : ended);
          out.add(rs.getString(6));
          out.add(rs.getString(7));
          return out;
        }
      }
    });
  }

}
