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
import org.eclipse.jgit.internal.storage.file.PackIndex;
import org.eclipse.jgit.internal.storage.pack.PackExt;
import org.eclipse.jgit.internal.storage.pack.PackWriter;
import org.eclipse.jgit.lib.AnyObjectId;
import org.eclipse.jgit.lib.Constants;
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
 * Rolls a cache's newest packs into one pack of what the refs reach above the packs that stay,
 * and deletes them: a compaction of what came since the last full one ({@link CacheCompaction}).
 *
 * <p>The packs that stay are the base, what the last full compaction wrote (every object the
 * refs reached then, ancestors included), and the oldest roll-ups since, each written the same way
 * above the packs that stayed before it: together they hold every object their commits need, so a
 * commit found in them needs nothing from the packs rolled up. The walk goes from the refs (and
 * the commits of packs kept for pushes under way) down to the first commits in them and no
 * further; the new pack holds every object the refs reach that
 * they do not, whichever pack it was in (a pushed pack still kept by its {@code .keep} too, which
 * stays: the new pack then needs nothing but the packs that stay), so it can replace the rolled-up
 * packs on its own. What no ref reaches (a refused push, one held and then refused) goes with
 * them, as a full compaction drops it.
 *
 * <p>The pack and its index are written and forced as JGit's {@code GC} writes its own, the
 * index renamed into place last, so that a reader never sees an index without its pack.
 */
final class PackRollUp {
  private PackRollUp() {}

  /** What a roll-up wrote: its pack's file name (none when it wrote nothing), its objects. */
  record Written(String pack, long objects) {}

  /**
   * Writes the new pack, then deletes {@code rolled}.
   *
   * @param stay the base and the roll-ups kept, which stay and are not read whole
   * @param rolled the packs to replace: none of {@code stay}, none with a {@code .keep}
   */
  static Written rollUp(FileRepository db, List<Pack> stay, List<Pack> rolled)
      throws IOException {
    ObjectDirectory objects = db.getObjectDatabase();
    Set<ObjectId> tips = new HashSet<>();
    for (Ref r : db.getRefDatabase().getRefs()) {
      if (!r.isSymbolic() && r.getObjectId() != null) {
        tips.add(r.getObjectId());
      }
    }
    Written written = new Written(null, 0);
    PackConfig config = new PackConfig(db);
    config.setBuildBitmaps(false);
    try (ObjectReader reader = db.newObjectReader();
        PackWriter writer = new PackWriter(config, reader)) {
      tips.addAll(keptTips(db, reader));
      Set<ObjectId> boundary = boundary(reader, tips, stay);
      writer.setDeltaBaseAsOffset(true);
      writer.setReuseDeltaCommits(false);
      for (Pack p : stay) {
        writer.excludeObjects(p.getIndex()); // a blob or tree a pack that stays holds already
      }
      writer.preparePack(NullProgressMonitor.INSTANCE, tips, boundary);
      if (writer.getObjectCount() > 0) {
        written = new Written(install(objects, writer), writer.getObjectCount());
      }
    }
    String kept = written.pack();
    ReplacedPacks.retire(db, rolled.stream()
        .filter(p -> !p.getPackFile().getName().equals(kept)).toList());
    return written;
  }

  /**
   * The commits and tags of the packs a {@code .keep} keeps: pushes under way, which their refs
   * will name once upstream takes them. Walked from as the refs are, for what they build on may
   * be reached by no ref any more (a branch upstream deleted meanwhile): dropped, it would be
   * missing under the push's commit once it lands.
   */
  private static Set<ObjectId> keptTips(FileRepository db, ObjectReader reader)
      throws IOException {
    Set<ObjectId> tips = new HashSet<>();
    for (Pack p : db.getObjectDatabase().getPacks()) {
      if (p.shouldBeKept()) {
        for (PackIndex.MutableEntry e : p) {
          ObjectId id = e.toObjectId();
          int type = reader.open(id).getType();
          if (type == Constants.OBJ_COMMIT || type == Constants.OBJ_TAG) {
            tips.add(id);
          }
        }
      }
    }
    return tips;
  }

  /**
   * The first commits from {@code tips} down that {@code stay} holds: the new pack's walk stops
   * there. A tag is followed to its commit even when {@code stay} holds the tag: the commit is
   * then in the boundary; left out, the pack's walk went down the tagged commit's whole history
   * at every roll-up, only to leave all of it out again.
   */
  static Set<ObjectId> boundary(ObjectReader reader, Collection<ObjectId> tips,
      List<Pack> stay) throws IOException {
    Set<ObjectId> boundary = new HashSet<>();
    Set<ObjectId> seen = new HashSet<>();
    Deque<RevCommit> todo = new ArrayDeque<>();
    try (RevWalk walk = new RevWalk(reader)) {
      for (ObjectId tip : tips) {
        RevObject o = walk.parseAny(tip);
        while (o instanceof RevTag tag) {
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
        if (held(stay, c)) {
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

  private static boolean held(List<Pack> packs, AnyObjectId id) throws IOException {
    for (Pack p : packs) {
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
      if (PackInstall.stored(pack)) {
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
}
