package dev.pushgate.gateway;

import java.io.File;
import java.io.IOException;
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

  private ReplacedPacks() {}

  /** Deletes {@code replaced}'s pack files and reads the pack list again. */
  static void retire(FileRepository db, Collection<Pack> replaced) throws IOException {
    for (Pack p : replaced) {
      FileUtils.delete(p.getPackFile(), FileUtils.RETRY | FileUtils.SKIP_MISSING);
    }
    CacheRepository.readPacks(db);
  }

  /**
   * Deletes the indexes the packs retired before left; under the repository's lock, long after
   * any lookup that could still read them. Never a {@code .keep}: JGit's receive writes a pack's
   * before the pack.
   *
   * @return how many files went
   */
  static int sweep(FileRepository db) throws IOException {
    File dir = db.getObjectDatabase().getPackDirectory();
    String[] names = dir.list();
    int swept = 0;
    for (String name : names == null ? new String[0] : names) {
      for (PackExt ext : LEFT_BEHIND) {
        String suffix = "." + ext.getExtension();
        if (name.startsWith("pack-") && name.endsWith(suffix) && !new File(dir,
            name.substring(0, name.length() - suffix.length()) + ".pack").exists()) {
          FileUtils.delete(new File(dir, name),
              FileUtils.RETRY | FileUtils.SKIP_MISSING | FileUtils.IGNORE_ERRORS);
          swept++;
        }
      }
    }
    return swept;
  }
}
