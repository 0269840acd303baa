package dev.pushgate.appliance.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.approvals.Answer;
import dev.pushgate.approvals.ApprovalDesk;
import dev.pushgate.approvals.Question;
import dev.pushgate.approvals.fleet.Fleet;
import dev.pushgate.testkit.Wait;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two appliances' desks, A and B, in one process on one PostgreSQL schema of this test's own:
 * the races of a fleet (two answers at once, an answer after the time-out, a holder gone) decided
 * in the database. {@code PUSHGATE_TEST_POSTGRES_URL} as for PostgresStorageTest: skipped
 * without it, failed without it under {@code CI=true}.
 */
class FleetRacesTest {
  @RegisterExtension final TestPostgres postgres = new TestPostgres();
  private String schema;
  private Database db;
  private final List<AutoCloseable> open = new ArrayList<>();
  private Host a;
  private Host b;

  /** One appliance's desk in the fleet, and what its listeners heard. */
  private final class Host {
    final String id;
    final ApprovalDesk desk;
    final Fleet fleet;
    final List<String> heard = new CopyOnWriteArrayList<>();
    final Set<String> liveRuns = ConcurrentHashMap.newKeySet();
    final Set<String> endedHere = ConcurrentHashMap.newKeySet();

    Host(String id, Duration timeout) throws Exception {
      this.id = id;
      this.desk = new ApprovalDesk(Clock.systemUTC(), timeout, Duration.ofSeconds(1),
          Duration.ZERO, new ApprovalStore(new AuditChain(db, id, AuditSink.NONE),
              Clock.systemUTC()), runId -> true, 8);
      this.fleet = Fleet.join(FleetStore.open(db, id), desk, new Fleet.RunsHere() {
        @Override
        public Set<String> liveIds() {
          return Set.copyOf(liveRuns);
        }

        @Override
        public boolean endedElsewhere(String runId) {
          if (liveRuns.remove(runId)) {
            endedHere.add(runId);
            return true;
          }
          return false;
        }
      });
      open.add(fleet);
    }

    /** Waits until this host's approver heard EVENT ("asked ID", "ended ID OUTCOME"). */
    void awaitHeard(String event) throws Exception {
      Wait.until(Duration.ofSeconds(10), id + "'s approver to hear " + event,
          () -> heard.contains(event));
    }

    /** An approver's stream on this host, hearing questions and ends. */
    void connectApprover() {
      desk.connect(new ApprovalDesk.Listener() {
        @Override
        public void onAsked(Question q) {
          heard.add("asked " + q.id());
        }

        @Override
        public void onEnded(Question q, Answer a) {
          heard.add("ended " + q.id() + " " + a.outcome().id());
        }
      });
    }
  }

  @BeforeEach
  void twoHostsOnOneSchema() throws Exception {
    schema = postgres.freshSchema();
    db = Database.open(postgres.urlOf(schema));
    a = new Host("host-a", Duration.ofSeconds(60));
    b = new Host("host-b", Duration.ofSeconds(60));
  }

  @AfterEach
  void drop() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
    db.close();
  }

  @Test
  void aQuestionHeldOnAIsSeenAndAnsweredOnB() throws Exception {
    CompletableFuture<Answer> held = askOnAWithAnApproverOn(b);
    Question q = awaitPendingOn(b);
    assertThat(q.summary()).isEqualTo("update refs/heads/main of acme/widget 1111111111..2222222222");
    assertThat(q.commits()).containsExactly("abc fix it");
    b.awaitHeard("asked " + q.id());

    assertThat(b.desk.answer(q.id(), true, "bob", null)).isPresent();

    assertThat(held.get(10, TimeUnit.SECONDS))
        .isEqualTo(new Answer(Answer.Outcome.ALLOWED, "bob", "approved by bob"));
    b.awaitHeard("ended " + q.id() + " allowed");
    assertThat(outcome(q.id())).isEqualTo("allowed");
    assertThat(b.desk.pending(null)).isEmpty();
    // A second answer, on either host, finds nothing.
    assertThat(b.desk.answer(q.id(), false, "eve", null)).isEmpty();
    assertThat(a.desk.answer(q.id(), false, "eve", null)).isEmpty();
  }

  /** A notice only wakes early: one lost (here, sent before C listened) is read at catch-up. */
  @Test
  void aQuestionWhoseNoticeWasLostIsStillHeardAndItsEndToo() throws Exception {
    CompletableFuture<Answer> held = askOnAWithAnApproverOn(a);
    Question q = awaitPendingOn(a);
    Host c = new Host("host-c", Duration.ofSeconds(60));
    c.connectApprover();
    c.awaitHeard("asked " + q.id());

    assertThat(a.desk.answer(q.id(), false, "alice", null)).isPresent();
    assertThat(held.get(10, TimeUnit.SECONDS).outcome()).isEqualTo(Answer.Outcome.DENIED);
    c.awaitHeard("ended " + q.id() + " denied");
    assertThat(c.heard).as("each heard once").containsExactly("asked " + q.id(),
        "ended " + q.id() + " denied");
  }

  @Test
  void anObserverHearsOnlyTheQuestionsItsOwnHostHolds() throws Exception {
    List<String> observedOnA = new CopyOnWriteArrayList<>();
    List<String> observedOnB = new CopyOnWriteArrayList<>();
    for (var pair : List.of(Map.entry(a, observedOnA), Map.entry(b, observedOnB))) {
      open.add(pair.getKey().desk.observe(new ApprovalDesk.Listener() {
        @Override
        public void onAsked(Question q) {
          pair.getValue().add("asked " + q.id());
        }

        @Override
        public void onEnded(Question q, Answer x) {
          pair.getValue().add("ended " + q.id());
        }
      }));
    }
    CompletableFuture<Answer> held = askOnAWithAnApproverOn(b);
    Question q = awaitPendingOn(b);
    b.awaitHeard("asked " + q.id());
    assertThat(b.desk.answer(q.id(), true, "bob", null)).isPresent();
    held.get(10, TimeUnit.SECONDS);
    b.awaitHeard("ended " + q.id() + " allowed");
    Wait.until(Duration.ofSeconds(10), "A's observer to hear the end",
        () -> observedOnA.contains("ended " + q.id()));
    // a webhook on each appliance: the question goes out once, from the one holding it
    assertThat(observedOnA).containsExactly("asked " + q.id(), "ended " + q.id());
    assertThat(observedOnB).isEmpty();
  }

  @Test
  void withNoApproverAnywhereTheQuestionIsRefusedUnasked() throws Exception {
    Answer a1 = a.desk.askAsync(push("run_1")).get(10, TimeUnit.SECONDS);
    assertThat(a1.outcome()).isEqualTo(Answer.Outcome.NO_APPROVER);
  }

  @Test
  void twoApproversAnsweringAtOnceOnTwoHostsOneWins() throws Exception {
    a.connectApprover();
    b.connectApprover();
    for (int round = 0; round < 5; round++) {
      CompletableFuture<Answer> held = a.desk.askAsync(push("run_" + round));
      Question q = awaitPendingOn(b);
      CountDownLatch go = new CountDownLatch(1);
      CompletableFuture<Optional<Question>> onA = CompletableFuture.supplyAsync(() -> {
        await(go);
        return a.desk.answer(q.id(), true, "alice", null);
      });
      CompletableFuture<Optional<Question>> onB = CompletableFuture.supplyAsync(() -> {
        await(go);
        return b.desk.answer(q.id(), false, "bob", "no");
      });
      go.countDown();
      boolean aWon = onA.get(10, TimeUnit.SECONDS).isPresent();
      boolean bWon = onB.get(10, TimeUnit.SECONDS).isPresent();
      assertThat(aWon ^ bWon).as("exactly one answer wins").isTrue();
      Answer ended = held.get(10, TimeUnit.SECONDS);
      assertThat(ended.by()).isEqualTo(aWon ? "alice" : "bob");
      assertThat(outcome(q.id())).isEqualTo(aWon ? "allowed" : "denied");
    }
  }

  @Test
  void anAnswerAfterTheTimeOutFindsNothing() throws Exception {
    Host quick = new Host("host-quick", Duration.ofMillis(500));
    b.connectApprover();
    awaitApproverSeenBy(quick);
    CompletableFuture<Answer> held = quick.desk.askAsync(push("run_1"));
    Question q = awaitPendingOn(b);
    assertThat(held.get(10, TimeUnit.SECONDS).outcome()).isEqualTo(Answer.Outcome.TIMED_OUT);
    assertThat(b.desk.answer(q.id(), true, "late", null)).isEmpty();
    assertThat(outcome(q.id())).isEqualTo("timed-out");
  }

  @Test
  void theQuestionsOfAHostThatIsDownAreWithdrawnNeverAllowed() throws Exception {
    b.connectApprover();
    awaitApproverSeenBy(a);
    a.desk.askAsync(push("run_1"));
    Question q = awaitPendingOn(b);
    // A stops beating without withdrawing anything, as a host that died would; it is down once
    // its heartbeat is older than DOWN_AFTER (set back here rather than waited for).
    a.fleet.close();
    postgres.execute("INSERT INTO " + schema + ".fleet_presence(host, approver, seen_at) VALUES"
        + " ('host-a', true, 0) ON CONFLICT (host) DO UPDATE SET seen_at = 0");

    assertThat(b.desk.pending(null)).isEmpty();
    assertThat(b.desk.answer(q.id(), true, "bob", null)).isEmpty();
    Wait.until(Duration.ofSeconds(10), "B to withdraw the question of a host that is down",
        () -> "cancelled".equals(outcome(q.id())));
  }

  @Test
  void anApproverOnAHostThatIsDownDoesNotCount() throws Exception {
    a.connectApprover();
    awaitApproverSeenBy(b);
    a.fleet.close();
    postgres.execute("INSERT INTO " + schema + ".fleet_presence(host, approver, seen_at) VALUES"
        + " ('host-a', true, 0) ON CONFLICT (host) DO UPDATE SET seen_at = 0");
    assertThat(b.desk.approverConnected()).isFalse();
    assertThat(b.desk.askAsync(push("run_1")).get(10, TimeUnit.SECONDS).outcome())
        .isEqualTo(Answer.Outcome.NO_APPROVER);
  }

  @Test
  void anApproverWhoLeavesStopsCountingAtOnce() throws Exception {
    AutoCloseable stream = a.desk.connect(new ApprovalDesk.Listener() {
      @Override
      public void onAsked(Question q) {}

      @Override
      public void onEnded(Question q, Answer x) {}
    });
    awaitApproverSeenBy(b);
    stream.close();
    Wait.until(Duration.ofSeconds(10), "B to see the approver gone",
        () -> !b.desk.approverConnected());
  }

  @Test
  void aRunEndedOnOneHostEndsOnTheHostHoldingIt() throws Exception {
    a.liveRuns.add("run_fleet");
    postgres.execute("INSERT INTO " + schema
        + ".runs(id, workspace_id, mode, repository, attached, rules,"
        + " credential_hash, created_at, expires_at, ended_at, host) VALUES ('run_fleet', 'ws',"
        + " 'chat', 'acme/widget', '[]', '{}', 'h', 0, 9999999999999, 1, 'host-a')");
    b.fleet.runEnded("run_fleet");
    Wait.until(Duration.ofSeconds(10), "A to end the run B ended",
        () -> a.endedHere.contains("run_fleet"));
  }

  @Test
  void aRunLiveInTheLedgerIsNotEndedByANoticeAlone() throws Exception {
    a.liveRuns.add("run_live");
    postgres.execute("INSERT INTO " + schema
        + ".runs(id, workspace_id, mode, repository, attached, rules,"
        + " credential_hash, created_at, expires_at, host) VALUES ('run_live', 'ws', 'chat',"
        + " 'acme/widget', '[]', '{}', 'h2', 0, 9999999999999, 'host-a')");
    // A forged notice: the row says the run goes on, and the row is the truth.
    notifyRaw("run-ended:run_live");
    a.liveRuns.add("run_marker");
    postgres.execute("INSERT INTO " + schema
        + ".runs(id, workspace_id, mode, repository, attached, rules,"
        + " credential_hash, created_at, expires_at, ended_at, host) VALUES ('run_marker', 'ws',"
        + " 'chat', 'acme/widget', '[]', '{}', 'h3', 0, 9999999999999, 1, 'host-a')");
    notifyRaw("run-ended:run_marker");
    Wait.until(Duration.ofSeconds(10), "A to handle the notices",
        () -> a.endedHere.contains("run_marker"));
    assertThat(a.endedHere).doesNotContain("run_live");
  }

  @Test
  void anAnswerWrittenInTheDatabaseIsShownOnOneLine() throws Exception {
    CompletableFuture<Answer> held = askOnAWithAnApproverOn(b);
    Question q = awaitPendingOn(b);
    // No notice: A's heartbeat finds the answer by itself.
    postgres.execute("UPDATE " + schema + ".approvals SET ended_at = 1, outcome = 'denied',"
        + " answered_by = E'mal\\rlory', answer_reason = E'no\\n\\x1b[2Jfake line'"
        + " WHERE id = '" + q.id() + "'");
    assertThat(held.get(10, TimeUnit.SECONDS))
        .isEqualTo(new Answer(Answer.Outcome.DENIED, "mal lory", "no [2Jfake line"));
  }

  @Test
  void malformedNoticesAreIgnored() throws Exception {
    b.connectApprover();
    awaitApproverSeenBy(a);
    for (String junk : List.of("", ":", "asked", "asked:", "ended:' OR 1=1 --",
        "ended:" + "x".repeat(5000), "asked:q_\u0001\u001b[2J", "unknown:q_1", "ended:q_nonexistent",
        "run-ended:../../etc", "asked:q_1:extra")) {
      notifyRaw(junk);
    }
    // Still a working fleet afterwards.
    CompletableFuture<Answer> held = a.desk.askAsync(push("run_1"));
    Question q = awaitPendingOn(b);
    assertThat(b.desk.answer(q.id(), false, "bob", "no")).isPresent();
    assertThat(held.get(10, TimeUnit.SECONDS).outcome()).isEqualTo(Answer.Outcome.DENIED);
  }

  // --- fixtures ---

  private static Question push(String runId) {
    return new Question("-", null, null, "push", runId, "ws", "acme/widget", "refs/heads/main",
        "update", "1111111111aaaa", "2222222222bbbb", null, "push main", "main needs a human",
        List.of("abc fix it"));
  }

  /** Connects an approver on {@code approver}, waits until A sees it, and asks on A. */
  private CompletableFuture<Answer> askOnAWithAnApproverOn(Host approver) throws Exception {
    approver.connectApprover();
    awaitApproverSeenBy(a);
    return a.desk.askAsync(push("run_1"));
  }

  private static void awaitApproverSeenBy(Host h) throws Exception {
    Wait.until(Duration.ofSeconds(10), h.id + " to see an approver in the fleet",
        h.desk::approverConnected);
  }

  private static Question awaitPendingOn(Host h) throws Exception {
    return Wait.forPresent(Duration.ofSeconds(10), "a question pending on " + h.id,
        () -> h.desk.pending(null).stream().findFirst());
  }

  private static void await(CountDownLatch go) {
    try {
      go.await();
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private String outcome(String id) throws SQLException {
    return db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT outcome FROM approvals WHERE id = ?")) {
        ps.setString(1, id);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? rs.getString(1) : null;
        }
      }
    });
  }

  private void notifyRaw(String payload) throws SQLException {
    db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
        ps.setString(1, FleetStore.channelOf(schema));
        ps.setString(2, payload);
        ps.execute();
        return null;
      }
    });
  }
}
