package dev.pushgate.gateway;

/**
 * The syncs of one repository's cache, numbered as they begin, and the latest that left the cache
 * in step with upstream. A request that waited for the lock while a sync that began after it came
 * brought the cache in step is answered by that sync: upstream's refs as read after the request
 * came, as its own sync would have read them. So a crowd of pushes to one repository costs a few
 * ref listings, not one each (issue 35).
 */
final class SyncTurns {
  private long begun;
  private long inStep;

  /** The number of the latest sync begun: what a request arriving now waits to be answered by. */
  synchronized long begun() {
    return begun;
  }

  /** A sync begins; its number. Under the repository's lock. */
  synchronized long begin() {
    return ++begun;
  }

  /** Sync {@code turn} left the cache holding upstream's refs as it read them. */
  synchronized void inStep(long turn) {
    inStep = Math.max(inStep, turn);
  }

  /**
   * Whether a request that came when {@link #begun} was {@code arrived} is answered already: the
   * latest sync began after it and left the cache in step (none after it failed or is running).
   */
  synchronized boolean answers(long arrived) {
    return inStep == begun && inStep > arrived;
  }
}
