package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ref updates upstream took for pushes through the gateway, written to the fetch cache after
 * the pushes are answered. Whatever holds a repository's lock (a sync, a compaction) calls
 * {@link #write} first.
 */
final class LandedRefs {
  private static final Logger log = LoggerFactory.getLogger(LandedRefs.class);

  private final CacheRepositories repositories;
  /** Ref updates upstream took, per repository, not yet written to its cache. */
  private final ConcurrentHashMap<String, Queue<ReceiveCommand>> landed = new ConcurrentHashMap<>();
  /** Writes them after the pushes are answered. */
  private final ThreadPoolExecutor refWriter =
      CacheThreads.oneWhenBusy("pushgate-cache-refs", Thread.NORM_PRIORITY);

  LandedRefs(CacheRepositories repositories) {
    this.repositories = repositories;
  }

  /**
   * Records that upstream took {@code commands}, so that the next advertisement shows them
   * without a fetch. They are written by {@link #writeInBackground}, called once the push is
   * answered, which spares the push a ref update on disk (and its forcing of the pack) and keeps
   * that work off the cores while the push's answer is written. Whatever holds the repository's
   * lock (a sync, a compaction) writes what is still pending first: no advertisement predates a
   * push answered before it was asked for, and no compaction drops the objects of a push whose
   * ref is not written yet.
   */
  void landed(RepoSlug repo, List<ReceiveCommand> commands) {
    if (commands.isEmpty()) {
      return;
    }
    landed.computeIfAbsent(repo.key(), k -> new ConcurrentLinkedQueue<>()).addAll(commands);
  }

  /** Writes what is pending for {@code repo} on the background writer, under its lock. */
  void writeInBackground(RepoSlug repo) {
    writeInBackgroundThen(repo, () -> {});
  }

  /**
   * Writes what is pending for {@code repo} on the background writer, under its lock, then runs
   * {@code then} under the same lock: for a pushed pack's {@code .keep}, which must not go while
   * a compaction runs. A compaction decides which packs it may replace when it starts and writes
   * the pending refs then; a pack whose {@code .keep} went during it would be deleted at its end
   * (JGit's {@code GC} looks again) with objects only the refs written after it reach.
   */
  void writeInBackgroundThen(RepoSlug repo, Runnable then) {
    try {
      refWriter.execute(() -> {
        ReentrantLock lock = repositories.lockOf(repo);
        try {
          lock.lockInterruptibly(); // as a compaction's wait: a stop ends it (writes stay pending)
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        try {
          write(repo);
          then.run();
        } finally {
          lock.unlock();
        }
      });
    } catch (RejectedExecutionException e) {
      // Never fails the push, which has landed: the next sync writes what is pending, and a
      // .keep left behind only keeps its pack until the next start sweeps it (StaleKeeps).
      log.warn("could not schedule the cache ref update of {}: {}", repo, e.toString());
    }
  }

  /** Writes what is pending for {@code repo}; under the repository's lock. */
  void write(RepoSlug repo) {
    Queue<ReceiveCommand> pending = landed.get(repo.key());
    if (pending == null || pending.isEmpty()) {
      return;
    }
    try (Repository cache = repositories.open(repo)) {
      // The pushes' packs first: no ref of the cache names an object a crash could lose.
      CacheRepository.forceReceived(cache);
      for (ReceiveCommand c; (c = pending.poll()) != null; ) {
        setRef(cache, c);
      }
    } catch (IOException e) {
      log.warn("could not record a push in the cache of {}: {}", repo, e.getMessage());
    }
  }

  private static void setRef(Repository cache, ReceiveCommand cmd) {
    try {
      RefUpdate ru = cache.updateRef(cmd.getRefName());
      ru.disableRefLog();
      ru.setForceUpdate(true);
      if (cmd.getType() == ReceiveCommand.Type.DELETE) {
        ru.delete();
      } else {
        ru.setExpectedOldObjectId(null);
        ru.setNewObjectId(cmd.getNewId());
        ru.update();
      }
    } catch (IOException e) {
      // The cache is only a cache: the next sync finds it differs and fetches from upstream.
      log.warn("could not update the cache ref {}: {}", cmd.getRefName(), e.getMessage());
    }
  }

  /**
   * Stops writing, waiting for a write under way ({@link CacheThreads#stop}); refs not written yet
   * are fetched by the next sync.
   */
  void close() {
    CacheThreads.stop(refWriter, "ref writer");
  }
}
