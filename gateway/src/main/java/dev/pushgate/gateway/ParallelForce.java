package dev.pushgate.gateway;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Forces several files to disk at once rather than one after the other, and returns only once
 * every one of them is forced. A file's {@code fsync} writes its data and then waits for the
 * file system's journal to commit; one after the other, a pack and its index wait for two such
 * commits, at once their writes go out together and the second mostly finds its commit done
 * (a fetched pack and its index on the push's path when upstream moved: docs/benchmarks.md,
 * "Upstream moved: the cache's fetch on the push's path"). Callers rely on the return: nothing
 * is put in place, and no ref names the files' objects, before it.
 */
final class ParallelForce {
  /**
   * Forces all but one file of a call, the caller's thread the last: up to 4 threads, gone a
   * second after their last force. Past them the caller forces the file itself, as before.
   */
  private static final ThreadPoolExecutor FORCERS = new ThreadPoolExecutor(0, 4, 1,
      TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
        Thread t = new Thread(r, "pushgate-fsync");
        t.setDaemon(true);
        return t;
      }, new ThreadPoolExecutor.CallerRunsPolicy());

  private ParallelForce() {}

  /** Forces one file to disk. */
  @FunctionalInterface
  interface Force<T> {
    void force(T file) throws IOException;
  }

  /**
   * Runs {@code force} on every one of {@code files} at once and returns once each has returned,
   * whether or not the others failed; then throws the first failure, if any.
   */
  static <T> void all(List<T> files, Force<T> force) throws IOException {
    if (files.isEmpty()) {
      return;
    }
    List<Future<?>> others = new ArrayList<>();
    for (T file : files.subList(0, files.size() - 1)) {
      others.add(FORCERS.submit(() -> {
        try {
          force.force(file);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }));
    }
    IOException failed = null;
    try {
      force.force(files.get(files.size() - 1));
    } catch (IOException e) {
      failed = e;
    } catch (RuntimeException e) {
      failed = new IOException("could not force a file to disk: " + e, e);
    }
    for (Future<?> other : others) {
      IOException e = awaitUninterruptibly(other);
      if (failed == null) {
        failed = e;
      }
    }
    if (failed != null) {
      throw failed;
    }
  }

  /**
   * Waits for {@code force} whatever interrupts come: a caller must never take a file for
   * forced while its force is still running. Null when it succeeded, else its failure.
   */
  private static IOException awaitUninterruptibly(Future<?> force) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          force.get();
          return null;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof UncheckedIOException u) {
            return u.getCause();
          }
          return new IOException("could not force a file to disk: " + cause, cause);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
