package dev.pushgate.gateway;

import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.internal.storage.file.Pack;
import org.eclipse.jgit.internal.storage.pack.PackExt;
import org.eclipse.jgit.util.FileUtils;

/**
 * The packs a compaction replaced, taken out of a cache in two steps: the pack files at once,
 * and the pack list read again without them (JGit lists no index without its pack); their
 * indexes at the next compaction ({@link #sweep}).
 *
 * <p>A lookup that began before, through the old list, may still ask a replaced pack, which
 * JGit closed with the new list: it reads the index again and finds it. Deleted with its index
 * at once, as JGit's {@code GC} deletes a pack, that lookup failed, and JGit logged a warning
 * with its stack trace for each such pack, on a push's path (222 in one bench run, 2026-12-07:
 * a push's collision check beside a compaction). A read of a replaced pack's objects is retried
 * in the other packs either way.
 */
final class ReplacedPacks {
  /** What a replaced pack leaves until the next compaction; never its {@code .keep}. */
  private static final List<PackExt> LEFT_BEHIND = List.of(PackExt.INDEX,
      PackExt.REVERSE_INDEX, PackExt.BITMAP_INDEX, PackExt.OBJECT_SIZE_INDEX);

  /** How old a leftover must be: older than any index a receive is renaming in. */
  static final Duration LEFT_AT_LEAST = Duration.ofSeconds(10);

  private ReplacedPacks() {}

  /** Deletes {@code replaced}'s pack files and reads the pack list again. */
  static void retire(FileRepository db, Collection<Pack> replaced) throws IOException {
    for (Pack p : replaced) {
      // a push may have kept it since it was chosen (a pack of its objects stored already)
      if (!p.shouldBeKept()) {
        FileUtils.delete(p.getPackFile(), FileUtils.RETRY | FileUtils.SKIP_MISSING);
      }
    }
    CacheRepository.readPacks(db);
  }

  /**
   * Deletes the indexes the packs retired before left, when older than {@code age}; under the
   * repository's lock, long after any lookup that could still read them. Before a roll-up
   * {@link #LEFT_AT_LEAST}; before a full compaction none at all, as JGit's {@code GC} would
   * delete the rest as orphans, warning of each. Never a {@code .keep}: JGit's receive writes a
   * pack's before the pack.
   */
  static void sweep(FileRepository db, Duration age) throws IOException {
    File dir = db.getObjectDatabase().getPackDirectory();
    String[] names = dir.list();
    long before = System.currentTimeMillis() - age.toMillis();
    for (String name : names == null ? new String[0] : names) {
      for (PackExt ext : LEFT_BEHIND) {
        String suffix = "." + ext.getExtension();
        if (!name.startsWith("pack-") || !name.endsWith(suffix)) {
          continue;
        }
        String pack = name.substring(0, name.length() - suffix.length());
        File file = new File(dir, name);
        // A push's receive of a pack of the same name (the same objects) writes its .keep, then
        // its pack, then its index, outside the lock: an index just written is not a leftover.
        if (!new File(dir, pack + ".pack").exists() && !new File(dir, pack + ".keep").exists()
            && file.lastModified() <= before) {
          FileUtils.delete(file, FileUtils.RETRY | FileUtils.SKIP_MISSING | FileUtils.IGNORE_ERRORS);
        }
      }
    }
  }
}
