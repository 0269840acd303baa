package dev.pushgate.gateway;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.List;
import org.eclipse.jgit.errors.LockFailedException;
import org.eclipse.jgit.internal.storage.file.BasePackIndexWriter;
import org.eclipse.jgit.internal.storage.file.ObjectDirectory;
import org.eclipse.jgit.internal.storage.file.PackFile;
import org.eclipse.jgit.internal.storage.pack.PackExt;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.transport.PackedObjectInfo;
import org.eclipse.jgit.util.FileUtils;

/**
 * A received pack put in a cache's pack directory as JGit's own parser puts one: its index
 * written, both named by the ids of the pack's objects, the pack then opened for reads. For a
 * pack parsed into a file ({@link CachePackParser}) and one held in memory until upstream took
 * its push ({@link ReceivedInMemory}).
 */
final class PackInstall {
  private PackInstall() {}

  /** The pack's name in the cache, from its objects sorted by id; the pack directory made. */
  static PackFile nameOf(ObjectDirectory odb, List<PackedObjectInfo> byId) throws IOException {
    MessageDigest names = Constants.newMessageDigest();
    byte[] raw = new byte[Constants.OBJECT_ID_LENGTH];
    for (PackedObjectInfo o : byId) {
      o.copyRawTo(raw, 0);
      names.update(raw);
    }
    File packDir = new File(odb.getDirectory(), "pack");
    if (!packDir.isDirectory() && !packDir.mkdir() && !packDir.isDirectory()) {
      throw new IOException("cannot create " + packDir);
    }
    return new PackFile(packDir, ObjectId.fromRaw(names.digest()), PackExt.PACK);
  }

  /**
   * A pack's {@code .keep} deleted when run, for {@link CachePackParser}'s {@code unkeep}: on the
   * cache's ref writer, after the refs the push landed.
   */
  static Runnable unlocking(org.eclipse.jgit.transport.PackLock keep) {
    return () -> {
      try {
        keep.unlock();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    };
  }

  /** Where a temporary pack's index is written before both are named. */
  static File indexBeside(File tmpPack) {
    String name = tmpPack.getName();
    return new File(tmpPack.getParentFile(),
        name.substring(0, name.length() - ".pack".length()) + ".idx");
  }

  /** The index of a pack of {@code byId} whose checksum is {@code packHash}. */
  static void writeIndex(OutputStream out, List<PackedObjectInfo> byId, byte[] packHash)
      throws IOException {
    BasePackIndexWriter.createVersion(out, 2).write(byId, packHash); // JGit's default
  }

  /**
   * Renames the pack and its index to their names and opens the pack; on a failure neither is
   * left under its name.
   */
  static void moveIn(ObjectDirectory odb, File tmpPack, File tmpIdx, PackFile pack)
      throws IOException {
    PackFile idx = pack.create(PackExt.INDEX);
    FileUtils.rename(tmpPack, pack, StandardCopyOption.ATOMIC_MOVE);
    try {
      FileUtils.rename(tmpIdx, idx, StandardCopyOption.ATOMIC_MOVE);
      odb.openPack(pack);
    } catch (IOException e) {
      FileUtils.delete(idx, FileUtils.SKIP_MISSING);
      FileUtils.delete(pack, FileUtils.SKIP_MISSING);
      throw e;
    }
  }

  /**
   * Whether a pack of these objects is in the cache already, whole: its index too. A pack without
   * its index (a crash between the two renames) is no pack to JGit, and is written over.
   */
  static boolean stored(PackFile pack) {
    return pack.exists() && pack.create(PackExt.INDEX).exists();
  }

  /** Whether a push under way keeps {@code pack} from compactions already. */
  static boolean keptAlready(PackFile pack) {
    return pack.create(PackExt.KEEP).exists();
  }

  /**
   * The pack's {@code .keep}, written as git's receive-pack writes it: the file opened, its
   * message written, closed. JGit's {@code PackLockImpl.lock} goes through a lock file and a
   * rename, three more calls on the push's critical path, for content nobody needs whole: what
   * keeps a pack from a compaction is that the file exists (JGit's GC asks only that, as git's
   * does), and it exists from its first call on.
   */
  static void writeKeep(PackFile pack, String message) throws IOException {
    String line = message.endsWith("\n") ? message : message + "\n";
    try {
      Files.write(pack.create(PackExt.KEEP).toPath(), line.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new LockFailedException(pack, "cannot lock pack in " + pack, e);
    }
  }
}
