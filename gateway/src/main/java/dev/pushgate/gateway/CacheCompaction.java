package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.internal.storage.file.GC;
import org.eclipse.jgit.lib.Repository;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every push leaves one pack in the cache and every fetch another. JGit searches each for every
 * object a push brings, and lists them all again whenever one was added. Past
 * {@link #COMPACT_ABOVE_PACKS}, counted at every sync, the cache is repacked in the background,
 * under the same lock as a sync. A push in flight is safe: JGit keeps the pack it received with
 * a .keep file until the push is answered, forwarding and any wait for an approver included.
 * What a refused push left behind is unreachable and goes.
 */
final class CacheCompaction {
  private static final Logger log = LoggerFactory.getLogger(CacheCompaction.class);
  static final int COMPACT_ABOVE_PACKS = 40;

  private final CacheRepositories repositories;
  private final LandedRefs landed;
  private final Set<String> compacting = ConcurrentHashMap.newKeySet();
  /** Fetches being served from each repository's cache ({@link #reading}). */
  private final ConcurrentHashMap<String, Integer> readers = new ConcurrentHashMap<>();
  /** Compaction is rare and must not load both cores. */
  private final ThreadPoolExecutor maintenance =
      CacheThreads.oneWhenBusy("pushgate-cache-gc", Thread.MIN_PRIORITY);

  CacheCompaction(CacheRepositories repositories, LandedRefs landed) {
    this.repositories = repositories;
    this.landed = landed;
  }

  /**
   * Marks a fetch of {@code repo} served from the cache until the answer is closed: compaction,
   * which deletes the packs it replaces, waits for a repository nobody is reading. Taken under the
   * repository's lock, so a compaction either started before (and finished) or sees the reader.
   */
  AutoCloseable reading(RepoSlug repo) {
    ReentrantLock lock = repositories.lockOf(repo);
    lock.lock();
    try {
      readers.merge(repo.key(), 1, Integer::sum);
    } finally {
      lock.unlock();
    }
    boolean[] closed = {false};
    return () -> {
      if (!closed[0]) {
        closed[0] = true;
        readers.computeIfPresent(repo.key(), (k, n) -> n <= 1 ? null : n - 1);
      }
    };
  }

  /** Counts {@code repo}'s packs in the background, and compacts it past the bound. */
  void compactIfCrowded(RepoSlug repo) {
    if (!compacting.add(repo.key())) {
      return; // a count or a compaction is queued or running
    }
    // Counted in the background too: the pack directory changed with the last push, so JGit
    // would list it again here, on the way to the advertisement.
    maintenance.execute(() -> {
      try {
        if (packFiles(repo) > COMPACT_ABOVE_PACKS) {
          compact(repo);
        }
      } finally {
        compacting.remove(repo.key());
      }
    });
  }

  private void compact(RepoSlug repo) {
    ReentrantLock lock = repositories.lockOf(repo);
    lock.lock();
    long start = System.nanoTime();
    try (Repository cache = repositories.open(repo)) {
      landed.write(repo);
      if (readers.containsKey(repo.key())) {
        // replaced packs would go from under a clone; the next sync counts again
        log.debug("not compacting the cache of {} while a fetch reads it", repo);
        return;
      }
      int before = packFiles(repo);
      GC gc = new GC((FileRepository) cache);
      // Replaced packs go at once, or each later compaction would find them all again.
      gc.setPackExpireAgeMillis(0);
      // Objects only: packing refs would race the advertisements read outside the lock (a ref
      // briefly read from the old packed-refs after its loose file went), and an advertisement
      // older than upstream fails the push as stale.
      gc.repack();
      log.info("compacted the cache of {}: {} packs -> {} in {} ms", repo, before,
          packFiles(repo), (System.nanoTime() - start) / 1_000_000);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      log.warn("could not compact the cache of {}: {}", repo, e.getMessage());
    } finally {
      lock.unlock();
    }
  }

  private int packFiles(RepoSlug repo) {
    int n = 0;
    try (DirectoryStream<Path> packs = Files.newDirectoryStream(
        repositories.directoryOf(repo).resolve("objects/pack"), "*.pack")) {
      for (Path ignored : packs) {
        n++;
      }
    } catch (IOException e) {
      log.debug("could not count the packs of the cache of {}: {}", repo, e.getMessage());
    }
    return n;
  }

  /** Stops compaction. */
  void close() {
    maintenance.shutdownNow();
  }
}
