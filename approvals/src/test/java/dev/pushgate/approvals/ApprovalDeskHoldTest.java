package dev.pushgate.approvals;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ApprovalDeskHoldTest {
  private final List<String> recorded = new CopyOnWriteArrayList<>();
  private final ApprovalLog log = new ApprovalLog() {
    @Override
    public void asked(Question q) {
      recorded.add("asked " + q.runId());
    }

    @Override
    public void ended(Question q, Answer a) {
      recorded.add("ended " + q.runId() + " " + a.outcome().id());
    }
  };

  @Test
  void aRunPastItsShareOfHeldQuestionsIsRefusedUnaskedWhileOtherRunsAreAsked() throws Exception {
    ApprovalDesk desk = listeningDesk(Duration.ofMinutes(5), 3);
    List<CompletableFuture<Answer>> held = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      held.add(desk.askAsync(question("run_flood")));
    }
    assertThat(held).noneMatch(CompletableFuture::isDone);

    Answer refused = desk.askAsync(question("run_flood")).getNow(null);
    assertThat(refused).isNotNull();
    assertThat(refused.outcome()).isEqualTo(Answer.Outcome.NO_APPROVER);
    assertThat(refused.reason()).isEqualTo("ask first (this run already has 3 questions waiting"
        + " for an approver; this one was not asked)");
    assertThat(desk.pending("run_flood")).hasSize(3);

    CompletableFuture<Answer> other = desk.askAsync(question("run_quiet"));
    assertThat(other).isNotDone();
    assertThat(desk.pending("run_quiet")).hasSize(1);

    String first = desk.pending("run_flood").get(0).id();
    assertThat(desk.answer(first, true, "carol", null)).isPresent();
    assertThat(held.stream().filter(CompletableFuture::isDone).toList()).singleElement()
        .satisfies(f -> assertThat(f.get().allowed()).isTrue());
    // The answered question gave its place back.
    assertThat(desk.askAsync(question("run_flood"))).isNotDone();
    assertThat(recorded).contains("ended run_flood no-approver", "ended run_flood allowed");
  }

  @Test
  void aHeldQuestionTimesOutWithoutAThreadWaitingForIt() throws Exception {
    ApprovalDesk desk = listeningDesk(Duration.ofMillis(200), 2);
    CompletableFuture<Answer> a = desk.askAsync(question("run_1"));
    assertThat(a).isNotDone();
    Answer timedOut = a.get(10, TimeUnit.SECONDS);
    assertThat(timedOut.outcome()).isEqualTo(Answer.Outcome.TIMED_OUT);
    assertThat(desk.pending("run_1")).isEmpty();
    assertThat(recorded).containsExactly("asked run_1", "ended run_1 timed-out");
  }

  @Test
  void closingTheDeskEndsHeldQuestionsAndRefusesNewOnes() throws Exception {
    ApprovalDesk desk = listeningDesk(Duration.ofMinutes(5), 2);
    CompletableFuture<Answer> a = desk.askAsync(question("run_1"));
    desk.close("the appliance is shutting down");
    Answer withdrawn = a.get(10, TimeUnit.SECONDS);
    assertThat(withdrawn.outcome()).isEqualTo(Answer.Outcome.CANCELLED);
    assertThat(withdrawn.reason()).isEqualTo(
        "the question was withdrawn before anyone answered: the appliance is shutting down");
    assertThat(desk.askAsync(question("run_1")).getNow(null).outcome())
        .isEqualTo(Answer.Outcome.CANCELLED);
  }

  /** A desk with an approver connected, holding questions for {@code hold}, {@code share} a run. */
  private ApprovalDesk listeningDesk(Duration hold, int share) {
    ApprovalDesk desk = new ApprovalDesk(Clock.systemUTC(), hold, Duration.ofSeconds(5), log, share);
    desk.connect(new Listening());
    return desk;
  }

  private static Question question(String runId) {
    return new Question("-", null, null, "command", runId, "ws", "acme/widget", null, null, null,
        null, "git push origin main", "command policy", "ask first", null);
  }

  private static final class Listening implements ApprovalDesk.Listener {
    @Override
    public void onAsked(Question q) {}

    @Override
    public void onEnded(Question q, Answer a) {}
  }
}
