package dev.pushgate.gateway;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** The fetch cache's background threads. */
final class CacheThreads {
  private CacheThreads() {}

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
