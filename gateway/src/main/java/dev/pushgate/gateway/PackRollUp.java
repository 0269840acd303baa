package dev.pushgate.gateway;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.internal.storage.file.ObjectDirectory;
import org.eclipse.jgit.internal.storage.file.Pack;
import org.eclipse.jgit.internal.storage.file.PackFile;
import org.eclipse.jgit.internal.storage.pack.PackExt;
import org.eclipse.jgit.internal.storage.pack.PackWriter;
import org.eclipse.jgit.lib.AnyObjectId;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevObject;
import org.eclipse.jgit.revwalk.RevTag;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.pack.PackConfig;
import org.eclipse.jgit.util.FileUtils;

/**
 * Rolls a cache's packs above its base into one pack of what the refs reach, and deletes them:
 * the compaction of everything that came since the last full one ({@link CacheCompaction}).
 *
 * <p>The base is what the last full compaction wrote: every object the refs reached then,
 * ancestors included, so a commit found in it needs nothing from the packs rolled up. The walk
 * goes from the refs down to the first commits in the base and no further; the new pack holds
 * every object the refs reach that the base does not, whichever pack it was in (a pushed pack
 * still kept by its {@code .keep} too, which stays: the new pack then needs nothing but the base),
 * so it can replace the rolled-up packs on its own. What no ref reaches (a refused push, one
 * held and then refused) goes with them, as a full compaction drops it.
 *
 * <p>The pack and its index are written and forced as JGit's {@code GC} writes its own, the
 * index renamed into place last, so that a reader never sees an index without its pack.
 */
final class PackRollUp {
  private PackRollUp() {}

  /**
   * Writes the new pack, then deletes {@code rolled}.
   *
   * @param base the packs of the last full compaction, which stay and are not read whole
   * @param rolled the packs to replace: not the base, none with a {@code .keep}
   * @return the objects the new pack holds (0 when the refs reach nothing above the base)
   */
  static long rollUp(FileRepository db, List<Pack> base, List<Pack> rolled) throws IOException {
    ObjectDirectory objects = db.getObjectDatabase();
    Set<ObjectId> tips = new HashSet<>();
    for (Ref r : db.getRefDatabase().getRefs()) {
      if (!r.isSymbolic() && r.getObjectId() != null) {
        tips.add(r.getObjectId());
      }
    }
    long written;
    String kept = null;
    PackConfig config = new PackConfig(db);
    config.setBuildBitmaps(false);
    try (ObjectReader reader = db.newObjectReader();
        PackWriter writer = new PackWriter(config, reader)) {
      Set<ObjectId> boundary = boundary(reader, tips, base);
      writer.setDeltaBaseAsOffset(true);
      writer.setReuseDeltaCommits(false);
      for (Pack p : base) {
        writer.excludeObjects(p.getIndex()); // a blob or tree the base holds already
      }
      writer.preparePack(NullProgressMonitor.INSTANCE, tips, boundary);
      written = writer.getObjectCount();
      if (written > 0) {
        kept = install(objects, writer);
      }
    }
    for (Pack p : rolled) {
      if (!p.getPackFile().getName().equals(kept)) {
        p.close();
        delete(p.getPackFile());
      }
    }
    objects.close(); // the pack list is read again at the next lookup, without the deleted
    return written;
  }

  /** The first commits from {@code tips} down that the base holds: the walk stops there. */
  private static Set<ObjectId> boundary(ObjectReader reader, Collection<ObjectId> tips,
      List<Pack> base) throws IOException {
    Set<ObjectId> boundary = new HashSet<>();
    Set<ObjectId> seen = new HashSet<>();
    Deque<RevCommit> todo = new ArrayDeque<>();
    try (RevWalk walk = new RevWalk(reader)) {
      for (ObjectId tip : tips) {
        RevObject o = walk.parseAny(tip);
        while (o instanceof RevTag tag && !inBase(base, tag)) {
          o = walk.parseAny(tag.getObject());
        }
        if (o instanceof RevCommit c) {
          todo.push(c);
        }
      }
      while (!todo.isEmpty()) {
        RevCommit c = todo.pop();
        if (!seen.add(c)) {
          continue;
        }
        if (inBase(base, c)) {
          boundary.add(c);
          continue;
        }
        walk.parseHeaders(c);
        for (RevCommit parent : c.getParents()) {
          todo.push(parent);
        }
      }
    }
    return boundary;
  }

  private static boolean inBase(List<Pack> base, AnyObjectId id) throws IOException {
    for (Pack p : base) {
      if (p.hasObject(id)) {
        return true;
      }
    }
    return false;
  }

  /**
   * As JGit's {@code GC} writes a pack: temporary files, forced, the index renamed last.
   *
   * @return the new pack's file name; when a pack of that name is there already (a pack's name
   *     is the hash of its objects' ids: a rolled-up pack holding just what the refs reach), that
   *     one, left as it is and not to be deleted
   */
  private static String install(ObjectDirectory objects, PackWriter writer) throws IOException {
    File dir = objects.getPackDirectory();
    File tmpPack = File.createTempFile("rollup_", PackExt.PACK.getTmpExtension(), dir);
    String tmpBase = tmpPack.getName().substring(0, tmpPack.getName().lastIndexOf('.'));
    File tmpIdx = new File(dir, tmpBase + PackExt.INDEX.getTmpExtension());
    try {
      try (FileOutputStream out = new FileOutputStream(tmpPack);
          FileChannel channel = out.getChannel();
          OutputStream stream = Channels.newOutputStream(channel)) {
        writer.writePack(NullProgressMonitor.INSTANCE, NullProgressMonitor.INSTANCE, stream);
        channel.force(true);
      }
      try (FileOutputStream out = new FileOutputStream(tmpIdx);
          FileChannel channel = out.getChannel();
          OutputStream stream = Channels.newOutputStream(channel)) {
        writer.writeIndex(stream);
        channel.force(true);
      }
      ObjectId name = writer.computeName();
      PackFile pack = new PackFile(dir, name, PackExt.PACK);
      if (pack.exists()) {
        return pack.getName();
      }
      tmpPack.setReadOnly();
      tmpIdx.setReadOnly();
      FileUtils.rename(tmpPack, pack, StandardCopyOption.ATOMIC_MOVE);
      FileUtils.rename(tmpIdx, pack.create(PackExt.INDEX), StandardCopyOption.ATOMIC_MOVE);
      objects.openPack(pack);
      return pack.getName();
    } finally {
      tmpPack.delete();
      tmpIdx.delete();
    }
  }

  /** The pack first: without it the others are nothing a reader uses. As JGit's {@code GC}. */
  private static void delete(PackFile pack) throws IOException {
    FileUtils.delete(pack.create(PackExt.PACK), FileUtils.RETRY | FileUtils.SKIP_MISSING);
    for (PackExt ext : PackExt.values()) {
      if (ext != PackExt.PACK) {
        FileUtils.delete(pack.create(ext),
            FileUtils.RETRY | FileUtils.SKIP_MISSING | FileUtils.IGNORE_ERRORS);
      }
    }
  }
}
