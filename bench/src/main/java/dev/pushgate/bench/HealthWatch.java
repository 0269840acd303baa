package dev.pushgate.bench;

import dev.pushgate.testkit.RunningAppliance;
import java.util.ArrayList;
import java.util.List;

/**
 * Asks {@code /healthz} over and over while a scenario runs (each answer within 5 s or it counts
 * as none), and samples the appliance's RSS and threads: whether it stayed alive, and what the
 * crowd cost it.
 */
final class HealthWatch implements AutoCloseable {
  private final RunningAppliance app;
  private final Thread thread;
  private final List<Double> answeredMs = new ArrayList<>();
  private int unanswered;
  private long maxRssKb;
  private int maxThreads;
  private volatile boolean closed;

  private HealthWatch(RunningAppliance app) {
    this.app = app;
    this.thread = new Thread(this::watch, "health-watch");
    thread.setDaemon(true);
  }

  static HealthWatch start(RunningAppliance app) {
    HealthWatch w = new HealthWatch(app);
    w.thread.start();
    return w;
  }

  private void watch() {
    while (!closed) {
      long start = System.nanoTime();
      int status = app.healthz();
      double ms = (System.nanoTime() - start) / 1e6;
      long rss = ApplianceProbe.statusKb(app, "VmRSS");
      long threads = ApplianceProbe.statusKb(app, "Threads");
      synchronized (this) {
        if (status == 200) {
          answeredMs.add(ms);
        } else {
          unanswered++;
        }
        maxRssKb = Math.max(maxRssKb, rss);
        maxThreads = (int) Math.max(maxThreads, threads);
      }
      try {
        Thread.sleep(100); // a probe's pace, as a supervisor's; nothing waits on it
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  synchronized Stats answered() {
    return Stats.of(answeredMs);
  }

  synchronized int unanswered() {
    return unanswered;
  }

  synchronized long maxRssMb() {
    return maxRssKb / 1024;
  }

  synchronized int maxThreads() {
    return maxThreads;
  }

  @Override
  public void close() throws InterruptedException {
    closed = true;
    thread.interrupt();
    thread.join(10_000);
  }
}
