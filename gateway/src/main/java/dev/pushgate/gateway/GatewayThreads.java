package dev.pushgate.gateway;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Every thread the gateway starts of its own, and the one place that stops them. Threads are
 * started when first needed and end when idle, so an owner nobody pushes through costs nothing.
 */
final class GatewayThreads implements AutoCloseable {
  /** Mints write tokens while packs arrive: a round trip to GitHub each, so a few threads. */
  private final ThreadPoolExecutor minting =
      new ThreadPoolExecutor(4, 4, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
          daemons("pushgate-mint"));
  /** One per push streamed upstream, copying its pack while it arrives. */
  private final ThreadPoolExecutor copiers =
      new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
          daemons("pushgate-stream"));
  /**
   * Ticks the deadlines of every push at once: clients that stopped sending, upstreams that
   * stopped reading a streamed pack.
   */
  private final ScheduledThreadPoolExecutor ticker =
      new ScheduledThreadPoolExecutor(1, daemons("pushgate-ticker"));

  /**
   * Content judgements one run may have running at once: its share of the cores (half of them,
   * at least one), so that one run pushing in a loop leaves the others' pushes their usual
   * latency. The run's other pushes wait for a slot (bounded by {@link RunSlots} per run).
   */
  static final int JUDGEMENTS_PER_RUN =
      Math.max(1, Runtime.getRuntime().availableProcessors() / 2);

  /** How long a push waits for its run's other judgements before it is refused, to retry. */
  static final Duration JUDGEMENT_WAIT = Duration.ofSeconds(60);

  private final RunSlots judgements;
  private final Duration judgementWait;

  GatewayThreads() {
    this(JUDGEMENTS_PER_RUN, JUDGEMENT_WAIT);
  }

  GatewayThreads(int judgementsPerRun, Duration judgementWait) {
    this.judgements = new RunSlots(judgementsPerRun);
    this.judgementWait = judgementWait;
    // Core threads: with an unbounded queue no more than the core would start.
    minting.allowCoreThreadTimeOut(true);
    ticker.setRemoveOnCancelPolicy(true);
  }

  ExecutorService minting() {
    return minting;
  }

  ExecutorService copiers() {
    return copiers;
  }

  ScheduledExecutorService ticker() {
    return ticker;
  }

  /** The slots of content judgements, per run. */
  RunSlots judgements() {
    return judgements;
  }

  /** How long a push waits for one of its run's {@link #judgements} slots. */
  Duration judgementWait() {
    return judgementWait;
  }

  boolean closed() {
    return minting.isShutdown() && copiers.isShutdown() && ticker.isShutdown();
  }

  /** Stops every thread; work under way is interrupted (the pushes it served are over). */
  @Override
  public void close() {
    minting.shutdownNow();
    copiers.shutdownNow();
    ticker.shutdownNow();
  }

  private static java.util.concurrent.ThreadFactory daemons(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
