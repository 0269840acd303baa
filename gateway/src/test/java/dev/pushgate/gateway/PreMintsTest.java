package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.policy.ContentRules;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Mode;
import dev.pushgate.policy.PushRules;
import dev.pushgate.types.RepoSlug;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The bounds of the write tokens minted at a push's advertisement. */
class PreMintsTest {
  private static final RepoSlug REPO = RepoSlug.parse("acme/widget");
  private static final RepoSlug OTHER = RepoSlug.parse("acme/gadget");

  private final RecordingUpstream upstream = new RecordingUpstream("http://upstream.invalid");
  private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
  private final PreMints preMints = new PreMints(upstream, Runnable::run, ticker);

  @AfterEach
  void stop() {
    ticker.shutdownNow();
  }

  private static RunContext run(String id, Mode mode, PushRules rules) {
    return new RunContext(id, "ws-1", REPO, List.of(OTHER), rules, Decision.DENY,
        ContentRules.DEFAULT, mode);
  }

  private static RunContext chat(String id) {
    return run(id, Mode.CHAT, PushRules.ALLOW_ALL);
  }

  /** A push the rules allowed, which the run must have sent before it pre-mints. */
  private void pushedOnce(RunContext run) {
    assertThat(preMints.take(run, REPO)).isEmpty();
  }

  @Test
  void aRunThatNeverPushedPreMintsNothing() {
    RunContext run = chat("run-1");
    for (int i = 0; i < 50; i++) {
      preMints.atAdvertisement(run, REPO);
    }
    assertThat(upstream.leases).isEmpty();
  }

  @Test
  void theNextPushTakesTheTokenMintedAtItsAdvertisementAndManyAdvertisementsShareOne()
      throws Exception {
    RunContext run = chat("run-1");
    pushedOnce(run);

    for (int i = 0; i < 50; i++) {
      preMints.atAdvertisement(run, REPO);
    }

    assertThat(upstream.leases).hasSize(1);
    CompletableFuture<WriteTokenLease> taken = preMints.take(run, REPO).orElseThrow();
    assertThat(taken.get()).isSameAs(upstream.leases.get(0));
    assertThat(upstream.leases.get(0).closes).hasValue(0);
    assertThat(preMints.pending()).isZero();
  }

  @Test
  void aRunThatWastesItsPreMintsLosesPreMintingForGood() {
    RunContext run = chat("run-1");
    pushedOnce(run);

    for (int i = 0; i < 50; i++) {
      preMints.atAdvertisement(run, REPO);
      preMints.discard(run, REPO); // an empty or refused push
    }
    pushedOnce(run); // a push that lands gives nothing back

    preMints.atAdvertisement(run, REPO);
    assertThat(upstream.leases).hasSize(PreMints.WASTED_AT_MOST)
        .allSatisfy(l -> assertThat(l.closes).hasValue(1));
  }

  /**
   * attack35w: the waste bound counted only tokens already revoked, so a run with attached
   * repositories that advertises each within the 5 s pre-mints one token per repository, all
   * wasted together: 9 for a run with 8 attachments (the docs: at most 3 more, per run, ever).
   */
  @Test
  void pendingTokensOnManyRepositoriesCountAgainstTheWasteBound() {
    List<RepoSlug> repos = List.of(REPO, OTHER, RepoSlug.parse("acme/a1"),
        RepoSlug.parse("acme/a2"), RepoSlug.parse("acme/a3"), RepoSlug.parse("acme/a4"));
    RunContext run = new RunContext("run-1", "ws-1", REPO, repos.subList(1, repos.size()),
        PushRules.ALLOW_ALL, Decision.DENY, ContentRules.DEFAULT, Mode.CHAT);
    pushedOnce(run);

    repos.forEach(r -> preMints.atAdvertisement(run, r)); // advertisements, no push follows
    repos.forEach(r -> preMints.discard(run, r)); // or their 5 s run out: the same waste

    assertThat(upstream.leases).hasSizeLessThanOrEqualTo(PreMints.WASTED_AT_MOST);
  }

  @Test
  void aReadOnlyRunOrOneWhoseRulesDenyEveryRefNeverPreMints() {
    RunContext plan = run("run-plan", Mode.PLAN, PushRules.ALLOW_ALL);
    RunContext denied = run("run-denied", Mode.CHAT, PushRules.of(Decision.DENY, List.of()));
    pushedOnce(plan);
    pushedOnce(denied);

    preMints.atAdvertisement(plan, REPO);
    preMints.atAdvertisement(denied, REPO);

    assertThat(upstream.leases).isEmpty();
  }

  @Test
  void aTokenNoPushTakesIsRevokedAfterItsTimeAndCountsAsWasted() throws Exception {
    PreMints quick = new PreMints(upstream, Runnable::run, ticker, Duration.ofMillis(50));
    RunContext run = chat("run-1");
    assertThat(quick.take(run, REPO)).isEmpty();

    for (int i = 0; i < PreMints.WASTED_AT_MOST; i++) {
      quick.atAdvertisement(run, REPO);
      RecordingUpstream.Lease lease = upstream.leases.get(i);
      awaitRevoked(lease); // no push follows: an advertisement alone
    }
    quick.atAdvertisement(run, REPO);

    assertThat(upstream.leases).hasSize(PreMints.WASTED_AT_MOST);
  }

  /**
   * A large push: git builds its pack for longer than the pending time, so the token is revoked
   * unused and the push mints its own; since the push came, the run keeps pre-minting (three
   * large pushes lost it for the run's small pushes too, seen in the WAN bench).
   */
  @Test
  void aPushThatComesAfterItsTokensTimeIsNotHeldAgainstTheRun() throws Exception {
    PreMints quick = new PreMints(upstream, Runnable::run, ticker, Duration.ofMillis(50));
    RunContext run = chat("run-1");
    assertThat(quick.take(run, REPO)).isEmpty();

    int pushes = PreMints.WASTED_AT_MOST + 2;
    for (int i = 0; i < pushes; i++) {
      quick.atAdvertisement(run, REPO);
      awaitRevoked(upstream.leases.get(i));
      assertThat(quick.take(run, REPO)).isEmpty(); // the push, late: it mints its own
      quick.landed(run, REPO);
    }
    quick.atAdvertisement(run, REPO);

    assertThat(upstream.leases).hasSize(pushes + 1);
  }

  /**
   * Attack (review of 9535bbe): a token revoked for its time is forgiven by any later push of the
   * run and repository, even one that came after a fresh advertisement and took that one's
   * pre-minted token, so it minted nothing of its own. A loop of "advertise, wait out the
   * pending time, push a tiny allowed change" then wastes one mint per push for ever, and the
   * run never loses pre-minting. Only the revoked token's own push, which mints its own, may
   * take the waste back.
   */
  @Test
  void aPushThatTookAFreshPreMintDoesNotForgiveAnOlderTokensWaste() throws Exception {
    assertThat(wastedByALoopOfSmallPushes(false)).as("tokens revoked unused")
        .isLessThanOrEqualTo(PreMints.WASTED_AT_MOST);
  }

  /** As above, the small pushes landing: still not the revoked tokens' own pushes. */
  @Test
  void aLandedPushThatTookAFreshPreMintDoesNotForgiveAnOlderTokensWaste() throws Exception {
    assertThat(wastedByALoopOfSmallPushes(true)).as("tokens revoked unused")
        .isLessThanOrEqualTo(PreMints.WASTED_AT_MOST);
  }

  /**
   * The loop above: an advertisement no push follows within its time, then a small push (its own
   * advertisement, its commands, {@code landing} or not); returns the tokens revoked unused.
   */
  private int wastedByALoopOfSmallPushes(boolean landing) throws Exception {
    PreMints quick = new PreMints(upstream, Runnable::run, ticker, Duration.ofMillis(50));
    RunContext run = chat("run-1");
    assertThat(quick.take(run, REPO)).isEmpty();

    int wasted = 0;
    for (int i = 0; i < PreMints.WASTED_AT_MOST + 2; i++) {
      int before = upstream.leases.size();
      quick.atAdvertisement(run, REPO); // an advertisement no push follows within its time
      if (upstream.leases.size() > before) {
        awaitRevoked(upstream.leases.get(before));
        wasted++;
      }
      quick.atAdvertisement(run, REPO); // a small push's own advertisement, then its commands
      quick.take(run, REPO);
      if (landing) {
        quick.landed(run, REPO);
      }
    }
    return wasted;
  }

  /**
   * Attack (review of 9535bbe, F2): a late push whose commands the rules allow, but which a
   * content rule then refuses (a {@code .env} file) or whose pack is garbage, mints its own token
   * and never lands: the waste it came after stands, or such a loop pre-mints for ever.
   */
  @Test
  void aLatePushRefusedOrAbortedAfterItsCommandsLeavesTheWaste() throws Exception {
    // late, its commands allowed: it mints its own; then refused by a content rule or aborted
    assertThat(preMintsAfterLatePushes((quick, run) -> quick.take(run, REPO)))
        .as("pre-mints").isEqualTo(PreMints.WASTED_AT_MOST);
  }

  /** Only a token that ran out of time is taken back: one a refused push discarded stays wasted. */
  @Test
  void aLandedPushForgivesNoTokenThatDidNotRunOutOfTime() {
    RunContext run = chat("run-1");
    pushedOnce(run);

    for (int i = 0; i < PreMints.WASTED_AT_MOST; i++) {
      preMints.atAdvertisement(run, REPO);
      preMints.discard(run, REPO); // a push its rules refuse from its commands
      assertThat(preMints.take(run, REPO)).isEmpty();
      preMints.landed(run, REPO);
    }
    preMints.atAdvertisement(run, REPO);

    assertThat(upstream.leases).as("pre-mints").hasSize(PreMints.WASTED_AT_MOST);
  }

  @Test
  void aLatePushThatMintsNothingLeavesTheWaste() throws Exception {
    assertThat(preMintsAfterLatePushes((quick, run) -> {
      quick.discard(run, REPO); // a push its rules refuse from its commands, late
      assertThat(quick.take(run, REPO)).isEmpty(); // a later push of other commands
    })).isEqualTo(PreMints.WASTED_AT_MOST);
  }

  /**
   * {@link PreMints#WASTED_AT_MOST} times an advertisement whose token runs out of time, then
   * {@code latePush}; then one more advertisement. Returns the tokens pre-minted in all.
   */
  private int preMintsAfterLatePushes(BiConsumer<PreMints, RunContext> latePush)
      throws Exception {
    PreMints quick = new PreMints(upstream, Runnable::run, ticker, Duration.ofMillis(50));
    RunContext run = chat("run-1");
    assertThat(quick.take(run, REPO)).isEmpty();

    for (int i = 0; i < PreMints.WASTED_AT_MOST; i++) {
      quick.atAdvertisement(run, REPO);
      awaitRevoked(upstream.leases.get(i));
      latePush.accept(quick, run);
    }
    quick.atAdvertisement(run, REPO);
    return upstream.leases.size();
  }

  @Test
  void theRunsEndRevokesItsPendingTokensAndOnlyItsOwn() {
    RunContext run = chat("run-1");
    RunContext other = chat("run-2");
    pushedOnce(run);
    pushedOnce(other);
    preMints.atAdvertisement(run, REPO);
    preMints.atAdvertisement(run, OTHER);
    preMints.atAdvertisement(other, REPO);

    preMints.runEnded("run-1");

    assertThat(upstream.leases).hasSize(3);
    assertThat(upstream.leases.get(0).closes).hasValue(1);
    assertThat(upstream.leases.get(1).closes).hasValue(1);
    assertThat(upstream.leases.get(2).closes).hasValue(0);
    assertThat(preMints.pending()).isOne();
    preMints.atAdvertisement(run, REPO); // forgotten: it would have to push again
    assertThat(upstream.leases).hasSize(3);
  }

  @Test
  void theGatewayHoldsAtMostItsCapOfPendingTokens() {
    for (int i = 0; i < PreMints.PENDING_AT_MOST + 10; i++) {
      RunContext run = chat("run-" + i);
      pushedOnce(run);
      preMints.atAdvertisement(run, REPO);
    }
    assertThat(upstream.leases).hasSize(PreMints.PENDING_AT_MOST);
    assertThat(preMints.pending()).isEqualTo(PreMints.PENDING_AT_MOST);
  }

  @Test
  void aPreMintThatFailedIsNoTokenToTakeAndNoWaste() {
    RunContext run = chat("run-1");
    pushedOnce(run);
    upstream.mintFailure = UpstreamException.refusal("this run has pushed more than 20 times");

    for (int i = 0; i < 10; i++) {
      preMints.atAdvertisement(run, REPO);
    }
    assertThat(preMints.take(run, REPO)).isEmpty();
    upstream.mintFailure = null;
    preMints.atAdvertisement(run, REPO);

    assertThat(upstream.leases).hasSize(1);
  }

  /**
   * A pre-mint GitHub failed cost an App call like a wasted token: without counting it, a loop of
   * advertisements against a failing upstream would call GitHub at every one.
   */
  @Test
  void aPreMintGitHubFailedCountsAsWasted() {
    RunContext run = chat("run-1");
    pushedOnce(run);
    upstream.mintFailure = new UpstreamException("GitHub answered 502");

    for (int i = 0; i < 10; i++) {
      preMints.atAdvertisement(run, REPO);
    }
    upstream.mintFailure = null;
    preMints.atAdvertisement(run, REPO);

    assertThat(upstream.mintCalls).isEqualTo(PreMints.WASTED_AT_MOST);
    assertThat(upstream.leases).isEmpty();
  }

  /**
   * Attack (second review of the pre-mint): a pre-mint GitHub fails only after its pending time
   * (a slow GitHub) is counted as a token revoked for its time, so the next landed push takes
   * its waste back; a failed pre-mint is wasted for good (push-path.md, "Lost after 3 wasted"),
   * and only a token that ran out of time waits for its push.
   */
  @Test
  void aPreMintGitHubFailedAfterItsTimeIsNotForgivenByTheNextPush() throws Exception {
    PreMints slow = new PreMints(upstream,
        mint -> ticker.schedule(mint, 200, TimeUnit.MILLISECONDS), ticker, Duration.ofMillis(50));
    RunContext run = chat("run-1");
    assertThat(slow.take(run, REPO)).isEmpty();
    upstream.mintFailure = new UpstreamException("GitHub answered 502");

    for (int i = 1; i <= PreMints.WASTED_AT_MOST; i++) {
      slow.atAdvertisement(run, REPO);
      awaitMintCalls(i);
      assertThat(slow.take(run, REPO)).isEmpty(); // the push mints its own, and lands
      slow.landed(run, REPO);
    }
    upstream.mintFailure = null;
    slow.atAdvertisement(run, REPO);
    // a mint started now runs on the ticker at 200 ms: a task due after it has run after it
    ticker.schedule(() -> { }, 300, TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS);

    assertThat(mintCalls()).as("pre-minted after 3 failed pre-mints")
        .isEqualTo(PreMints.WASTED_AT_MOST);
  }

  private void awaitMintCalls(int calls) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (mintCalls() < calls && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(mintCalls()).isEqualTo(calls);
    // the mint's failure runs on the ticker after the call returns: let the ticker pass it
    ticker.submit(() -> { }).get(10, TimeUnit.SECONDS);
  }

  private int mintCalls() {
    synchronized (upstream) {
      return upstream.mintCalls;
    }
  }

  private static void awaitRevoked(RecordingUpstream.Lease lease) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (lease.closes.get() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(lease.closes).as("revoked unused").hasValue(1);
  }
}
