package dev.pushgate.gateway;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The fetch cache's background threads. */
final class CacheThreads {
  private static final Logger log = LoggerFactory.getLogger(CacheThreads.class);

  /** How long a stop waits for the file system work under way: a ref write, a compaction. */
  static final Duration STOP_WAIT = Duration.ofSeconds(10);

  private CacheThreads() {}

  /**
   * Stops {@code threads}: what is queued is dropped, what runs is interrupted and waited for, up
   * to {@link #STOP_WAIT}, so that none of their writes lands in a cache once the gateway has
   * stopped (a compaction finishing after its directory was removed left a file in it).
   */
  static void stop(ExecutorService threads, String what) {
    threads.shutdownNow();
    try {
      if (!threads.awaitTermination(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("the cache's {} did not end within {} s of the stop", what,
            STOP_WAIT.toSeconds());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One thread at most, gone when idle. */
  static ThreadPoolExecutor oneWhenBusy(String name, int priority) {
    return new ThreadPoolExecutor(0, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      t.setPriority(priority);
      return t;
    });
  }
}
