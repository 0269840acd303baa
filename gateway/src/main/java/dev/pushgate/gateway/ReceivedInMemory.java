package dev.pushgate.gateway;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import org.eclipse.jgit.errors.CorruptObjectException;
import org.eclipse.jgit.errors.IncorrectObjectTypeException;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.internal.storage.file.ObjectDirectory;
import org.eclipse.jgit.internal.storage.file.PackFile;
import org.eclipse.jgit.internal.storage.file.PackLockImpl;
import org.eclipse.jgit.internal.storage.pack.PackExt;
import org.eclipse.jgit.lib.AbbreviatedObjectId;
import org.eclipse.jgit.lib.AnyObjectId;
import org.eclipse.jgit.lib.BitmapIndex;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectLoader;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.transport.PackLock;
import org.eclipse.jgit.transport.PackedObjectInfo;

/**
 * A small push's pack, parsed and checked, held in memory rather than stored in the cache: what
 * the push's judgement reads through {@link #reader}, and what is written to the cache, its pack
 * and index forced to disk and named, only once upstream took the push, just before the cache's
 * refs name its objects ({@link LandedRefs}, under the repository's lock, so that no compaction
 * runs between). A push refused or not taken upstream leaves nothing in the cache.
 *
 * <p>Every object is held as the parser produced it (a commit, tree or tag whole, and any object
 * a delta rebuilt), or, for a blob sent whole, as its place in the pack, inflated when read. What
 * one push holds is bounded ({@link #MAX_PACK_BYTES} of pack, {@link #MAX_HELD_BYTES} of objects
 * inflated and {@link #MAX_HELD_OBJECTS} objects, each charged {@link #OBJECT_OVERHEAD_BYTES} more)
 * and so is what all pushes hold at once ({@link #BUDGET}); a push past either is
 * stored in a file as before ({@link PackStore}). A few bytes of pack can inflate to gigabytes.
 */
final class ReceivedInMemory {
  /** The largest pack held in memory: a push of a few files, as an agent's usually is. */
  static final int MAX_PACK_BYTES = 1 << 20;
  /**
   * The most one push's objects may take inflated, each counted {@link #OBJECT_OVERHEAD_BYTES}
   * more, blobs sent whole at their size.
   */
  static final long MAX_HELD_BYTES = 4L << 20;
  /**
   * The most objects one push may hold: a few bytes of pack make an object, and each held one
   * costs the heap far more than its bytes (a review held 87,000 four-byte blobs from 1 MiB of
   * pack, 15 MiB of heap, charged 1.3 MiB). An agent's push of a few files is tens of objects.
   */
  static final int MAX_HELD_OBJECTS = 4096;
  /** What one object held costs beyond its bytes: its id, its entry, its record, its index entry. */
  static final int OBJECT_OVERHEAD_BYTES = 256;
  /**
   * What every push held in memory may take at once, the appliance over: 128 pushes of a full
   * pack would be 640 MiB of a heap that may be 512 MiB. Past it a push goes to a file.
   */
  static final Budget BUDGET = new Budget(64L << 20);

  /** Memory the held packs may still take. */
  static final class Budget {
    /** No memory: every pack goes to a file (a sync's fetch, forced before it is named). */
    static final Budget NONE = new Budget(0);

    private final AtomicLong left;

    Budget(long bytes) {
      left = new AtomicLong(bytes);
    }

    /** Takes {@code n} bytes if that many are left. */
    boolean take(long n) {
      for (long l = left.get(); l >= n; l = left.get()) {
        if (left.compareAndSet(l, l - n)) {
          return true;
        }
      }
      return false;
    }

    void release(long n) {
      left.addAndGet(n);
    }

    long left() {
      return left.get();
    }
  }

  /** An object of the pack: its bytes, or, for a blob sent whole, where it is in the pack. */
  private record Held(int type, long size, byte[] data, long offset) {}

  private final byte[] pack;
  private final int packLength;
  private final List<PackedObjectInfo> byId;
  private final byte[] packHash;
  private final Map<ObjectId, Held> objects;
  private final Budget budget;
  /** Memory taken from {@link #budget}: the pack's buffer and the objects held. */
  private final long taken;
  private final AtomicBoolean released = new AtomicBoolean();
  private final AtomicBoolean handedOver = new AtomicBoolean();

  private ReceivedInMemory(byte[] pack, int packLength, List<PackedObjectInfo> byId,
      byte[] packHash, Map<ObjectId, Held> objects, Budget budget, long taken) {
    this.pack = pack;
    this.packLength = packLength;
    this.byId = byId;
    this.packHash = packHash;
    this.objects = objects;
    this.budget = budget;
    this.taken = taken;
  }

  /** Gives the memory back; once, whoever calls it. */
  void release() {
    if (released.compareAndSet(false, true)) {
      budget.release(taken);
    }
  }

  /** From now on the cache's ref writer gives the memory back, once it wrote the pack. */
  void handOver() {
    handedOver.set(true);
  }

  /** At the push's end: the memory back, unless the ref writer has the pack to write. */
  void releaseUnlessHandedOver() {
    if (!handedOver.get()) {
      release();
    }
  }

  /** The objects held. */
  int objectCount() {
    return byId.size();
  }

  /**
   * A reader of the cache, {@code cache}, that finds this pack's objects too, as it would had the
   * pack been stored in the cache. Closing it closes {@code cache}.
   */
  ObjectReader reader(ObjectReader cache) {
    return new Reader(cache);
  }

  /**
   * Writes the pack and its index into the cache's pack directory, forced to disk before they are
   * named, and opens the pack; nothing when a pack of the same objects is there already. Under
   * the repository's lock, before a ref names an object of the pack.
   */
  void installInto(CacheRepository cache) throws IOException {
    write(cache, true, null);
  }

  /**
   * Writes the pack into the cache for a push still under way, as a pack received into a file
   * is: not forced ({@link CacheRepository#forceReceived} forces it before a ref names it), and
   * kept from compactions by a {@code .keep} until the returned lock is unlocked. Null when a
   * pack of the same objects is there already.
   */
  PackLock storeKept(CacheRepository cache, String keepMessage) throws IOException {
    return write(cache, false, keepMessage);
  }

  private PackLock write(CacheRepository cache, boolean force, String keepMessage)
      throws IOException {
    ObjectDirectory odb = cache.getObjectDatabase();
    PackFile packFile = PackInstall.nameOf(odb, byId);
    if (PackInstall.stored(packFile)) {
      // kept for this push as CachePackParser keeps a stored pack, and for the same reason
      if (keepMessage == null || PackInstall.keptAlready(packFile)) {
        return null;
      }
      PackInstall.writeKeep(packFile, keepMessage);
      return new PackLockImpl(packFile, cache.getFS());
    }
    File tmpPack = File.createTempFile("incoming_", ".pack", odb.getDirectory());
    File tmpIdx = PackInstall.indexBeside(tmpPack);
    try {
      try (FileOutputStream p = new FileOutputStream(tmpPack);
          FileOutputStream i = new FileOutputStream(tmpIdx)) {
        p.write(pack, 0, packLength);
        PackInstall.writeIndex(i, byId, packHash);
        if (force) {
          ParallelForce.all(List.of(p.getChannel(), i.getChannel()), ch -> ch.force(true));
        }
      }
      PackLockImpl keep = null;
      if (keepMessage != null) {
        PackInstall.writeKeep(packFile, keepMessage);
        keep = new PackLockImpl(packFile, cache.getFS());
      }
      try {
        if (!force) {
          cache.receivedUnforced(packFile, packFile.create(PackExt.INDEX));
        }
        PackInstall.moveIn(odb, tmpPack, tmpIdx, packFile);
      } catch (IOException e) {
        if (keep != null) {
          keep.unlock();
        }
        throw e;
      }
      return keep;
    } finally {
      Files.deleteIfExists(tmpIdx.toPath());
      Files.deleteIfExists(tmpPack.toPath());
    }
  }

  private ObjectLoader open(AnyObjectId id, Held held, int typeHint) throws IOException {
    if (typeHint != ObjectReader.OBJ_ANY && held.type != typeHint) {
      throw new IncorrectObjectTypeException(id.copy(), typeHint);
    }
    byte[] data = held.data != null ? held.data : inflate(held);
    return new ObjectLoader.SmallObject(held.type, data);
  }

  /** A blob sent whole, inflated from the pack: git's checks passed on these bytes already. */
  private byte[] inflate(Held held) throws IOException {
    byte[] out = new byte[(int) held.size];
    int at = (int) held.offset;
    while ((pack[at++] & 0x80) != 0) {
      // the object's header: its type and size, 7 bits a byte, the parser's already
    }
    Inflater inflater = new Inflater();
    try {
      inflater.setInput(pack, at, packLength - at);
      int n = 0;
      while (n < out.length) {
        int r = inflater.inflate(out, n, out.length - n);
        if (r == 0 && (inflater.finished() || inflater.needsInput() || inflater.needsDictionary())) {
          break;
        }
        n += r;
      }
      if (n != out.length) {
        throw new CorruptObjectException("a blob held for a push inflated short");
      }
      return out;
    } catch (DataFormatException e) {
      throw new CorruptObjectException("a blob held for a push does not inflate: "
          + e.getMessage());
    } finally {
      inflater.end();
    }
  }

  /**
   * Gathers what the parser produces, within the bounds; {@link #held} once the pack is parsed.
   * Not thread-safe: one parser's.
   */
  static final class Collector {
    private final Budget budget;
    private final Map<ObjectId, Held> objects = new HashMap<>();
    private long heldBytes;
    /** A thin pack's bases appended from the cache: read from it, not held. */
    private int bases;
    private boolean over;

    Collector(Budget budget) {
      this.budget = budget;
    }

    /** A blob the pack holds whole: its bytes are inflated from the pack when asked for. */
    void wholeBlob(PackedObjectInfo info) {
      if (hold(info.getFullSize() + OBJECT_OVERHEAD_BYTES)) {
        objects.put(info.copy(), new Held(Constants.OBJ_BLOB, info.getFullSize(), null,
            info.getOffset()));
      }
    }

    /** A base of a thin pack's delta, appended from the cache, which keeps it: only indexed. */
    void appendedBase() {
      if (hold(OBJECT_OVERHEAD_BYTES)) {
        bases++;
      }
    }

    /** An object the parser holds inflated: a commit, tree or tag sent whole, or a delta's. */
    void inflated(PackedObjectInfo info, int type, byte[] data) {
      if (hold(data.length + OBJECT_OVERHEAD_BYTES)) {
        objects.put(info.copy(), new Held(type, data.length, data, -1));
      }
    }

    private boolean hold(long n) {
      if (over) {
        return false;
      }
      if (heldBytes + n > MAX_HELD_BYTES || objects.size() + bases >= MAX_HELD_OBJECTS
          || !budget.take(n)) {
        discard();
        return false;
      }
      heldBytes += n;
      return true;
    }

    /**
     * The pack held, if every object of it is and the pack's bytes are in memory; the memory of
     * {@code store} is then the held pack's. Otherwise empty, and whatever was held is given back.
     */
    Optional<ReceivedInMemory> held(PackStore store, List<PackedObjectInfo> byId,
        byte[] packHash) {
      if (over || !store.inMemory() || objects.size() + bases != byId.size()) {
        discard();
        return Optional.empty();
      }
      PackStore.Memory memory = store.handOver();
      ReceivedInMemory pack = new ReceivedInMemory(memory.bytes(), memory.length(),
          List.copyOf(byId), packHash.clone(), Map.copyOf(objects), budget,
          memory.taken() + heldBytes);
      heldBytes = 0; // the pack's to give back now
      over = true;
      objects.clear();
      return Optional.of(pack);
    }

    /** Gives back whatever is still held: a parse that failed, or a pack that went to a file. */
    void discard() {
      budget.release(heldBytes);
      heldBytes = 0;
      objects.clear();
      over = true;
    }
  }

  /** The cache's reader, with the held objects in front of it. */
  private final class Reader extends ObjectReader {
    private final ObjectReader cache;

    Reader(ObjectReader cache) {
      this.cache = cache;
    }

    @Override
    public ObjectReader newReader() {
      return new Reader(cache.newReader());
    }

    @Override
    public Collection<ObjectId> resolve(AbbreviatedObjectId id) throws IOException {
      List<ObjectId> found = new ArrayList<>(cache.resolve(id));
      for (ObjectId o : objects.keySet()) {
        if (id.prefixCompare(o) == 0 && !found.contains(o)) {
          found.add(o);
        }
      }
      return found;
    }

    @Override
    public boolean has(AnyObjectId id) throws IOException {
      return objects.containsKey(id) || cache.has(id);
    }

    @Override
    public boolean has(AnyObjectId id, int typeHint) throws IOException {
      Held held = objects.get(id);
      if (held != null) {
        return typeHint == ObjectReader.OBJ_ANY || held.type == typeHint;
      }
      return cache.has(id, typeHint);
    }

    @Override
    public ObjectLoader open(AnyObjectId id, int typeHint)
        throws MissingObjectException, IncorrectObjectTypeException, IOException {
      Held held = objects.get(id);
      return held != null ? ReceivedInMemory.this.open(id, held, typeHint)
          : cache.open(id, typeHint);
    }

    @Override
    public long getObjectSize(AnyObjectId id, int typeHint) throws IOException {
      Held held = objects.get(id);
      if (held == null) {
        return cache.getObjectSize(id, typeHint);
      }
      if (typeHint != ObjectReader.OBJ_ANY && held.type != typeHint) {
        throw new IncorrectObjectTypeException(id.copy(), typeHint);
      }
      return held.size;
    }

    @Override
    public Set<ObjectId> getShallowCommits() throws IOException {
      return cache.getShallowCommits();
    }

    @Override
    public BitmapIndex getBitmapIndex() throws IOException {
      return cache.getBitmapIndex(); // the cache's objects only; a walk reads the rest
    }

    @Override
    public Optional<org.eclipse.jgit.internal.storage.commitgraph.CommitGraph> getCommitGraph()
        throws IOException {
      return cache.getCommitGraph();
    }

    @Override
    public void setAvoidUnreachableObjects(boolean avoid) {
      cache.setAvoidUnreachableObjects(avoid);
    }

    @Override
    public void setStreamFileThreshold(int threshold) {
      cache.setStreamFileThreshold(threshold);
    }

    @Override
    public int getStreamFileThreshold() {
      return cache.getStreamFileThreshold();
    }

    @Override
    public void close() {
      cache.close();
    }
  }
}
