package dev.pushgate.gateway;

import java.io.IOException;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jgit.attributes.AttributesNodeProvider;
import org.eclipse.jgit.lib.BaseRepositoryBuilder;
import org.eclipse.jgit.lib.ObjectDatabase;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.ProgressMonitor;
import org.eclipse.jgit.lib.RefDatabase;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;

/**
 * A gateway cache as one push's receive-pack sees it: the cache's own objects, refs and
 * configuration, but the pack received through it is the push's. JGit's receive-pack makes its
 * pack parser from the repository it is given ({@link Repository#newObjectInserter}), with no
 * other seam per push; given this view, it makes a parser that does not force the pack to disk
 * before a ref names it ({@link CacheRepository#forceReceived}) and hands the push's {@link
 * PackCopy} the pack as it consumes it. The view opens nothing of its own and closes nothing of the
 * cache's: it costs a push no second read of the cache's packs.
 */
final class ReceivingCache extends Repository {
  private final CacheRepository cache;
  private final PackCopy copy;

  /** {@code copy}: the push's, {@link PackCopy#NONE} when the push is not streamed. */
  ReceivingCache(CacheRepository cache, PackCopy copy) {
    this(cache, copy, Runnable::run);
  }

  /**
   * @param unkeep runs the deletion of the received pack's {@code .keep} when JGit unlocks the
   *     pack: the push's {@link Push#afterAnswer}, so that it is not between upstream's report
   *     and git's answer
   */
  ReceivingCache(CacheRepository cache, PackCopy copy,
      java.util.function.Consumer<Runnable> unkeep) {
    this(cache, copy, unkeep, ThinPackBases.Rule.ANY);
  }

  /** @param bases which of the cache's objects may complete the push's thin pack */
  ReceivingCache(CacheRepository cache, PackCopy copy,
      java.util.function.Consumer<Runnable> unkeep, ThinPackBases.Rule bases) {
    this(cache, copy, unkeep, bases, false);
  }

  /**
   * @param holdsSmallPacks whether a small pack is held in memory ({@link ReceivedInMemory}),
   *     not stored in the cache, and read from there by every reader of this view
   */
  ReceivingCache(CacheRepository cache, PackCopy copy,
      java.util.function.Consumer<Runnable> unkeep, ThinPackBases.Rule bases,
      boolean holdsSmallPacks) {
    super(new BaseRepositoryBuilder<>().setGitDir(cache.getDirectory())
        .setFS(cache.getFS()).setBare());
    this.cache = cache;
    this.copy = copy;
    this.unkeep = unkeep;
    this.bases = bases;
    this.holdsSmallPacks = holdsSmallPacks;
  }

  private final java.util.function.Consumer<Runnable> unkeep;
  private final ThinPackBases.Rule bases;
  private final boolean holdsSmallPacks;
  /** The push's pack, once parsed, if it is held in memory. */
  private volatile ReceivedInMemory held;
  private final ObjectDatabase objects = new HeldObjects();

  /** The cache this view shows. */
  CacheRepository cache() {
    return cache;
  }

  @Override
  public ObjectInserter newObjectInserter() {
    return cache.inserter(copy, false, unkeep, bases,
        holdsSmallPacks ? pack -> held = pack : null);
  }

  /** The push's pack if it is held in memory: for the cache once upstream took the push. */
  Optional<ReceivedInMemory> held() {
    return Optional.ofNullable(held);
  }

  /**
   * Writes a pack held in memory into the cache, kept by a {@code .keep} until after the answer,
   * as a pack received into a file is, and reads it from there from now on: for a push that
   * waits for a person. The approvers' page reads the push's changes from the cache ({@code
   * Gateway#diffstat}), and a push that may wait for minutes holds no memory meanwhile.
   */
  void storeForApprovers() throws IOException {
    ReceivedInMemory pack = held;
    if (pack == null) {
      return;
    }
    org.eclipse.jgit.transport.PackLock keep = pack.storeKept(cache, KEEP_MESSAGE);
    held = null;
    pack.release();
    if (keep != null) {
      unkeep.accept(PackInstall.unlocking(keep));
    }
  }

  /** As JGit's receive-pack marks the pack it receives: a start removes such a stale one. */
  private static final String KEEP_MESSAGE = "jgit receive-pack, waiting for an approver";

  /**
   * The cache's objects, and the push's pack's where it is held in memory: a reader made before
   * the pack is parsed (JGit's receive-pack makes its walk first) finds them too once it is.
   */
  private final class HeldObjects extends ObjectDatabase {
    @Override
    public ObjectInserter newInserter() {
      return newObjectInserter();
    }

    @Override
    public ObjectReader newReader() {
      ObjectReader cached = cache.getObjectDatabase().newReader();
      return new DelegatingReader() {
        /** The pack {@link #withHeld} reads, made once per pack: a reader is one thread's. */
        private ReceivedInMemory read;
        private ObjectReader withHeld;

        @Override
        protected ObjectReader delegate() {
          ReceivedInMemory pack = held;
          if (pack == null) {
            return cached;
          }
          if (pack != read) {
            read = pack;
            withHeld = pack.reader(cached);
          }
          return withHeld;
        }

        @Override
        public ObjectReader newReader() {
          return HeldObjects.this.newReader();
        }
      };
    }

    @Override
    public long getApproximateObjectCount() {
      ReceivedInMemory pack = held;
      return cache.getObjectDatabase().getApproximateObjectCount()
          + (pack == null ? 0 : pack.objectCount());
    }

    @Override
    public void close() {
      // the cache's to close
    }
  }

  @Override
  public void create(boolean bare) {
    throw new UnsupportedOperationException("a push's view of a cache creates nothing");
  }

  @Override
  public String getIdentifier() {
    return cache.getIdentifier();
  }

  @Override
  public ObjectDatabase getObjectDatabase() {
    return holdsSmallPacks ? objects : cache.getObjectDatabase();
  }

  @Override
  public RefDatabase getRefDatabase() {
    return cache.getRefDatabase();
  }

  @Override
  public StoredConfig getConfig() {
    return cache.getConfig();
  }

  @Override
  public AttributesNodeProvider createAttributesNodeProvider() {
    return cache.createAttributesNodeProvider();
  }

  @Override
  public Set<ObjectId> getAdditionalHaves() throws IOException {
    return cache.getAdditionalHaves();
  }

  @Override
  public void scanForRepoChanges() throws IOException {
    cache.scanForRepoChanges();
  }

  @Override
  public void notifyIndexChanged(boolean internal) {
    cache.notifyIndexChanged(internal);
  }

  @Override
  public void autoGC(ProgressMonitor monitor) {
    cache.autoGC(monitor);
  }

  /** The cache's object and ref databases are the cache's to close, not the view's. */
  @Override
  protected void doClose() {
    // nothing of its own
  }

  @Override
  public String toString() {
    return "ReceivingCache[" + cache + "]";
  }
}
