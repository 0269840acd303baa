package dev.pushgate.types;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A log line about events a client can cause hundreds of times a second (a refused or failed
 * connection), written at most once per interval: the first, then one per interval, each
 * standing for the events left unlogged since the last, so that a flood writes no more.
 */
public final class LogLineRate {
  private final long intervalNanos;
  private final LongSupplier nanoTime;
  private final AtomicLong sinceLine = new AtomicLong();
  private final AtomicLong lastLine;

  public LogLineRate(Duration interval) {
    this(interval, System::nanoTime);
  }

  /** As the public constructor, on {@code nanoTime}'s clock (a test's). */
  LogLineRate(Duration interval, LongSupplier nanoTime) {
    this.intervalNanos = interval.toNanos();
    this.nanoTime = nanoTime;
    this.lastLine = new AtomicLong(nanoTime.getAsLong() - intervalNanos);
  }

  /**
   * One more event: how many events a line written now stands for (this one and those left
   * unlogged since the last line), or 0 when no line is due.
   */
  public long event() {
    sinceLine.incrementAndGet();
    long last = lastLine.get();
    long now = nanoTime.getAsLong();
    if (now - last < intervalNanos || !lastLine.compareAndSet(last, now)) {
      return 0;
    }
    return sinceLine.getAndSet(0);
  }
}
