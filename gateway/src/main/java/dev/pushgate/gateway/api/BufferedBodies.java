package dev.pushgate.gateway.api;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The request-body bytes every run's calls together hold buffered on the listener (bodies are
 * read whole, before a slot, to be judged): the heap is every run's, and the per-run bound ({@link
 * ApiBoundary#BUFFERED_BYTES}) alone let enough runs' bodies fill it. Bytes are taken before they
 * are held (a declared length at once, other bodies as they arrive) and given back when the call
 * ends, however it ends ({@link ApiExchange#close}). Over it a call is answered 429.
 */
final class BufferedBodies {
  /** The least budget: one run's whole share, so any heap takes a run's largest calls. */
  static final long FLOOR = ApiBoundary.BUFFERED_BYTES;
  /** The most: past it the slots and the per-run bound are what holds the bodies back. */
  static final long CEILING = 512L * 1024 * 1024;
  /**
   * The share of the heap bodies may take: the rest is the gateway's (packs, caches, the
   * judge's parsed JSON, TLS buffers). With the installed unit's 1 GiB heap, 128 MiB.
   */
  static final int HEAP_SHARE = 8;

  private final long limit;
  private final AtomicLong held = new AtomicLong();

  BufferedBodies(long limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be positive: " + limit);
    }
    this.limit = limit;
  }

  /** A budget sized from the heap the JVM may grow to ({@code Runtime.maxMemory()}). */
  static BufferedBodies sizedFor(long maxHeap) {
    return new BufferedBodies(Math.max(FLOOR, Math.min(CEILING, maxHeap / HEAP_SHARE)));
  }

  /** Takes {@code n} bytes; false, taking nothing, when fewer are left. */
  boolean tryTake(int n) {
    while (true) {
      long now = held.get();
      if (now + n > limit) {
        return false;
      }
      if (held.compareAndSet(now, now + n)) {
        return true;
      }
    }
  }

  void give(long n) {
    held.addAndGet(-n);
  }

  /** Bytes held now by every run's calls. */
  long held() {
    return held.get();
  }

  long limit() {
    return limit;
  }
}
