package dev.pushgate.gateway;

import java.time.Duration;

/**
 * How much of the appliance the gateway's git requests may take at once, whichever runs they come
 * from: what goes past it is shed at once with a message that says to retry, never queued without
 * end (docs/operations.md#limits-what-one-run-may-take).
 *
 * @param requests git requests the gateway works on at once, all runs and repositories together;
 *     the request threads beyond them stay free for everything else the appliance serves
 * @param waitersPerRepository requests that may wait at once for one repository's cache while
 *     another request syncs it; more are shed at once
 * @param repositoryWait how long one of them waits before it is shed
 */
public record AdmissionLimits(int requests, int waitersPerRepository, Duration repositoryWait) {
  /** The appliance's defaults. */
  public static final AdmissionLimits DEFAULTS =
      new AdmissionLimits(128, 64, Duration.ofSeconds(20));

  public AdmissionLimits {
    if (requests < 1) {
      throw new IllegalArgumentException("the gateway needs at least one request, not " + requests);
    }
    if (waitersPerRepository < 0) {
      throw new IllegalArgumentException(
          "waiters per repository cannot be negative: " + waitersPerRepository);
    }
    if (repositoryWait == null || repositoryWait.isNegative() || repositoryWait.isZero()) {
      throw new IllegalArgumentException("the wait for a repository must be positive: "
          + repositoryWait);
    }
  }

  /**
   * The places past {@link #requests} kept for requests of runs that hold none, so that a few runs
   * holding every place cannot shut the others out: an eighth of the limit, and at least four so
   * that a small limit still lets a few runs outside the crowd in at once.
   */
  public int reserve() {
    return Math.max(4, requests / 8);
  }

  /** Every git request the gateway may work on at once: the limit and its reserve. */
  public int admitted() {
    return requests + reserve();
  }
}
