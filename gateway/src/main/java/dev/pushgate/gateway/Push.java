package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import jakarta.servlet.ServletRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One push, from the filter that authenticated it to the hook that forwarded it: the run, the
 * repository, its command list as read before the pack and judged once, the write tokens minted
 * for it, and the copy streamed upstream while it arrives, if any, which the cache's pack parser
 * is handed through the push ({@link #packCopy}). It crosses into JGit as the
 * one request attribute {@link #ATTRIBUTE}.
 *
 * <p>The push owns its write tokens: every token minted for it is revoked by {@link
 * #revokeWriteTokens}, exactly once, at the latest when the push is {@linkplain #close closed},
 * whichever way it went. Once upstream has answered, the push hook {@linkplain #retireWriteTokens
 * retires} them: none is handed out again, and they are revoked at the close, after git's answer
 * is written, with the work the push leaves for after it ({@link #afterAnswer}).
 */
final class Push implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Push.class);
  static final String ATTRIBUTE = Push.class.getName();

  private final RunContext run;
  private final RepoSlug repo;
  private final Optional<JudgedCommands> judged;
  private final UpstreamAccess upstream;
  /** The token minted while the pack arrives, without the workflows permission; or null. */
  private CompletableFuture<WriteTokenLease> mintedAhead;
  /** Tokens minted once the push was judged. */
  private final List<WriteTokenLease> minted = new ArrayList<>();
  private boolean revoked;
  /** True once upstream has answered: the tokens are no longer handed out, only revoked. */
  private boolean retired;
  private StreamedForward streamed;
  /** What the cache's pack parser hands the pack to, for {@link #streamed}. */
  private PackCopy parsedInto;
  private final Verdict.PushJudge judge;
  /** Upstream's refs, for an advertisement made while the cache fetches them; or null. */
  private Map<String, ObjectId> upstreamRefs;
  /** True once the push hook has audited the push's commands. */
  private volatile boolean audited;
  /** The push's judgement's budget, once asked for ({@link #judgementBudget}); or null. */
  private JudgementBudget judgementBudget;
  /** Why the pack was not received whole, when it was not; or null. */
  private volatile EarlyRefusal.Unreceived unreceived;
  /** Started when the push closes, after its answer: work no step of the push waits for. */
  private final List<Runnable> afterAnswer = new ArrayList<>();
  /** Told once the push has landed upstream (PreMints' forgiveness of a late push). */
  private volatile Runnable whenLanded = () -> {};
  /** True once the git client has gone: its judgement is then abandoned. */
  private volatile java.util.function.BooleanSupplier clientGone = () -> false;

  /**
   * @param judged the command list as read before the pack, empty when it could not be read
   *     (JGit then reads it, and the hook judges each command as received)
   * @param upstream where the push's write tokens are minted
   */
  Push(RunContext run, RepoSlug repo, Optional<JudgedCommands> judged, UpstreamAccess upstream) {
    // a lambda, not run::judgePush: the run is asked when a command is judged, not before
    this(run, repo, judged, (ref, kind) -> run.judgePush(ref, kind), upstream);
  }

  /**
   * @param judge what judges a command JGit received that {@code judged} does not hold: the
   *     one that judged {@code judged}
   */
  Push(RunContext run, RepoSlug repo, Optional<JudgedCommands> judged, Verdict.PushJudge judge,
      UpstreamAccess upstream) {
    this.run = run;
    this.repo = repo;
    this.judged = Objects.requireNonNull(judged, "judged");
    this.judge = Objects.requireNonNull(judge, "judge");
    this.upstream = upstream;
  }

  /** The push the filter left on {@code req}, if it did. */
  static Optional<Push> of(ServletRequest req) {
    return req.getAttribute(ATTRIBUTE) instanceof Push p ? Optional.of(p) : Optional.empty();
  }

  /** Leaves this push on {@code req}, for the receive-pack JGit sets up for it. */
  void attachTo(ServletRequest req) {
    req.setAttribute(ATTRIBUTE, this);
  }

  /** Watches {@code req}'s connection: a push whose client has gone is not judged further. */
  void watchClient(ServletRequest req) {
    clientGone = ClientGone.of(req);
  }

  /**
   * The budget of this push's judgement: {@code budget} long, while its client is there and the
   * gateway is not {@code stopping}. One for the push, from its first use on: what its thin
   * pack's bases reach ({@link Reach}, while the pack is received) and its content (the push
   * hook) spend the same budget.
   */
  synchronized JudgementBudget judgementBudget(java.time.Duration budget,
      java.util.function.BooleanSupplier stopping) {
    if (judgementBudget == null) {
      judgementBudget = new JudgementBudget(budget, clientGone, stopping);
    }
    return judgementBudget;
  }

  RunContext run() {
    return run;
  }

  RepoSlug repo() {
    return repo;
  }

  Optional<JudgedCommands> judged() {
    return judged;
  }

  /**
   * The rules' verdict on a command JGit received: the one judged before the pack, or, for a list
   * the filter could not read, judged now.
   */
  Verdict verdictOf(ReceiveCommand cmd) {
    return judged.flatMap(j -> j.verdictOf(cmd.getRefName(), cmd.getOldId(), cmd.getNewId()))
        .orElseGet(() -> Verdict.of(judge, cmd.getRefName(), cmd.getOldId(),
            cmd.getNewId()));
  }

  /** Notes that the push hook wrote the audit records of this push's commands. */
  void markAudited() {
    audited = true;
  }

  boolean audited() {
    return audited;
  }

  /**
   * Notes why the push ended before its pack was received and checked (JGit's receive failed, so
   * its hook never ran): the filter then audits its commands with this reason.
   */
  void unreceived(RefusalCode code, String reason) {
    unreceived = new EarlyRefusal.Unreceived(code, reason);
  }

  /** Why the pack was not received, if {@link #unreceived} was told. */
  Optional<EarlyRefusal.Unreceived> whyUnreceived() {
    return Optional.ofNullable(unreceived);
  }

  /** Starts minting the push's token (without the workflows permission) on {@code executor}. */
  void mintAhead(Executor executor) {
    mintAhead(Optional.empty(), executor);
  }

  /**
   * Gives the push its token (without the workflows permission): the one {@code preMinted} at
   * the advertisement, if there is one, else one whose mint starts now on {@code executor}.
   */
  synchronized void mintAhead(Optional<CompletableFuture<WriteTokenLease>> preMinted,
      Executor executor) {
    if (mintedAhead != null || revoked) {
      preMinted.ifPresent(l -> l.thenAccept(WriteTokenLease::close));
      throw new IllegalStateException("a token is minted ahead once, before the push ends");
    }
    mintedAhead = preMinted.orElseGet(() -> CompletableFuture.supplyAsync(() -> {
      try {
        return upstream.mintWriteToken(run, repo, false);
      } catch (UpstreamException e) {
        throw new CompletionException(e);
      }
    }, executor));
  }

  /**
   * A write token for this push: the one minted ahead when it fits ({@code workflows} false),
   * waiting for its mint if needed; otherwise one minted now. The push keeps it, and revokes it.
   */
  WriteTokenLease writeToken(boolean workflows) throws UpstreamException {
    CompletableFuture<WriteTokenLease> ahead;
    synchronized (this) {
      ensureNotRevoked();
      ahead = workflows ? null : mintedAhead;
    }
    if (ahead == null) {
      WriteTokenLease lease = upstream.mintWriteToken(run, repo, workflows);
      synchronized (this) {
        minted.add(lease);
        if (revoked) {
          lease.close();
          throw new UpstreamException("the push ended while its write token was minted");
        }
        if (retired) { // revoked at the close, with the others
          throw new UpstreamException("upstream answered while the write token was minted");
        }
      }
      return lease;
    }
    try {
      return ahead.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UpstreamException("interrupted while the write token was minted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UpstreamException u) {
        throw u;
      }
      throw new UpstreamException("the write token could not be minted: "
          + e.getCause().getClass().getSimpleName(), e.getCause());
    }
  }

  private void ensureNotRevoked() throws UpstreamException {
    if (revoked || retired) {
      throw new UpstreamException("the push's write tokens were revoked already");
    }
  }

  /** What to tell once the push has landed upstream, if it does. */
  void whenLanded(Runnable then) {
    whenLanded = Objects.requireNonNull(then, "then");
  }

  /** Upstream accepted at least one of the push's commands. */
  void landed() {
    whenLanded.run();
  }

  /**
   * For an advertisement: shows {@code listed}, upstream's refs as just read, instead of the
   * cache's, which are still being brought to them.
   */
  synchronized void advertiseUpstream(Map<String, ObjectId> listed) {
    upstreamRefs = Map.copyOf(listed);
  }

  /** What {@link #advertiseUpstream} was given, if it was. */
  synchronized Optional<Map<String, ObjectId>> upstreamRefs() {
    return Optional.ofNullable(upstreamRefs);
  }

  /** The copy streamed upstream while the pack arrives, if the push is streamed. */
  synchronized Optional<StreamedForward> streamed() {
    return Optional.ofNullable(streamed);
  }

  /**
   * What the cache's pack parser hands the pack as it consumes it ({@link ReceivingCache}): the
   * streamed copy, or nothing when the push is not streamed.
   */
  synchronized PackCopy packCopy() {
    return streamed == null ? PackCopy.NONE : parsedInto;
  }

  synchronized void stream(StreamedForward forward) {
    stream(forward, forward);
  }

  /**
   * Streams the push through {@code forward}, which the parser feeds through {@code parsed}: the
   * copy itself, or the copy after the bytes sent ahead of the parser ({@link EarlyPack#resume}).
   */
  synchronized void stream(StreamedForward forward, PackCopy parsed) {
    if (streamed != null) {
      throw new IllegalStateException("a push is streamed once");
    }
    streamed = forward;
    parsedInto = parsed;
  }

  /**
   * Upstream has answered: no token of this push is handed out after this, and every one minted
   * for it is revoked when the push {@linkplain #close closes}. That is once JGit has written git's
   * answer (the filter closes the push after the servlet), so that the revocation's round trip
   * to the git host and its ledger transaction do not run beside the push's last steps on the
   * machine's cores; a crash before it leaves the tokens live in the ledger, for the run's
   * teardown to revoke, as a crash with a revocation queued did.
   */
  synchronized void retireWriteTokens() {
    retired = true;
  }

  /**
   * Runs {@code then} when the push closes, after its answer, once its tokens' revocation is
   * started: for work that must happen but that git's answer does not wait for (the landed refs'
   * write, the audit's outcome records). Each runs whether or not one before it failed.
   */
  synchronized void afterAnswer(Runnable then) {
    afterAnswer.add(Objects.requireNonNull(then, "then"));
  }

  /**
   * Revokes every token minted for the push, once; the one minted ahead as soon as its mint is
   * done. Upstream has answered, or never will: no token of this push is used after this.
   */
  void revokeWriteTokens() {
    List<WriteTokenLease> leases;
    CompletableFuture<WriteTokenLease> ahead;
    synchronized (this) {
      if (revoked) {
        return;
      }
      revoked = true;
      leases = List.copyOf(minted);
      ahead = mintedAhead;
    }
    if (ahead != null) {
      ahead.thenAccept(WriteTokenLease::close);
    }
    leases.forEach(WriteTokenLease::close);
  }

  /**
   * Ends the push: an unfinished streamed copy is broken off before its trailer (upstream applies
   * nothing), then whatever token is left is revoked.
   */
  @Override
  public void close() {
    try {
      StreamedForward s = streamed().orElse(null);
      if (s != null) {
        s.close();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      revokeWriteTokens();
      List<Runnable> then;
      synchronized (this) {
        then = List.copyOf(afterAnswer);
        afterAnswer.clear();
      }
      for (Runnable r : then) {
        try {
          r.run();
        } catch (RuntimeException e) { // each one's failure is its own: the others still run
          log.error("run {}: work after the answer to a push to {} failed", run.runId(), repo, e);
        }
      }
    }
  }
}
