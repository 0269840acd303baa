package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The bounded wait for one repository's cache lock: at most {@link
 * AdmissionLimits#waitersPerRepository} requests wait at once, each at most {@link
 * AdmissionLimits#repositoryWait}; the rest are shed at once ({@link RepositoryBusy}). Without
 * it, a crowd of pushes to one repository parked every request thread on the lock while its
 * holder synced (issue 35).
 */
final class RepositoryWaits {
  private final AdmissionLimits limits;
  private final ConcurrentHashMap<String, Integer> waiting = new ConcurrentHashMap<>();

  RepositoryWaits(AdmissionLimits limits) {
    this.limits = limits;
  }

  /**
   * Takes {@code lock} once no fetch is pending ({@code pending} gives the latest, or null), so
   * that at most one is, within the wait's bound.
   *
   * @throws RepositoryBusy when too many wait already, or this wait ran out; the lock is not held
   */
  void lockWithNoFetchPending(RepoSlug repo, ReentrantLock lock,
      Supplier<CompletableFuture<Void>> pending) throws RepositoryBusy {
    if (lock.tryLock()) {
      if (noneRunning(pending.get())) {
        return;
      }
      lock.unlock();
    }
    enter(repo);
    try {
      long end = System.nanoTime() + limits.repositoryWait().toNanos();
      for (;;) {
        CompletableFuture<Void> p = pending.get();
        if (!noneRunning(p)) {
          awaitQuietly(repo, p, end); // whether it failed, the caller decides afresh
        }
        if (!lock.tryLock(left(repo, end), TimeUnit.NANOSECONDS)) {
          throw timedOut(repo);
        }
        if (noneRunning(pending.get())) {
          return;
        }
        lock.unlock(); // another sync started one meanwhile
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RepositoryBusy("interrupted while waiting for " + repo
          + "; nothing was done, retry");
    } finally {
      waiting.computeIfPresent(repo.key(), (k, n) -> n <= 1 ? null : n - 1);
    }
  }

  /** Requests waiting for {@code repo}'s lock now. */
  int waiting(RepoSlug repo) {
    return waiting.getOrDefault(repo.key(), 0);
  }

  private static boolean noneRunning(CompletableFuture<Void> p) {
    return p == null || p.isDone();
  }

  private void enter(RepoSlug repo) throws RepositoryBusy {
    boolean[] admitted = {false};
    waiting.compute(repo.key(), (k, n) -> {
      int now = n == null ? 0 : n;
      if (now >= limits.waitersPerRepository()) {
        return n;
      }
      admitted[0] = true;
      return now + 1;
    });
    if (!admitted[0]) {
      throw new RepositoryBusy("the gateway is busy with " + repo + ": "
          + limits.waitersPerRepository() + " requests wait for it already; nothing was done,"
          + " retry in a few seconds");
    }
  }

  private void awaitQuietly(RepoSlug repo, CompletableFuture<Void> p, long end)
      throws RepositoryBusy, InterruptedException {
    try {
      p.get(left(repo, end), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      // failed: the caller decides afresh
    } catch (TimeoutException e) {
      throw timedOut(repo);
    }
  }

  private long left(RepoSlug repo, long end) throws RepositoryBusy {
    long left = end - System.nanoTime();
    if (left <= 0) {
      throw timedOut(repo);
    }
    return left;
  }

  private RepositoryBusy timedOut(RepoSlug repo) {
    return new RepositoryBusy("the gateway is busy with " + repo + ": waited "
        + seconds(limits.repositoryWait()) + " for the requests ahead; nothing was done,"
        + " retry in a few seconds");
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }
}
