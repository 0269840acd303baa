package dev.pushgate.gateway;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jgit.errors.RepositoryNotFoundException;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.RepositoryCache;
import org.eclipse.jgit.transport.PackParser;
import org.eclipse.jgit.util.FS;

/**
 * A gateway cache: a file repository whose received packs are stored by {@link CachePackParser}.
 *
 * <p>A pack a push brings is not forced to disk while the push waits for it: JGit forces every
 * pack it receives, about 100 ms for 100 MiB here, and the push's trailer goes upstream only
 * after the gateway's own receive. The pack is forced instead before any ref of the cache is
 * written ({@link #forceReceived}), which happens after the push is answered
 * ({@link UpstreamCache#landed}) or when a sync moves the refs. So, as with JGit's own parser,
 * no ref of the cache names an object whose pack a crash of the machine could lose. The packs a
 * sync fetches are forced before they are put in place, as JGit does: JGit's own fetch writes
 * refs right after its pack. A push's pack is received through its own view of the cache,
 * {@link ReceivingCache}.
 */
final class CacheRepository extends FileRepository {
  /** The files of packs received and not forced to disk yet. */
  private final Set<Path> unforced = ConcurrentHashMap.newKeySet();

  private CacheRepository(File gitDir) throws IOException {
    super(gitDir);
  }

  /**
   * The key under which JGit's {@link RepositoryCache} shares the cache of {@code gitDir}: equal
   * to JGit's own key of that directory, but it opens a {@link CacheRepository}.
   */
  static RepositoryCache.FileKey key(File gitDir) {
    return new Key(gitDir);
  }

  /**
   * Brings {@code db}'s list of packs up to date with its pack directory, and reads every pack's
   * index, by asking for an id no pack holds: JGit lists the directory again when it changed
   * since its last look. A push's collision check asks for each of its new objects, so a pack
   * just written would otherwise have it list the directory on the next push's path.
   */
  static void readPacks(Repository db) throws IOException {
    db.getObjectDatabase().has(ObjectId.zeroId());
  }

  /**
   * Forces to disk the packs {@code cache} received and did not force yet; called before a ref of
   * the cache is written. Nothing for a repository that is not a cache.
   */
  static void forceReceived(Repository cache) throws IOException {
    if (cache instanceof CacheRepository c) {
      c.forceReceived();
    }
  }

  private void forceReceived() throws IOException {
    List<Path> files = List.copyOf(unforced);
    ParallelForce.all(files, p -> {
      try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
        ch.force(true);
      } catch (NoSuchFileException e) {
        // replaced by a compaction, which forced the pack it wrote instead
      }
    });
    files.forEach(unforced::remove); // only once every one is forced: a failure forces all again
  }

  /** The files of packs received and not forced to disk yet. */
  Set<Path> unforced() {
    return Set.copyOf(unforced);
  }

  /** Called by the parser once a pack it did not force is in place. */
  void receivedUnforced(File pack, File idx) {
    unforced.add(pack.toPath());
    unforced.add(idx.toPath());
  }

  /** A pack a sync fetches into the cache is forced to disk before it is put in place. */
  @Override
  public ObjectInserter newObjectInserter() {
    return inserter(PackCopy.NONE, true);
  }

  /**
   * An inserter whose pack parser stores what it parses in this cache, handing {@code copy} the
   * pack as it consumes it, and forcing it to disk before it is put in place if {@code force}.
   */
  ObjectInserter inserter(PackCopy copy, boolean force) {
    return inserter(copy, force, Runnable::run);
  }

  /**
   * As {@link #inserter(PackCopy, boolean)}, the received pack's {@code .keep} deleted by
   * {@code unkeep} when JGit unlocks the pack: at once, or later ({@link CachePackParser}).
   */
  ObjectInserter inserter(PackCopy copy, boolean force,
      java.util.function.Consumer<Runnable> unkeep) {
    return inserter(copy, force, unkeep, ThinPackBases.Rule.ANY);
  }

  /**
   * As {@link #inserter(PackCopy, boolean, java.util.function.Consumer)}, a thin pack completed
   * only with the bases {@code bases} allows: for a push, those its run reaches.
   */
  ObjectInserter inserter(PackCopy copy, boolean force,
      java.util.function.Consumer<Runnable> unkeep, ThinPackBases.Rule bases) {
    return inserter(copy, force, unkeep, bases, null);
  }

  /**
   * As {@link #inserter(PackCopy, boolean, java.util.function.Consumer, ThinPackBases.Rule)},
   * a pack small enough held in memory and given to {@code holder} instead of stored
   * ({@link ReceivedInMemory}); null stores every pack.
   */
  ObjectInserter inserter(PackCopy copy, boolean force,
      java.util.function.Consumer<Runnable> unkeep, ThinPackBases.Rule bases,
      java.util.function.Consumer<ReceivedInMemory> holder) {
    ObjectInserter inserter = getObjectDatabase().newInserter();
    return new ObjectInserter.Filter() {
      @Override
      protected ObjectInserter delegate() {
        return inserter;
      }

      @Override
      public PackParser newPackParser(InputStream in) {
        return new CachePackParser(CacheRepository.this, in, copy, force, unkeep, bases,
            holder);
      }
    };
  }

  /** The packs still unforced when the cache is closed for good are forced now. */
  @Override
  protected void doClose() {
    try {
      forceReceived();
    } catch (IOException e) {
      // nothing names them yet; a later ref write would have forced them
    }
    super.doClose();
  }

  private static final class Key extends RepositoryCache.FileKey {
    Key(File gitDir) {
      super(gitDir, FS.DETECTED);
    }

    @Override
    public Repository open(boolean mustExist) throws IOException {
      if (mustExist && !isGitRepository(getFile(), FS.DETECTED)) {
        throw new RepositoryNotFoundException(getFile());
      }
      return new CacheRepository(getFile());
    }
  }
}
