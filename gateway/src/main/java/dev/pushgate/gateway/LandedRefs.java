package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
  /** Pushes upstream took, per repository, not yet written to its cache. */
  private final ConcurrentHashMap<String, Queue<Landing>> landed = new ConcurrentHashMap<>();
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
   * ref is not written yet. The push's {@code pack}, where it is held in memory, is written into
   * the cache, and forced to disk, just before the refs (and its memory given back after).
   */
  void landed(RepoSlug repo, List<ReceiveCommand> commands, Optional<ReceivedInMemory> pack) {
    if (commands.isEmpty()) {
      pack.ifPresent(ReceivedInMemory::release);
      return;
    }
    pack.ifPresent(ReceivedInMemory::handOver);
    landed.computeIfAbsent(repo.key(), k -> new ConcurrentLinkedQueue<>())
        .add(new Landing(List.copyOf(commands), pack));
  }

  /** A push upstream took: its ref updates, and its pack if the cache does not hold it yet. */
  private record Landing(List<ReceiveCommand> commands, Optional<ReceivedInMemory> pack) {}

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
    Queue<Landing> pending = landed.get(repo.key());
    if (pending == null || pending.isEmpty()) {
      return;
    }
    List<Landing> taken = new ArrayList<>();
    for (Landing l; (l = pending.poll()) != null; ) {
      taken.add(l);
    }
    try (Repository cache = repositories.open(repo)) {
      // The pushes' packs first, each forced to disk: no ref of the cache names an object a
      // crash could lose. A push whose pack could not be written lands no ref: the cache is only
      // a cache, and the next sync fetches what upstream has.
      List<Landing> stored = new ArrayList<>();
      for (Landing l : taken) {
        if (store(cache, l, repo)) {
          stored.add(l);
        }
      }
      CacheRepository.forceReceived(cache);
      for (Landing l : stored) {
        l.commands().forEach(c -> setRef(cache, c));
      }
      if (stored.stream().anyMatch(l -> l.pack().isPresent())) {
        readPacks(cache, repo);
      }
    } catch (IOException e) {
      log.warn("could not record a push in the cache of {}: {}", repo, e.getMessage());
    } finally {
      taken.forEach(l -> l.pack().ifPresent(ReceivedInMemory::release));
    }
  }

  /**
   * The cache's pack list read again here, under the lock, rather than at the next push's first
   * new object; a failure only leaves that to the next push.
   */
  private static void readPacks(Repository cache, RepoSlug repo) {
    try {
      CacheRepository.readPacks(cache);
    } catch (IOException e) {
      log.debug("could not read the pack list of the cache of {} again: {}", repo,
          e.getMessage());
    }
  }

  /** Writes a landing's pack held in memory into {@code cache}; whether its refs may land. */
  private static boolean store(Repository cache, Landing landing, RepoSlug repo) {
    if (landing.pack().isEmpty()) {
      return true;
    }
    if (!(cache instanceof CacheRepository c)) {
      return false;
    }
    try {
      landing.pack().get().installInto(c);
      return true;
    } catch (IOException e) {
      log.warn("could not write a pushed pack into the cache of {}: {}; its refs are fetched"
          + " again", repo, e.getMessage());
      return false;
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
    landed.values().forEach(q -> q.forEach(l -> l.pack().ifPresent(ReceivedInMemory::release)));
  }
}
