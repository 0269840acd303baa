package dev.pushgate.gateway.api;

import dev.pushgate.gateway.RunShares;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The bytes every run's calls together hold buffered on the listener: request bodies (read whole,
 * before a slot, to be judged), the values of GitHub's answers read for their download links
 * ({@link DownloadLinks}), and whole answers Jetty holds until the run reads them, GitHub's and
 * the boundary's own errors ({@link ApiExchange#writeWhole}). The heap is every run's, and a
 * bound per run alone let enough runs' bodies fill it, and none at all let sixteen answers of large files take it. Bytes are taken
 * before they are held and given back when the call ends, however it ends ({@link
 * ApiExchange#close}), or sooner (an answer's value once it is passed on).
 *
 * <p>One run's share is the call slots' rule in bytes ({@link RunShares}): {@link
 * ApiBoundary#BUFFERED_BYTES} while the budget is less than half held, one largest body ({@link
 * #BUSY_SHARE}) until its last quarter, and in that quarter {@link #LAST_SHARE}, so that a few
 * runs holding large bodies for the whole body deadline leave room for every other run's JSON
 * calls. Over it a call is answered 429 (a body) or 503 (an answer), with {@code Retry-After}.
 */
final class BufferedBytes {
  /**
   * The least budget: one run's own bound, so that on any heap a run alone still gets a body of
   * the largest judged (the first half) and other runs their JSON calls beside it.
   */
  static final long FLOOR = ApiBoundary.BUFFERED_BYTES;
  /** The most: past it the slots and the per-run bound are what holds the bodies back. */
  static final long CEILING = 512L * 1024 * 1024;
  /**
   * The share of the heap bodies may take: the rest is the gateway's (packs, caches, the
   * judge's parsed JSON, TLS buffers). With the installed unit's 1 GiB heap, 128 MiB.
   */
  static final int HEAP_SHARE = 8;
  /** A run's share once half of the budget is held: one body of the largest judged. */
  static final long BUSY_SHARE = ApiBoundary.MAX_BODY;
  /**
   * A run's share in the last quarter of the budget: the largest JSON body read ({@link
   * JsonBody#MAX_BYTES}), so that every judged JSON call still fits there.
   */
  static final long LAST_SHARE = JsonBody.MAX_BYTES;

  private final RunShares shares;

  /**
   * A budget of {@code limit} bytes; one run's share of it at most the run's own bound, or the
   * whole of a smaller budget (a test's).
   */
  BufferedBytes(long limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be positive: " + limit);
    }
    long perRun = Math.min(ApiBoundary.BUFFERED_BYTES, limit);
    long busy = Math.min(BUSY_SHARE, perRun);
    this.shares = new RunShares(perRun, limit, busy, limit / 4, Math.min(LAST_SHARE, busy));
  }

  /** A budget sized from the heap the JVM may grow to ({@code Runtime.maxMemory()}). */
  static BufferedBytes sizedFor(long maxHeap) {
    return new BufferedBytes(Math.max(FLOOR, Math.min(CEILING, maxHeap / HEAP_SHARE)));
  }

  /**
   * Takes {@code n} bytes for {@code runId}, waiting up to {@code maxWait} for other calls to give
   * bytes back (an answer being read: its run has it half, and other calls end); anything but
   * {@code TAKEN} takes nothing.
   */
  synchronized RunShares.Take take(String runId, int n, Duration maxWait)
      throws InterruptedException {
    long end = System.nanoTime() + maxWait.toNanos();
    while (true) {
      RunShares.Take t = shares.take(runId, n);
      long left = end - System.nanoTime();
      if (t == RunShares.Take.TAKEN || left <= 0) {
        return t;
      }
      wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left))); // woken when bytes are given back
    }
  }

  synchronized void give(String runId, long n) {
    shares.give(runId, n);
    notifyAll();
  }

  /** Bytes held now by every run's calls. */
  long held() {
    return shares.taken();
  }

  /** Bytes held now by {@code runId}'s calls. */
  long held(String runId) {
    return shares.held(runId);
  }

  /** The most one run's calls may hold, whatever the others hold. */
  long perRun() {
    return shares.perRun();
  }

  long limit() {
    return shares.total();
  }

  /** The fewest runs that fill the budget ({@link RunShares#runsToFill}). */
  long runsToFill() {
    return shares.runsToFill();
  }
}
