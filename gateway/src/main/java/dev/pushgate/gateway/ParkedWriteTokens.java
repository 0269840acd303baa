package dev.pushgate.gateway;

import dev.pushgate.broker.RepoSlug;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Write tokens whose mint starts when git asks for a push's advertisement, for the push that git
 * sends next. Minting is a round trip to GitHub; started at the advertisement, it runs while git
 * works out what to send, instead of while the push waits. Each token still serves one push at
 * most and is revoked right after it; one no push takes within {@link #maxAge} (git found
 * nothing to send, or a dry run) is revoked unused.
 *
 * <p>At most one token waits per run and repository: concurrent pushes of one run to one
 * repository take turns with it, and the others mint their own.
 */
final class ParkedWriteTokens implements AutoCloseable {
  private record Parked(EarlyWriteToken token, long parkedAt) {}

  private final Map<String, Parked> parked = new ConcurrentHashMap<>();
  private final long maxAgeNanos;
  private final ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "pushgate-token-sweep");
    t.setDaemon(true);
    return t;
  });

  ParkedWriteTokens(Duration maxAge) {
    this.maxAgeNanos = maxAge.toNanos();
    long every = Math.max(100, maxAge.toMillis() / 2);
    sweeper.scheduleWithFixedDelay(this::sweep, every, every, TimeUnit.MILLISECONDS);
  }

  /** Starts a mint for the next push of {@code run} to {@code repo}, unless one waits already. */
  void mintAhead(RunContext run, RepoSlug repo, Supplier<EarlyWriteToken> mint) {
    parked.computeIfAbsent(key(run, repo), k -> new Parked(mint.get(), System.nanoTime()));
  }

  /** The token minted ahead for this push, or a mint started now. */
  EarlyWriteToken take(RunContext run, RepoSlug repo, Supplier<EarlyWriteToken> mint) {
    Parked p = parked.remove(key(run, repo));
    if (p != null && System.nanoTime() - p.parkedAt() <= maxAgeNanos) {
      return p.token();
    }
    if (p != null) {
      p.token().releaseIfUnused();
    }
    return mint.get();
  }

  /** Revokes the token minted ahead for a push that will not use it (refused before its pack). */
  void discard(RunContext run, RepoSlug repo) {
    Parked p = parked.remove(key(run, repo));
    if (p != null) {
      p.token().releaseIfUnused();
    }
  }

  private void sweep() {
    long now = System.nanoTime();
    parked.forEach((k, p) -> {
      if (now - p.parkedAt() > maxAgeNanos && parked.remove(k, p)) {
        p.token().releaseIfUnused();
      }
    });
  }

  /** Revokes every token still waiting. */
  @Override
  public void close() {
    sweeper.shutdownNow();
    parked.keySet().forEach(k -> {
      Parked p = parked.remove(k);
      if (p != null) {
        p.token().releaseIfUnused();
      }
    });
  }

  private static String key(RunContext run, RepoSlug repo) {
    return run.runId() + "\n" + repo.key();
  }
}
