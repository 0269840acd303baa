package dev.pushgate.gateway;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import org.eclipse.jgit.errors.CorruptObjectException;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.internal.storage.file.ObjectDirectory;
import org.eclipse.jgit.internal.storage.file.PackFile;
import org.eclipse.jgit.internal.storage.file.PackLockImpl;
import org.eclipse.jgit.internal.storage.pack.PackExt;
import org.eclipse.jgit.lib.AnyObjectId;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ProgressMonitor;
import org.eclipse.jgit.transport.PackLock;
import org.eclipse.jgit.transport.PackParser;
import org.eclipse.jgit.transport.PackedObjectInfo;
import org.eclipse.jgit.util.FS;
import org.eclipse.jgit.util.NB;

/**
 * Stores a pack received into a gateway cache as a pack file and its index, as JGit's own parser
 * for a file repository does ({@code ObjectDirectoryPackParser}), but for a push without forcing
 * either to disk. JGit's parser calls {@code fsync} on every pack it stores, whatever the
 * configuration: about 100 ms for a 100 MiB push here, on the push's critical path (the trailer
 * goes upstream only after the gateway's own receive has ended). A push's pack is forced later
 * instead, before a ref of the cache names its objects ({@link CacheRepository#forceReceived}).
 * Other packs (a sync's fetch) are forced before they are put in place, as JGit does.
 *
 * <p>Everything else is as JGit's parser: each object's id, its collision check, git's checks of
 * the object (JGit's {@link PackParser} does those, not this class); a thin pack completed with
 * its bases from the cache, its object count and checksum rewritten; a {@code .keep} file while
 * the receive is under way; the pack opened for reads only once its index is in place.
 *
 * <p>A push's pack small enough is not stored at all while the push runs: it is held in memory
 * and given to the push's view of the cache ({@link ReceivedInMemory}), which writes it into the
 * cache only once upstream took the push.
 *
 * <p>{@link PackCopy}, when the push is streamed upstream, is handed every byte of the pack as
 * received but its 20-byte trailer, as the parser consumes them, and the trailer once the parser
 * has checked it and the end of the request: the parser, not a second pass over the stream, tells
 * where the objects end.
 */
final class CachePackParser extends PackParser {
  private final ObjectDirectory odb;
  private final FS fs;
  private final PackCopy copy;
  /** Whether the pack and its index are forced to disk before they are put in place. */
  private final boolean force;
  private final CacheRepository cache;
  private final CRC32 crc = new CRC32();
  /** Of the bases appended to complete a thin pack, to check them when they are read back. */
  private final MessageDigest appendedDigest = Constants.newMessageDigest();
  private File tmpIdx;
  /** Where the pack is written and read back: memory or a temporary file. */
  private PackStore out;
  /** Where a pack held in memory goes ({@link ReceivedInMemory}); null: always to a file. */
  private final java.util.function.Consumer<ReceivedInMemory> holder;
  private ReceivedInMemory.Collector held;
  /** The end of the pack's objects in {@link #out}: where its trailer goes. */
  private long packEnd;
  /** The end of the objects as received, before any base was appended. */
  private long receivedEnd;
  private byte[] receivedHash;
  private byte[] packHash;
  private Deflater deflater;
  private final java.util.function.Consumer<Runnable> unkeep;
  /** The ids of every object of the pack so far, its thin pack's bases too ({@link #newInfo}). */
  private final Set<AnyObjectId> heldIds = new HashSet<>();
  /** An object a delta made that the pack held already, once one has. */
  private String twice;
  /** The cache as this parser reads it: a thin pack's bases as {@link ThinPackBases} judge. */
  private final ThinPackBases bases;
  /** Whether a base may be refused, so that one missing answers as {@link AbsentObjects}. */
  private final boolean judgesBases;

  CachePackParser(CacheRepository cache, InputStream in, PackCopy copy, boolean force) {
    this(cache, in, copy, force, Runnable::run);
  }

  /**
   * @param unkeep where the pack's {@code .keep} is deleted when JGit unlocks it: at once, or,
   *     for a push, once git has its answer. JGit unlocks before it writes the report, and the
   *     unlink waits for the pack directory and the journal (0.2-0.4 ms median, milliseconds at
   *     worst on a busy disk: docs/benchmarks.md); the {@code .keep} only keeps a compaction off
   *     the pack, whose refs are queued as landed by then.
   */
  CachePackParser(CacheRepository cache, InputStream in, PackCopy copy, boolean force,
      java.util.function.Consumer<Runnable> unkeep) {
    this(cache, in, copy, force, unkeep, ThinPackBases.Rule.ANY);
  }

  /**
   * @param bases which of the cache's objects may complete a thin pack: for a push, only those
   *     the run reaches; any other reads as absent ({@link ThinPackBases})
   */
  CachePackParser(CacheRepository cache, InputStream in, PackCopy copy, boolean force,
      java.util.function.Consumer<Runnable> unkeep, ThinPackBases.Rule bases) {
    this(cache, in, copy, force, unkeep, bases, null);
  }

  /**
   * @param holder given the pack instead of the cache when it is small enough to hold in
   *     memory ({@link ReceivedInMemory}); null to store every pack in the cache
   */
  CachePackParser(CacheRepository cache, InputStream in, PackCopy copy, boolean force,
      java.util.function.Consumer<Runnable> unkeep, ThinPackBases.Rule bases,
      java.util.function.Consumer<ReceivedInMemory> holder) {
    this(cache, in, copy, force, unkeep,
        new ThinPackBases(cache.getObjectDatabase(), bases), bases != ThinPackBases.Rule.ANY,
        holder);
  }

  private CachePackParser(CacheRepository cache, InputStream in, PackCopy copy, boolean force,
      java.util.function.Consumer<Runnable> unkeep, ThinPackBases bases, boolean judgesBases,
      java.util.function.Consumer<ReceivedInMemory> holder) {
    super(bases, in);
    this.holder = holder;
    this.bases = bases;
    this.judgesBases = judgesBases;
    bases.heldBy(heldIds::contains);
    this.unkeep = unkeep;
    this.cache = cache;
    this.odb = cache.getObjectDatabase();
    this.fs = cache.getFS();
    this.copy = copy;
    this.force = force;
  }

  @Override
  public PackLock parse(ProgressMonitor receiving, ProgressMonitor resolving)
      throws IOException {
    ReceivedInMemory.Budget budget =
        holder != null ? ReceivedInMemory.BUDGET : ReceivedInMemory.Budget.NONE;
    out = new PackStore(odb.getDirectory(), budget);
    held = new ReceivedInMemory.Collector(budget);
    try {
      parseAll(receiving, resolving);
      out.seek(packEnd);
      out.write(packHash, 0, packHash.length);
      List<PackedObjectInfo> byId = getSortedObjectList(null);
      Optional<ReceivedInMemory> inMemory =
          byId.isEmpty() ? Optional.empty() : held.held(out, byId, packHash);
      if (inMemory.isPresent()) {
        holder.accept(inMemory.get());
        return null; // no file, so no .keep: nothing is in the cache until upstream took it
      }
      out.toFile();
      tmpIdx = PackInstall.indexBeside(out.path());
      try (FileOutputStream idx = new FileOutputStream(tmpIdx)) {
        PackInstall.writeIndex(idx, byId, packHash);
        if (force) {
          // both written first, then forced at once: one wait for the disk, not two in turn
          ParallelForce.all(List.of(out.channel(), idx.getChannel()), ch -> ch.force(true));
        }
      }
      out.close();
      return install(byId);
    } finally {
      held.discard();
      if (deflater != null) {
        deflater.end();
      }
      try {
        out.close();
      } catch (IOException ignored) {
        // the temporary file is deleted below either way
      }
      deleteTemporaryFiles();
    }
  }

  /**
   * JGit's parse. A base missing from the cache, or one the run may not use, fails it as JGit
   * fails an absent base ({@code Missing delta base <id>}), which for a push is answered as
   * every object it names and cannot reach is ({@link AbsentObjects}): the id of the first base
   * found missing would tell which others the cache holds.
   */
  private void parseAll(ProgressMonitor receiving, ProgressMonitor resolving) throws IOException {
    try {
      super.parse(receiving, resolving);
    } catch (MissingObjectException e) {
      if (judgesBases) {
        throw new AbsentObjects();
      }
      throw e;
    }
  }

  /**
   * Moves the pack and its index into the cache's pack directory, named as JGit names them (by
   * the ids of their objects), and opens the pack for reads. Null when there was nothing to keep:
   * no objects, or a pack of the same objects already there.
   */
  private PackLock install(List<PackedObjectInfo> byId) throws IOException {
    if (byId.isEmpty()) {
      return null;
    }
    PackFile pack = PackInstall.nameOf(odb, byId);
    String message = getLockMessage();
    if (PackInstall.stored(pack)) {
      // The same objects, stored already (a refused push's, tried again): never replaced, as
      // readers may hold it, but kept for this push as its own pack would be, or a compaction
      // would take what no ref reaches from under it; unless a push under way keeps it already.
      if (message == null || PackInstall.keptAlready(pack)) {
        return null;
      }
      PackInstall.writeKeep(pack, message);
      return unlockingOnce(new PackLockImpl(pack, fs));
    }
    PackLockImpl keep = new PackLockImpl(pack, fs);
    if (message != null) {
      PackInstall.writeKeep(pack, message);
    }
    try {
      if (!force) {
        cache.receivedUnforced(pack, pack.create(PackExt.INDEX));
      }
      PackInstall.moveIn(odb, out.path(), tmpIdx, pack);
    } catch (IOException e) {
      keep.unlock();
      throw e;
    }
    return message == null ? null : unlockingOnce(keep);
  }

  /** {@code keep} unlocked through {@link #unkeep}, once. */
  private PackLock unlockingOnce(PackLockImpl keep) {
    java.util.concurrent.atomic.AtomicBoolean unlocked =
        new java.util.concurrent.atomic.AtomicBoolean();
    return () -> { // JGit unlocks twice (after the hook, and when it releases the push)
      if (unlocked.compareAndSet(false, true)) {
        unkeep.accept(PackInstall.unlocking(keep));
      }
    };
  }

  private void deleteTemporaryFiles() {
    for (File f : new File[] {tmpIdx, out.path()}) {
      if (f != null && !f.delete() && f.exists()) {
        f.deleteOnExit();
      }
    }
  }

  @Override
  protected void onStoreStream(byte[] raw, int pos, int len) throws IOException {
    out.write(raw, pos, len);
    copy.objects(raw, pos, len);
  }

  @Override
  protected void onPackFooter(byte[] hash) throws IOException {
    packEnd = out.position();
    receivedEnd = packEnd;
    receivedHash = hash;
    packHash = hash;
    copy.objectsEnd(hash.clone());
  }

  @Override
  protected void onPackHeader(long objectCount) {
    // the parser sizes its own tables; nothing to do here
  }

  @Override
  protected void onBeginWholeObject(long streamPosition, int type, long inflatedSize) {
    crc.reset();
  }

  @Override
  protected void onEndWholeObject(PackedObjectInfo info) {
    info.setCRC((int) crc.getValue());
    if (info.getType() == Constants.OBJ_BLOB) { // the parser streams a blob: it gives no bytes
      held.wholeBlob(info);
    }
  }

  @Override
  protected void onBeginOfsDelta(long streamPosition, long baseStreamPosition,
      long inflatedSize) {
    crc.reset();
  }

  @Override
  protected void onBeginRefDelta(long streamPosition, AnyObjectId baseId, long inflatedSize) {
    crc.reset();
    bases.namedAsBase(baseId);
  }

  @Override
  protected UnresolvedDelta onEndDelta() {
    UnresolvedDelta delta = new UnresolvedDelta();
    delta.setCRC((int) crc.getValue());
    return delta;
  }

  /**
   * A delta whose object the pack holds already — its own base (copied whole, it makes the same
   * id), or one a cycle of deltas comes back to — gives the pack two entries of one id, and a
   * read of that id may find the delta, whose base is that id again: JGit's reader then follows
   * the chain without end, a copy of the object held each time, until the heap is gone (a
   * review's 60-byte push took the appliance down; JGit's parser checks nothing of the kind).
   * git never sends one object twice, so such a pack is refused.
   */
  @Override
  protected PackedObjectInfo newInfo(AnyObjectId id, UnresolvedDelta delta, ObjectId deltaBase) {
    PackedObjectInfo info = super.newInfo(id, delta, deltaBase);
    if (!heldIds.add(info) && delta != null && twice == null) {
      twice = id.name();
    }
    return info;
  }

  @Override
  protected void onInflatedObjectData(PackedObjectInfo obj, int typeCode, byte[] data)
      throws IOException {
    if (twice != null) {
      throw new CorruptObjectException("the pack holds object " + twice + " twice, once as a"
          + " delta; git never sends one object twice, and such a delta may rebuild the object"
          + " from itself");
    }
    held.inflated(obj, typeCode, data);
  }

  @Override
  protected void onObjectHeader(Source src, byte[] raw, int pos, int len) {
    crc.update(raw, pos, len);
  }

  @Override
  protected void onObjectData(Source src, byte[] raw, int pos, int len) {
    crc.update(raw, pos, len);
  }

  @Override
  protected ObjectTypeAndSize seekDatabase(PackedObjectInfo obj, ObjectTypeAndSize info)
      throws IOException {
    return seekTo(obj.getOffset(), info);
  }

  @Override
  protected ObjectTypeAndSize seekDatabase(UnresolvedDelta delta, ObjectTypeAndSize info)
      throws IOException {
    return seekTo(delta.getOffset(), info);
  }

  /** Rereads the header of the object written at {@code offset}, its CRC counted afresh. */
  private ObjectTypeAndSize seekTo(long offset, ObjectTypeAndSize info) throws IOException {
    out.seek(offset);
    crc.reset();
    return readObjectHeader(info);
  }

  @Override
  protected int readDatabase(byte[] dst, int pos, int cnt) throws IOException {
    return out.read(dst, pos, cnt);
  }

  @Override
  protected boolean checkCRC(int oldCRC) {
    return oldCRC == (int) crc.getValue();
  }

  /** A base of a thin pack's delta, from the cache: appended to the pack, whole. */
  @Override
  protected boolean onAppendBase(int typeCode, byte[] data, PackedObjectInfo info)
      throws IOException {
    info.setOffset(packEnd);
    held.appendedBase();
    byte[] buf = buffer();
    int n = 0;
    long size = data.length;
    buf[n++] = (byte) ((typeCode << 4) | (size & 15));
    size >>>= 4;
    while (size > 0) {
      buf[n - 1] |= (byte) 0x80;
      buf[n++] = (byte) (size & 0x7f);
      size >>>= 7;
    }
    crc.reset();
    out.seek(packEnd);
    append(buf, n);
    if (deflater == null) {
      deflater = new Deflater(Deflater.DEFAULT_COMPRESSION);
    } else {
      deflater.reset();
    }
    deflater.setInput(data);
    deflater.finish();
    while (!deflater.finished()) {
      append(buf, deflater.deflate(buf));
    }
    info.setCRC((int) crc.getValue());
    return true;
  }

  private void append(byte[] buf, int n) throws IOException {
    appendedDigest.update(buf, 0, n);
    crc.update(buf, 0, n);
    out.write(buf, 0, n);
    packEnd += n;
  }

  /**
   * After the bases were appended: the header's object count rewritten and the checksum computed
   * over the whole file, reading it back once; what was received and what was appended are
   * checked against what was written, as JGit does.
   */
  @Override
  protected void onEndThinPack() throws IOException {
    byte[] buf = buffer();
    MessageDigest received = Constants.newMessageDigest();
    MessageDigest appended = Constants.newMessageDigest();
    MessageDigest whole = Constants.newMessageDigest();
    out.seek(0);
    out.readFully(buf, 0, 12);
    received.update(buf, 0, 12);
    NB.encodeInt32(buf, 8, getObjectCount());
    out.seek(0);
    out.write(buf, 0, 12);
    whole.update(buf, 0, 12);
    long receivedLeft = receivedEnd - 12;
    for (int n; (n = out.read(buf, 0, buf.length)) > 0; ) {
      int fromReceived = (int) Math.min(n, receivedLeft);
      received.update(buf, 0, fromReceived);
      appended.update(buf, fromReceived, n - fromReceived);
      receivedLeft -= fromReceived;
      whole.update(buf, 0, n);
    }
    if (!MessageDigest.isEqual(received.digest(), receivedHash)
        || !MessageDigest.isEqual(appended.digest(), appendedDigest.digest())) {
      throw new IOException("the pack was corrupted while it was written to the cache");
    }
    packHash = whole.digest();
  }
}
