package dev.pushgate.gateway;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The pushes that asked a person, counted until their answer is written and the push closed.
 *
 * <p>The appliance's stop withdraws every question, then waits here before it stops its
 * connectors: Jetty's graceful stop cuts the idle timeout of every connection to a second at
 * once, and a held push's connection has been silent since its last progress line, so a refusal
 * still being written as the stop began was failed ("Idle timeout expired: 1487/1000 ms") and git
 * read a cut answer ({@code curl 18 transfer closed with outstanding read data remaining})
 * where "the appliance is shutting down" was due.
 */
final class HeldPushes {
  private int held;

  /** Counts one held push; the release, which counts once however often it runs. */
  synchronized Runnable hold() {
    held++;
    AtomicBoolean released = new AtomicBoolean();
    return () -> {
      if (released.compareAndSet(false, true)) {
        release();
      }
    };
  }

  private synchronized void release() {
    held--;
    notifyAll();
  }

  /** Waits until no push is held, for at most {@code within}; whether none is. */
  synchronized boolean awaitAnswered(Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (held > 0) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      wait(Math.max(1, left / 1_000_000));
    }
    return true;
  }
}
