package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;

/**
 * A cache's branches and tags, read on a thread of their own while a sync waits for upstream's ref
 * list, so that the comparison which follows the list waits for no read of the cache's refs
 * ({@code packed-refs} and the loose refs' directories, a few file system calls on every push's
 * advertisement). The sync holds the repository's lock from before the read starts until after it
 * compares, and every writer of the cache's refs holds that lock: what is read ahead is what the
 * comparison would have read after the list.
 */
final class CacheRefsAhead implements AutoCloseable {
  /** Up to 4 readers, one per repository syncing at once; a fifth sync reads in its own thread. */
  private final ThreadPoolExecutor readers = new ThreadPoolExecutor(0, 4, 30, TimeUnit.SECONDS,
      new SynchronousQueue<>(), r -> {
        Thread t = new Thread(r, "pushgate-cache-read");
        t.setDaemon(true);
        return t;
      });

  /**
   * Starts reading the branches and tags of {@code repo}'s cache. The cache is opened here, in the
   * caller's thread, which creates it when missing under the lock the caller holds; the reader
   * closes it once read.
   */
  Reading start(CacheRepositories repositories, RepoSlug repo) throws IOException {
    Repository cache = repositories.open(repo);
    FutureTask<Map<String, ObjectId>> read = new FutureTask<>(() -> {
      try (cache) {
        return MirroredRefs.of(cache);
      }
    });
    try {
      readers.execute(read);
    } catch (RejectedExecutionException busy) {
      read.run();
    }
    return new Reading(read);
  }

  /** One read started by {@link #start}. */
  static final class Reading {
    private final FutureTask<Map<String, ObjectId>> read;

    private Reading(FutureTask<Map<String, ObjectId>> read) {
      this.read = read;
    }

    /** The refs read, once they are; the read's own failure if it failed. */
    Map<String, ObjectId> refs() throws IOException {
      try {
        return read.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while the cache's refs were read");
      } catch (ExecutionException e) {
        if (e.getCause() instanceof IOException io) {
          throw io;
        }
        if (e.getCause() instanceof RuntimeException re) {
          throw re;
        }
        throw new IOException("could not read the cache's refs", e.getCause());
      }
    }
  }

  @Override
  public void close() {
    readers.shutdownNow();
  }
}
