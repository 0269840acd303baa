package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.internal.storage.file.GC;
import org.eclipse.jgit.internal.storage.file.Pack;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.pack.PackConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every push leaves one pack in the cache and every fetch another. JGit searches each for every
 * object a push brings, and lists them all again whenever one was added. Past
 * {@link #COMPACT_ABOVE_PACKS}, counted at every sync, the cache is repacked in the background,
 * under the same lock as a sync. A push in flight is safe: JGit keeps the pack it received with
 * a .keep file until the push is answered (deleted when the push closes, just after its answer:
 * {@link CachePackParser}), forwarding and any wait for an approver included, and a compaction
 * walks from the commits of kept packs as from the refs, so what they build on stays too.
 * What a refused push left behind is unreachable and goes.
 *
 * <p>A compaction's work follows what came since, not the history, as {@code git repack
 * --geometric=2} does: a full compaction repacks every object the refs reach into a base
 * ({@link CompactionBase}); the next ones roll the packs that came since into one
 * ({@link PackRollUp}), walking down to the base and the earlier roll-ups it keeps and not into
 * them. The roll-ups kept form a geometric series (each at least twice the next,
 * {@link #levelsKept}), so a roll-up rewrites what came since and now and then the smaller
 * roll-ups above it; once everything above the base holds half as many objects as the base,
 * everything is repacked again (ever more rarely as the history grows). A full repack of a long
 * history at every 40 pushes was most of a small push's compaction CPU (issue 33), and on a cache
 * of a large repository would be minutes of it; so would a roll-up of everything since the base,
 * which could grow to half the history.
 *
 * <p>The compaction is for finding objects: a push's receive and the advertisement's connectivity
 * check look an object up in every pack. A bitmap index only speeds up counting the objects of a
 * clone or fetch of a long history, and building one was most of a compaction's CPU (issue 33:
 * 9 of its 11 samples, on a small repository, where a clone walks its few objects at once). So
 * the new pack has a bitmap only when the packs together are at least
 * {@link #BITMAPS_FROM_PACK_BYTES}; either way JGit indexes and checks the new pack before it
 * replaces the old ones.
 *
 * <p>Bitmaps also decide what a run reaches ({@link Reach}): without them, proving that an id
 * the cache holds is not reached reads the whole history, which a request's bound ends. A
 * repository whose decision went past its bound is compacted with bitmaps whatever its size and
 * pack count ({@link #compactWithBitmaps}), so that the next request is decided by them.
 */
final class CacheCompaction {
  private static final Logger log = LoggerFactory.getLogger(CacheCompaction.class);
  static final int COMPACT_ABOVE_PACKS = 40;
  /** Packs this large together hold a history whose clones a bitmap index speeds up. */
  static final long BITMAPS_FROM_PACK_BYTES = 32L << 20;
  /** The packs above the base are rolled up until they hold half as many objects as it. */
  private static final long FACTOR = 2;

  private final CacheRepositories repositories;
  private final LandedRefs landed;
  /** Repositories whose count (and compaction) is queued or running. */
  private final Set<String> compacting = ConcurrentHashMap.newKeySet();
  /** Repositories asked to be counted again, also while their count runs: none is lost. */
  private final Set<String> asked = ConcurrentHashMap.newKeySet();
  /** Repositories whose next compaction runs, and builds bitmaps, whatever their packs. */
  private final Set<String> wantBitmaps = ConcurrentHashMap.newKeySet();
  /** Repositories whose compaction was put off while fetches read them ({@link #reading}). */
  private final Set<String> deferred = ConcurrentHashMap.newKeySet();
  /** Fetches being served from each repository's cache ({@link #reading}). */
  private final ConcurrentHashMap<String, Integer> readers = new ConcurrentHashMap<>();
  /** Compaction is rare and must not load both cores. */
  private final ThreadPoolExecutor maintenance =
      CacheThreads.oneWhenBusy("pushgate-cache-gc", Thread.MIN_PRIORITY);

  private final long bitmapsFromPackBytes;
  private final CompactionBase baseRecord;

  CacheCompaction(CacheRepositories repositories, LandedRefs landed) {
    this(repositories, landed, BITMAPS_FROM_PACK_BYTES);
  }

  /** @param bitmapsFromPackBytes the packs' total size from which the new pack gets a bitmap */
  CacheCompaction(CacheRepositories repositories, LandedRefs landed, long bitmapsFromPackBytes) {
    this.repositories = repositories;
    this.landed = landed;
    this.bitmapsFromPackBytes = bitmapsFromPackBytes;
    this.baseRecord = new CompactionBase(repositories);
  }

  /**
   * Marks a fetch of {@code repo} served from the cache until the answer is closed: compaction,
   * which deletes the packs it replaces, waits for a repository nobody is reading. Taken under the
   * repository's lock, so a compaction either started before (and finished) or sees the reader.
   * A compaction put off for readers runs once the last of them has closed: the fetch whose
   * sync (or whose decision of what it reaches, {@link #compactWithBitmaps}) asked for it is one
   * of them, so waiting for the next sync alone put it off for as long as a run only fetched.
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
        boolean[] putOff = {false};
        // the map's own lock of the key: no compaction is put off between the two
        readers.computeIfPresent(repo.key(), (k, n) -> {
          if (n > 1) {
            return n - 1;
          }
          putOff[0] = deferred.remove(k);
          return null;
        });
        if (putOff[0]) {
          compactIfCrowded(repo);
        }
      }
    };
  }

  /** Whether a compaction of {@code repo} waits for the fetches reading it to close. */
  boolean putOff(RepoSlug repo) {
    return deferred.contains(repo.key());
  }

  /**
   * Compacts {@code repo} in the background with a bitmap index, however few or small its packs:
   * a decision of what a run reaches went past its bound ({@link Reach}). Put off while a fetch
   * reads the cache, as any compaction, until the last such fetch is answered.
   */
  void compactWithBitmaps(RepoSlug repo) {
    if (wantBitmaps.add(repo.key())) {
      log.info("compacting the cache of {} with a bitmap index: deciding what its branches and"
          + " tags reach went past its bound without one", repo);
    }
    compactIfCrowded(repo);
  }

  /** Counts {@code repo}'s packs in the background, and compacts it past the bound. */
  void compactIfCrowded(RepoSlug repo) {
    asked.add(repo.key()); // seen by the count queued or running, if there is one
    if (!compacting.add(repo.key())) {
      return;
    }
    // Counted in the background too: the pack directory changed with the last push, so JGit
    // would list it again here, on the way to the advertisement.
    try {
      maintenance.execute(() -> count(repo));
    } catch (RejectedExecutionException e) {
      compacting.remove(repo.key()); // stopping: nothing more is compacted
    }
  }

  /** Counts and compacts while asked to; on the maintenance thread. */
  private void count(RepoSlug repo) {
    try {
      while (asked.remove(repo.key())) {
        if (wantBitmaps.contains(repo.key()) || packs(repo).count() > COMPACT_ABOVE_PACKS) {
          compact(repo);
        }
      }
    } finally {
      compacting.remove(repo.key());
    }
    if (asked.contains(repo.key())) {
      compactIfCrowded(repo); // asked between the last count and the line above
    }
  }

  private void compact(RepoSlug repo) {
    ReentrantLock lock = repositories.lockOf(repo);
    try {
      // A fetch may hold the lock for minutes; a stop interrupts this wait, and nothing is
      // compacted after it.
      lock.lockInterruptibly();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    long start = System.nanoTime();
    try (Repository cache = repositories.open(repo)) {
      landed.write(repo);
      boolean[] read = {false};
      readers.computeIfPresent(repo.key(), (k, n) -> {
        deferred.add(k); // the last reader to close starts it again
        read[0] = true;
        return n;
      });
      if (read[0]) {
        // replaced packs would go from under a clone
        log.debug("compacting the cache of {} once no fetch reads it", repo);
        return;
      }
      Packs before = packs(repo);
      FileRepository db = (FileRepository) cache;
      List<Pack> packs = List.copyOf(db.getObjectDatabase().getPacks());
      CompactionBase.Layout layout = baseRecord.read(repo);
      List<Pack> base = packs.stream().filter(p -> layout.base().contains(name(p))).toList();
      List<Pack> above = packs.stream()
          .filter(p -> !layout.base().contains(name(p)) && !p.shouldBeKept()).toList();
      boolean wantsBitmaps = wantBitmaps.contains(repo.key());
      // A base with a pack missing is no longer every object its commits need: start again.
      if (wantsBitmaps || base.isEmpty() || base.size() != layout.base().size()
          || FACTOR * objects(above) >= objects(base)) {
        boolean bitmaps = before.bytes() >= bitmapsFromPackBytes || wantsBitmaps;
        ReplacedPacks.sweep(db, Duration.ZERO);
        baseRecord.write(repo, repackAll(db, bitmaps));
        wantBitmaps.remove(repo.key());
        log.info("compacted the cache of {}: {} packs -> {}{} in {} ms", repo, before.count(),
            packs(repo).count(), bitmaps ? " with a bitmap index" : "",
            (System.nanoTime() - start) / 1_000_000);
      } else {
        ReplacedPacks.sweep(db, ReplacedPacks.LEFT_AT_LEAST);
        List<Pack> levels = levelsKept(recordedLevels(layout, above), above);
        List<Pack> stay = new ArrayList<>(base);
        stay.addAll(levels);
        List<Pack> rolled = above.stream().filter(p -> !levels.contains(p)).toList();
        PackRollUp.Written written = PackRollUp.rollUp(db, stay, rolled);
        List<String> now = new ArrayList<>(levels.stream().map(CacheCompaction::name).toList());
        if (written.pack() != null) {
          now.add(written.pack());
        }
        baseRecord.write(repo, new CompactionBase.Layout(layout.base(), now));
        log.info("compacted the cache of {}: {} packs since the last full compaction -> one of {}"
            + " objects in {} ms ({} earlier roll-ups kept)", repo, rolled.size(),
            written.objects(), (System.nanoTime() - start) / 1_000_000, levels.size());
      }
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      log.warn("could not compact the cache of {}: {}", repo, e.getMessage());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Every object the refs reach, into new packs that become the base, and what the commits of
   * pushes under way need beyond it (their packs kept by a {@code .keep}: JGit's {@code GC} walks
   * from the refs alone) into a first level above it, before the packs they replace go as a
   * roll-up's do ({@link ReplacedPacks}), not as JGit's {@code GC} deletes them.
   */
  private static CompactionBase.Layout repackAll(FileRepository db, boolean bitmaps)
      throws IOException {
    List<Pack> before = List.copyOf(db.getObjectDatabase().getPacks());
    GC gc = new GC(db);
    PackConfig config = new PackConfig(db);
    config.setBuildBitmaps(bitmaps);
    gc.setPackConfig(config);
    gc.setPackKeptObjects(true);
    gc.setPackExpire(Instant.EPOCH); // GC deletes none: ReplacedPacks does, below
    // Objects only: packing refs would race the advertisements read outside the lock (a ref
    // briefly read from the old packed-refs after its loose file went), and an advertisement
    // older than upstream fails the push as stale.
    List<Pack> base = List.copyOf(gc.repack());
    PackRollUp.Written kept = PackRollUp.rollUp(db, base, List.of());
    Set<String> stays = names(base);
    if (kept.pack() != null) {
      stays.add(kept.pack());
    }
    ReplacedPacks.retire(db, before.stream()
        .filter(p -> !p.shouldBeKept() && !stays.contains(name(p))).toList());
    return new CompactionBase.Layout(names(base),
        kept.pack() == null ? List.of() : List.of(kept.pack()));
  }

  /**
   * The recorded roll-ups, oldest first, or none when one of them is no longer on disk (a crash
   * between a roll-up and its record): the levels above a missing one may need its objects, so
   * they are all rolled up again.
   */
  private static List<Pack> recordedLevels(CompactionBase.Layout layout, List<Pack> above) {
    List<Pack> levels = new ArrayList<>();
    for (String level : layout.levels()) {
      Pack p = above.stream().filter(a -> name(a).equals(level)).findFirst().orElse(null);
      if (p == null) {
        return List.of();
      }
      levels.add(p);
    }
    return levels;
  }

  /**
   * The oldest {@code levels} that stay, as {@code git repack --geometric=2} picks them: from
   * the newest down, a level is rolled up with what came since while it holds fewer than
   * {@link #FACTOR} times the objects rolled up so far. The levels that stay then hold each at
   * least twice the next, so a roll-up rewrites what came since and, now and then, the small
   * levels above it, never the whole history since the base: an object is rewritten about once
   * per doubling, where before every roll-up rewrote everything since the last full compaction.
   */
  private static List<Pack> levelsKept(List<Pack> levels, List<Pack> above) throws IOException {
    long rolled = objects(above.stream().filter(p -> !levels.contains(p)).toList());
    int kept = levels.size();
    while (kept > 0) {
      long level = levels.get(kept - 1).getIndex().getObjectCount();
      if (level >= FACTOR * rolled) {
        break;
      }
      rolled += level;
      kept--;
    }
    return List.copyOf(levels.subList(0, kept));
  }

  private static Set<String> names(Collection<Pack> packs) {
    return packs.stream().map(CacheCompaction::name).collect(Collectors.toCollection(HashSet::new));
  }

  private static String name(Pack p) {
    return p.getPackFile().getName();
  }

  private static long objects(List<Pack> packs) throws IOException {
    long n = 0;
    for (Pack p : packs) {
      n += p.getIndex().getObjectCount();
    }
    return n;
  }

  /** How many packs the cache of a repository has, and their bytes together. */
  private record Packs(int count, long bytes) {}

  private Packs packs(RepoSlug repo) {
    int n = 0;
    long bytes = 0;
    try (DirectoryStream<Path> packs = Files.newDirectoryStream(
        repositories.directoryOf(repo).resolve("objects/pack"), "*.pack")) {
      for (Path pack : packs) {
        n++;
        bytes += Files.size(pack);
      }
    } catch (IOException e) {
      // a pack a compaction just deleted; the next sync counts again
      log.debug("could not count the packs of the cache of {}: {}", repo, e.getMessage());
    }
    return new Packs(n, bytes);
  }

  /** Stops compaction, waiting for one under way ({@link CacheThreads#stop}). */
  void close() {
    CacheThreads.stop(maintenance, "compaction");
  }
}
