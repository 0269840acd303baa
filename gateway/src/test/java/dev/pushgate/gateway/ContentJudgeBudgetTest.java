package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.policy.ContentRules;
import dev.pushgate.policy.Decision;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.junit.jupiter.api.Test;

/**
 * A push whose content cannot be judged within the budget is refused, not let through; the budget
 * holds at every step (not only while a blob is read), and a judgement nobody waits for stops.
 */
class ContentJudgeBudgetTest extends OnABareCache {
  /** Files each commit of the pathological push swaps between two contents. */
  private static final int FILES = 2_000;
  private static final int COMMITS = 20;

  @Test
  void aPushNotJudgedWithinTheBudgetIsRefusedAsNotJudged() throws Exception {
    RevCommit c = TestRepos.commit(db, "notes", Map.of("notes.txt", "plain text\n"));
    ReceiveCommand cmd = new ReceiveCommand(ObjectId.zeroId(), c, "refs/heads/feature");

    try (ContentJudge judge = new ContentJudge(db, ContentRules.DEFAULT,
        SecretScanner.standard(), Duration.ofSeconds(-1))) { // already past
      List<ContentFinding> found = judge.findings(cmd, List.of());
      // The ref name, and the commit the walk stopped at: neither judged in time.
      assertThat(found).hasSize(2).allSatisfy(f -> {
        assertThat(f.kind()).isEqualTo(ContentFinding.Kind.NOT_JUDGED);
        assertThat(f.decision()).isEqualTo(Decision.DENY);
      });
      assertThat(found).extracting(ContentFinding::text).contains("commit "
          + c.abbreviate(7).name() + " could not be scanned within -1 s (rule \"no secrets\");"
          + " nothing was pushed");
    }
    assertJudgedWithNothingFound(cmd);
  }

  @Test
  void aWalkOfFilesSwappedBetweenSeenContentsStopsAtTheBudget() throws Exception {
    ReceiveCommand cmd = swappingPush();
    // A clock that moves a millisecond each time the judgement looks at it: 1 s of budget is
    // about a thousand steps, whatever the machine's speed.
    AtomicLong looks = new AtomicLong();
    JudgementBudget budget = new JudgementBudget(Duration.ofSeconds(1), () -> false,
        () -> false, () -> looks.incrementAndGet() * 1_000_000L);

    try (ContentJudge judge = new ContentJudge(db, ContentRules.DEFAULT,
        SecretScanner.standard(), budget)) {
      List<ContentFinding> found = judge.findings(cmd, List.of());

      assertThat(found).last().satisfies(f -> {
        assertThat(f.kind()).isEqualTo(ContentFinding.Kind.NOT_JUDGED);
        assertThat(f.decision()).isEqualTo(Decision.DENY);
        assertThat(f.text()).matches("commit [0-9a-f]{7} could not be scanned within 1 s"
            + " \\(rule \"no secrets\"\\); nothing was pushed");
      });
    }
    // The walk stopped once the budget was spent, long before its COMMITS * FILES entries.
    assertThat(looks.get()).isLessThan(2 * 1_000L);
  }

  @Test
  void theSameWalkWithinTheBudgetIsAllowed() throws Exception {
    ReceiveCommand cmd = swappingPush();
    assertJudgedWithNothingFound(cmd);
  }

  @Test
  void aJudgementWhoseClientWentAwayIsAbandonedAndItsThreadReleased() throws Exception {
    ReceiveCommand cmd = swappingPush();
    CountDownLatch walking = new CountDownLatch(100);
    AtomicLong afterGone = new AtomicLong();
    AtomicBoolean gone = new AtomicBoolean();
    JudgementBudget budget = new JudgementBudget(ContentJudge.BUDGET, () -> {
      walking.countDown();
      if (gone.get()) {
        afterGone.incrementAndGet();
      }
      return gone.get();
    });

    CompletableFuture<Throwable> ended = CompletableFuture.supplyAsync(() -> {
      try (ContentJudge judge = new ContentJudge(db, ContentRules.DEFAULT,
          SecretScanner.standard(), budget)) {
        judge.findings(cmd, List.of());
        return null;
      } catch (Throwable t) {
        return t;
      }
    });
    assertThat(walking.await(60, TimeUnit.SECONDS)).isTrue();
    gone.set(true); // the git client closed its connection

    // The thread is released: the judgement ends, abandoned, at its next step.
    assertThat(ended.get(60, TimeUnit.SECONDS))
        .isInstanceOf(JudgementBudget.Abandoned.class)
        .hasMessage("judgement abandoned: the client closed its connection");
    assertThat(afterGone.get()).isEqualTo(1);
  }

  @Test
  void aJudgementOnAnInterruptedThreadIsAbandoned() throws Exception {
    ReceiveCommand cmd = swappingPush();
    Thread.currentThread().interrupt(); // the appliance stops
    try (ContentJudge judge = new ContentJudge(db, ContentRules.DEFAULT,
        SecretScanner.standard())) {
      assertThatThrownBy(() -> judge.findings(cmd, List.of()))
          .isInstanceOf(JudgementBudget.Abandoned.class)
          .hasMessage("judgement abandoned: the appliance is stopping");
    } finally {
      Thread.interrupted();
    }
  }

  /** Judged with the default rules within the default budget, {@code cmd} has no finding. */
  private void assertJudgedWithNothingFound(ReceiveCommand cmd) throws IOException {
    try (ContentJudge judge = new ContentJudge(db, ContentRules.DEFAULT,
        SecretScanner.standard())) {
      assertThat(judge.findings(cmd, List.of())).isEmpty();
    }
  }

  /** A new branch at the head of {@link TestRepos#swappingHistory}: a walk of many steps. */
  private ReceiveCommand swappingPush() throws IOException {
    RevCommit tip = TestRepos.swappingHistory(db, FILES, COMMITS);
    return new ReceiveCommand(ObjectId.zeroId(), tip, "refs/heads/feature");
  }
}
