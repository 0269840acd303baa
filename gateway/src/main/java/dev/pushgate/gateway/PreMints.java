package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Write tokens whose mint starts when git asks for a push's advertisement, so that GitHub's round
 * trip for the token runs while git prepares its pack instead of after the push's commands are
 * read (docs/push-path.md, "The pre-mint"). Bounded so that a run cannot turn advertisements
 * into mints (issue 14, docs/trust-boundary-review.md §8):
 *
 * <ul>
 *   <li>only for a run that may push something ({@link RunContext#mayPushSomething}) and that
 *       has already sent a push its rules allowed: a run that never pushes never pre-mints;
 *   <li>at most one pending token per run and repository: another advertisement reuses it;
 *   <li>every mint is spent from the run's {@link MintBudget} (the upstream given here is the
 *       budgeted one);
 *   <li>a pending token no push takes within {@link #PENDING_FOR} is revoked; one discarded by a
 *       push that could not use it is revoked at once;
 *   <li>a run's pending pre-mints count against {@link #WASTED_AT_MOST} with those it wasted
 *       (revoked unused, or failed upstream): a run whose pending and wasted make that many
 *       pre-mints nothing more, and one that wasted that many never pre-mints again, so a loop
 *       of advertisements and pushes that do not land (empty, refused, aborted), on any number
 *       of repositories, costs at most that many mints more than the same loop did before,
 *       ever;
 *   <li>a token revoked for its time is taken back from the waste only by the push it was made
 *       for: the next push of that run and repository with no advertisement in between, which
 *       finds no pre-mint and so mints its own, once it {@linkplain #landed lands} upstream. Each
 *       forgiveness thus needs a push that minted and landed anyway: at most one mint more per
 *       landed push;
 *   <li>at most {@link #PENDING_AT_MOST} pending tokens in the whole gateway.
 * </ul>
 *
 * A pending token is never handed out; it is minted exactly as a push's own (one repository,
 * without the workflows permission), recorded in the run's credentials like any write token and
 * revoked at the run's end with the others at the latest.
 */
final class PreMints implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PreMints.class);

  /**
   * How long a pre-minted token waits for its push. Between the advertisement and the push's
   * commands git only computes what to send: milliseconds for a small push, a few hundred on
   * this loaded 2-core machine (docs/benchmarks.md). A push that takes longer to prepare has a
   * pack long enough to hide the mint anyway (minted while the pack arrives), and an unused token
   * should not live long.
   */
  static final Duration PENDING_FOR = Duration.ofSeconds(5);

  /**
   * Pre-mints a run may waste before it loses pre-minting. An agent's session has some
   * advertisements that no push follows ({@code git push} with nothing to send, a dry run, a
   * push its rules refuse); three cost six App calls (mint and revocation) per run, ever, a small
   * part of the twenty mints one run may make in a minute.
   */
  static final int WASTED_AT_MOST = 3;

  /**
   * Tokens pending in the whole gateway. With {@link #PENDING_FOR} of 5 s this is far more than
   * the pushes a 2-core appliance prepares at once, and it bounds what a crowd of runs
   * advertising together can hold unused.
   */
  static final int PENDING_AT_MOST = 64;

  /** The gateway that never pre-mints (tests of the filter alone). */
  static PreMints off() {
    return new PreMints(null, null, null, PENDING_FOR);
  }

  private record Pending(String runId, CompletableFuture<WriteTokenLease> lease,
      ScheduledFuture<?> expiry) {}

  /** What the gateway knows of one live run's pre-mints. */
  private static final class RunState {
    /** True once a push of the run was allowed from its commands. */
    boolean pushed;
    /** Pre-minted tokens the run let go unused. */
    int wasted;
  }

  private final UpstreamAccess upstream;
  private final Executor minting;
  private final ScheduledExecutorService ticker;
  private final Duration pendingFor;
  /** Guarded by this; keyed by {@link #key}. */
  private final Map<String, Pending> pending = new HashMap<>();
  /** Guarded by this; keyed by run id, forgotten when the run ends. */
  private final Map<String, RunState> runs = new HashMap<>();
  /**
   * Guarded by this, keyed by {@link #key} to the run id: the keys whose pending token ran out of
   * time, waiting for its push (git may still be building a large pack). The next push decides:
   * it moves the key to {@link #late} if it mints its own, and clears it otherwise; another
   * advertisement of the key clears it (the push that follows is that advertisement's).
   */
  private final Map<String, String> expired = new HashMap<>();
  /**
   * Guarded by this, keyed by {@link #key} to the run id: the push now under way whose token ran
   * out of time before it came, and which mints its own; its waste is taken back if it lands.
   * The next push of the key decides afresh, whatever became of this one.
   */
  private final Map<String, String> late = new HashMap<>();

  /**
   * @param upstream where tokens are minted: the budgeted upstream, so that every pre-mint is
   *     spent from the run's budget
   */
  PreMints(UpstreamAccess upstream, Executor minting, ScheduledExecutorService ticker) {
    this(upstream, minting, ticker, PENDING_FOR);
  }

  /** {@code pendingFor}: how long a pre-minted token waits for its push. */
  PreMints(UpstreamAccess upstream, Executor minting, ScheduledExecutorService ticker,
      Duration pendingFor) {
    this.upstream = upstream;
    this.minting = minting;
    this.ticker = ticker;
    this.pendingFor = pendingFor;
  }

  /**
   * Git asked for the advertisement of a push of {@code run} to {@code repo}: starts minting its
   * write token, within the bounds above.
   */
  void atAdvertisement(RunContext run, RepoSlug repo) {
    if (upstream == null || !run.mayPushSomething()) {
      return;
    }
    String key = key(run, repo);
    synchronized (this) {
      // A push follows its own advertisement: a token that ran out of time before this one was
      // another push's, and the push that follows now cannot take its waste back.
      expired.remove(key);
      RunState state = runs.get(run.runId());
      // Pending tokens count against the bound before they are wasted: a run advertising each
      // of its attached repositories at once would otherwise hold one unused token per repository.
      if (state == null || !state.pushed
          || state.wasted + pendingOf(run.runId()) >= WASTED_AT_MOST
          || pending.containsKey(key) || pending.size() >= PENDING_AT_MOST) {
        return;
      }
      CompletableFuture<WriteTokenLease> lease = CompletableFuture.supplyAsync(() -> {
        try {
          return upstream.mintWriteToken(run, repo, false);
        } catch (UpstreamException e) {
          throw new CompletionException(e);
        }
      }, minting);
      Pending p = new Pending(run.runId(), lease, ticker.schedule(() -> waste(key, lease),
          pendingFor.toMillis(), TimeUnit.MILLISECONDS));
      pending.put(key, p);
      lease.whenComplete((l, e) -> {
        if (e != null) {
          failed(key, p, e);
        }
      });
    }
  }

  /**
   * A push of {@code run} to {@code repo} whose commands the rules allow at least in part: it
   * would mint its token now, so it takes the pending one, if any. From now on the run may
   * pre-mint. A push that finds none where a token ran out of time before it came mints its own,
   * and is that token's push: its waste is taken back if it {@link #landed lands}.
   */
  synchronized Optional<CompletableFuture<WriteTokenLease>> take(RunContext run, RepoSlug repo) {
    runs.computeIfAbsent(run.runId(), k -> new RunState()).pushed = true;
    String key = key(run, repo);
    String ranOut = expired.remove(key);
    late.remove(key);
    Pending p = pending.remove(key);
    if (p == null) {
      if (ranOut != null) {
        late.put(key, ranOut);
      }
      return Optional.empty();
    }
    // A fresh pre-mint (or one that failed, answered as such): this push is its advertisement's,
    // not the one of the token that ran out of time, whose waste stands.
    p.expiry().cancel(false);
    return p.lease().isCompletedExceptionally() ? Optional.empty() : Optional.of(p.lease());
  }

  /**
   * The push of {@code run} to {@code repo} that {@linkplain #take took} its token landed
   * upstream. If it minted its own because its pre-minted token had run out of time (git built a
   * large pack for longer than {@link #PENDING_FOR}), that token is not held against the run: no
   * loop made it, and the push minted and landed anyway. A push refused or aborted after its
   * commands never lands, and leaves the waste.
   */
  synchronized void landed(RunContext run, RepoSlug repo) {
    if (late.remove(key(run, repo)) == null) {
      return;
    }
    RunState state = runs.get(run.runId());
    if (state != null && state.wasted > 0) {
      state.wasted--;
    }
  }

  /**
   * A push of {@code run} to {@code repo} that mints nothing from its commands (malformed,
   * refused, or only asked for; an empty list is git's probe and does not come here): the pending
   * token is revoked now and counted as wasted.
   */
  void discard(RunContext run, RepoSlug repo) {
    synchronized (this) {
      // a push came, and minted nothing: a token that ran out of time before it stays wasted
      expired.remove(key(run, repo));
      late.remove(key(run, repo));
    }
    waste(key(run, repo), null);
  }

  /** The run ended: its pending tokens are revoked, and what was known of it forgotten. */
  void runEnded(String runId) {
    List<Pending> gone = new ArrayList<>();
    synchronized (this) {
      runs.remove(runId);
      expired.values().removeIf(runId::equals);
      late.values().removeIf(runId::equals);
      pending.values().removeIf(p -> p.runId().equals(runId) && gone.add(p));
    }
    gone.forEach(PreMints::revoke);
  }

  /** Revokes every pending token. */
  @Override
  public void close() {
    List<Pending> gone;
    synchronized (this) {
      gone = List.copyOf(pending.values());
      pending.clear();
    }
    gone.forEach(PreMints::revoke);
  }

  /** Pending tokens now, of every run. */
  synchronized int pending() {
    return pending.size();
  }

  /**
   * Revokes the token pending under {@code key} unused, and counts it against its run; {@code
   * only} non-null: only if it is that one (its time is up, a later one is not).
   */
  private void waste(String key, CompletableFuture<WriteTokenLease> only) {
    Pending p;
    synchronized (this) {
      p = pending.get(key);
      if (p == null || only != null && p.lease() != only) {
        return;
      }
      pending.remove(key);
      countWasted(p.runId());
      if (only != null && p.lease().isDone() && !p.lease().isCompletedExceptionally()) {
        // a token that ran out of time unused: forgiven if its push still lands. One whose mint
        // had not answered yet may still fail, and a failed pre-mint stays wasted.
        expired.put(key, p.runId());
      }
    }
    p.expiry().cancel(false);
    revoke(p);
  }

  /**
   * The pre-mint pending under {@code key} failed: no token to wait for. One GitHub failed
   * counts as wasted, or a loop of advertisements would call GitHub every time; one the run's
   * budget refused before any call (the gateway's own refusal) costs nothing and does not.
   */
  private synchronized void failed(String key, Pending p, Throwable e) {
    if (!pending.remove(key, p)) {
      return; // taken meanwhile: the push that took it answers the failure
    }
    p.expiry().cancel(false);
    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    if (!(cause instanceof UpstreamException u && u.forThePersonPushing())) {
      countWasted(p.runId());
    }
  }

  /** Guarded by this. */
  private void countWasted(String runId) {
    RunState state = runs.get(runId);
    if (state != null && ++state.wasted == WASTED_AT_MOST) {
      log.info("run {}: {} write tokens minted at an advertisement went unused or failed; its"
          + " pushes' tokens are minted once their commands are read from now on", runId,
          WASTED_AT_MOST);
    }
  }

  /** Guarded by this: the run's tokens pending now. */
  private long pendingOf(String runId) {
    return pending.values().stream().filter(p -> p.runId().equals(runId)).count();
  }

  private static void revoke(Pending p) {
    p.lease().thenAccept(WriteTokenLease::close);
  }

  private static String key(RunContext run, RepoSlug repo) {
    return run.runId() + "\n" + repo.key();
  }
}
