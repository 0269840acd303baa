package dev.pushgate.appliance.runs;

import dev.pushgate.appliance.store.Ledger;
import dev.pushgate.broker.BrokerException;
import dev.pushgate.broker.GitHubApp;
import dev.pushgate.broker.InstallationToken;
import dev.pushgate.gateway.WriteTokenLease;
import dev.pushgate.types.RepoSlug;
import dev.pushgate.types.Secret;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The upstream tokens of runs: read tokens issued and re-issued before they expire, one write
 * token per push revoked once the push is answered, and every revocation retried until GitHub
 * confirms it. A token is in the ledger before anyone holds it, so that none outlives a crash: the
 * ledger's live credentials are what the retries work from.
 */
final class RunCredentials {
  private static final Logger log = LoggerFactory.getLogger(RunCredentials.class);

  /** What one pass of revocations came to. */
  record Revoked(int confirmed, int pending) {}

  /** The upstream tokens one live run holds; their refresh is serialised per run. */
  static final class Held {
    private final String runId;
    private final Map<String, Long> repositoryIds = new ConcurrentHashMap<>();
    private final Map<String, InstallationToken> syncTokens = new ConcurrentHashMap<>();
    private volatile InstallationToken readToken;

    Held(String runId) {
      this.runId = runId;
    }
  }

  private final Ledger ledger;
  private final GitHubApp broker;
  private final Clock clock;
  private final Duration refreshBefore;
  /**
   * Write tokens of live runs whose revocation after their push failed, by ledger id: the sweeper
   * retries them, rather than leaving them alive until their run ends.
   */
  private final Map<Long, Secret> unrevokedWriteTokens = new ConcurrentHashMap<>();
  /**
   * Revokes a push's write token once the push has been answered, so that git does not wait for
   * it. A token whose revocation has not run when the appliance stops stays in the ledger and is
   * revoked when the appliance starts again, or at its run's teardown at the latest.
   */
  private final ExecutorService revoker =
      Executors.newSingleThreadExecutor(daemon("pushgate-revoker"));

  /** How long a teardown waits for the revocations queued before it. */
  private static final Duration QUEUED_REVOCATIONS_WAIT = Duration.ofSeconds(10);

  private static final int READ_MINTERS = 8;

  /**
   * Mints new runs' read tokens while their creation does the rest (the run CA, the files): a
   * mint waits on the forge most of its time. Bounded: a few threads, whatever the number of runs.
   */
  private final ExecutorService readMints = new ThreadPoolExecutor(READ_MINTERS, READ_MINTERS,
      30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), daemon("pushgate-read-mint"));

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  RunCredentials(Ledger ledger, GitHubApp broker, Clock clock, Duration refreshBefore) {
    this.ledger = ledger;
    this.broker = broker;
    this.clock = clock;
    this.refreshBefore = refreshBefore;
  }

  /** Fails unless the GitHub App is installed on {@code repo}. */
  void checkInstalled(RepoSlug repo) throws RunRequestException {
    try {
      broker.installationId(repo);
    } catch (BrokerException e) {
      if (e.reason() == BrokerException.Reason.NOT_INSTALLED) {
        throw new RunRequestException(RunRequestException.Status.BAD_REQUEST,
            "unknown repository " + repo + ": " + e.getMessage());
      }
      throw new RunRequestException(upstreamStatus(e), e.getMessage());
    }
  }

  /** Issues the run's first read token, on its own repository. */
  Secret issueReadToken(Held run, RepoSlug repo) throws BrokerException {
    run.readToken = issueRead(run, repo, "read");
    return run.readToken.token();
  }

  /**
   * {@link #issueReadToken} on another thread; {@link ReadMint#await} gives the token, recorded
   * in the ledger, or the mint's failure. A caller that gives up must still await it, so that a
   * token minted meanwhile is recorded before the run's credentials are revoked.
   */
  ReadMint startReadToken(Held run, RepoSlug repo) {
    return new ReadMint(readMints.submit(() -> issueReadToken(run, repo)));
  }

  /** A read token being minted. */
  static final class ReadMint {
    private final Future<Secret> mint;

    private ReadMint(Future<Secret> mint) {
      this.mint = mint;
    }

    /** The token once it is minted and recorded; waits without end, as the mint is bounded. */
    Secret await() throws BrokerException {
      boolean interrupted = false;
      try {
        while (true) {
          try {
            return mint.get();
          } catch (InterruptedException e) {
            interrupted = true; // the mint goes on: wait for it, then say so
          }
        }
      } catch (ExecutionException e) {
        if (e.getCause() instanceof BrokerException b) {
          throw b;
        }
        if (e.getCause() instanceof RuntimeException r) {
          throw r;
        }
        throw new IllegalStateException(e.getCause());
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /**
   * The tokens of a run taken back at start-up: its last read token as the ledger recorded it.
   *
   * @throws IllegalStateException when the ledger has no live read token for the run
   */
  Held resume(Ledger.RunRow row, Instant now) throws SQLException {
    Optional<Ledger.LiveCredential> read = ledger.liveCredentials(row.id()).stream()
        .filter(c -> c.kind().equals("read")).reduce((a, b) -> b);
    if (read.isEmpty()) {
      throw new IllegalStateException("no live read token");
    }
    Ledger.LiveCredential c = read.get();
    Held run = new Held(row.id());
    run.readToken = new InstallationToken(c.token(),
        c.expiresAt() == null ? now : c.expiresAt(),
        row.repositoryId() == null ? 1 : row.repositoryId(), Map.of());
    return run;
  }

  /** A write token still live belonged to a push a crash cut short: it serves nothing now. */
  void revokeCutShortWrites(String runId) throws SQLException {
    for (Ledger.LiveCredential w : ledger.liveCredentials(runId)) {
      if (w.kind().equals("write") && !revokeRecorded(w.id(), w.token())) {
        unrevokedWriteTokens.put(w.id(), w.token());
      }
    }
  }

  /** The run's current read token, re-issued when it is close to expiry. */
  Secret currentReadToken(Held run, RepoSlug repo) throws BrokerException {
    synchronized (run) {
      if (run.readToken.expiresAt().minus(refreshBefore).isBefore(clock.instant())) {
        InstallationToken old = run.readToken;
        run.readToken = issueRead(run, repo, "read");
        revokeQuietly(run.runId, old.token());
      }
      return run.readToken.token();
    }
  }

  /** A token that reads an attached repository, re-issued when it is close to expiry. */
  Secret syncToken(Held run, RepoSlug repo) throws BrokerException {
    synchronized (run) {
      InstallationToken t = run.syncTokens.get(repo.key());
      if (t == null || t.expiresAt().minus(refreshBefore).isBefore(clock.instant())) {
        t = issueRead(run, repo, "sync");
        run.syncTokens.put(repo.key(), t);
      }
      return t.token();
    }
  }

  /** Mints a write token for one push; closing the lease revokes it. */
  WriteTokenLease mintWriteToken(Held run, RepoSlug repo, boolean workflows)
      throws BrokerException {
    Long knownId = run.repositoryIds.get(repo.key());
    InstallationToken t = broker.issueWriteToken(repo,
        knownId == null ? OptionalLong.empty() : OptionalLong.of(knownId), workflows);
    run.repositoryIds.put(repo.key(), t.repositoryId());
    long ledgerId;
    try {
      ledgerId = ledger.recordCredential(run.runId, "write", repo.toString(), t.token(),
          clock.instant(), t.expiresAt());
    } catch (SQLException e) {
      // A token the ledger does not know could outlive a crash: never use it.
      revokeQuietly(run.runId, t.token());
      throw new BrokerException(BrokerException.Reason.UPSTREAM_ERROR,
          "the appliance cannot record a write token in its ledger");
    }
    return new WriteTokenLease() {
      @Override
      public Secret token() {
        return t.token();
      }

      @Override
      public void close() {
        revoker.execute(() -> {
          if (!revokeRecorded(ledgerId, t.token())) {
            unrevokedWriteTokens.put(ledgerId, t.token());
          }
        });
      }
    };
  }

  /**
   * Revokes every live credential of an ending run, reporting each; what fails is retried. The
   * revocations already queued go first: the run's end has just queued its pre-minted tokens'
   * (the gateway's {@code runEnded}), and a token revoked there is no longer live in the ledger,
   * so it is not revoked twice (a second call GitHub answers 401).
   */
  List<Runs.Revocation> revokeAll(String runId) {
    awaitQueuedRevocations();
    List<Runs.Revocation> out = new ArrayList<>();
    List<Ledger.LiveCredential> live;
    try {
      live = ledger.liveCredentials(runId);
    } catch (SQLException e) {
      log.error("cannot read the ledger for run {}", runId, e);
      return out;
    }
    for (Ledger.LiveCredential c : live) {
      String error = revokeReporting(c.id(), c.token());
      out.add(new Runs.Revocation(c.kind(), c.repository(), error == null, error));
    }
    out.add(new Runs.Revocation("gateway", null, true, null));
    return out;
  }

  /**
   * Waits, up to {@link #QUEUED_REVOCATIONS_WAIT}, for the revocations queued so far (the
   * revoker runs them in order). Past it the teardown goes on: a token revoked twice is one
   * extra call, a teardown held up is worse.
   */
  private void awaitQueuedRevocations() {
    try {
      revoker.submit(() -> { }).get(QUEUED_REVOCATIONS_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException | ExecutionException | TimeoutException e) {
      log.debug("revocations still queued at a run's teardown: {}", e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Retries the write tokens of live runs whose revocation after their push failed. */
  void retryFailedWriteRevocations() {
    unrevokedWriteTokens.entrySet()
        .removeIf(e -> revokeRecorded(e.getKey(), e.getValue()));
  }

  /**
   * Revokes live credentials whose run has ended. A run {@code heldInMemory} is not ended, and
   * neither is one being created: its first token is recorded before it is live in memory.
   */
  Revoked revokeOrphans(Predicate<String> heldInMemory) throws SQLException {
    int ok = 0;
    int pending = 0;
    Instant now = clock.instant();
    // Only those of runs not live in the ledger: a live run's row is there before its token.
    for (Ledger.LiveCredential c : ledger.revocableCredentials(now)) {
      if (heldInMemory.test(c.runId())) {
        continue; // expired here but not yet ended: the sweep ends it, revoking what it held
      }
      if (revokeRecorded(c.id(), c.token())) {
        ok++;
      } else {
        pending++;
      }
    }
    return new Revoked(ok, pending);
  }

  /** Waits a little for revocations under way; what is left is revoked at teardown. */
  void close() {
    readMints.shutdown();
    revoker.shutdown();
    try {
      if (!revoker.awaitTermination(10, TimeUnit.SECONDS)) {
        log.warn("write tokens still being revoked at shutdown; their runs' teardown revokes them");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static RunRequestException.Status upstreamStatus(BrokerException e) {
    return switch (e.reason()) {
      case NOT_INSTALLED, VALIDATION_FAILED -> RunRequestException.Status.BAD_REQUEST;
      default -> RunRequestException.Status.UPSTREAM_UNAVAILABLE;
    };
  }

  private boolean revokeRecorded(long ledgerId, Secret token) {
    return revokeReporting(ledgerId, token) == null;
  }

  /** Revokes and records the outcome; returns null when confirmed, else the error. */
  private String revokeReporting(long ledgerId, Secret token) {
    try {
      broker.revoke(token);
      ledger.markRevoked(ledgerId, clock.instant());
      return null;
    } catch (BrokerException e) {
      log.warn("revocation of credential {} failed, will retry: {}", ledgerId, e.getMessage());
      try {
        ledger.markRevokeFailed(ledgerId, e.getMessage());
      } catch (SQLException s) {
        log.error("cannot record a failed revocation", s);
      }
      return e.getMessage();
    } catch (SQLException e) {
      log.error("credential {} revoked but not recorded; it will be revoked again", ledgerId, e);
      return null;
    }
  }

  private InstallationToken issueRead(Held run, RepoSlug repo, String kind)
      throws BrokerException {
    Long knownId = run.repositoryIds.get(repo.key());
    InstallationToken t = broker.issueReadToken(repo,
        knownId == null ? OptionalLong.empty() : OptionalLong.of(knownId));
    run.repositoryIds.put(repo.key(), t.repositoryId());
    try {
      ledger.recordCredential(run.runId, kind, repo.toString(), t.token(), clock.instant(),
          t.expiresAt());
    } catch (SQLException e) {
      // A token the ledger does not know could outlive a crash: never hand it out.
      revokeQuietly(run.runId, t.token());
      throw new BrokerException(BrokerException.Reason.UPSTREAM_ERROR,
          "the appliance cannot record a token in its ledger");
    }
    return t;
  }

  private void revokeQuietly(String runId, Secret token) {
    try {
      broker.revoke(token);
    } catch (BrokerException e) {
      log.warn("run {}: a token could not be revoked at once: {}", runId, e.getMessage());
    }
  }
}
