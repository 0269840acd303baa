package dev.pushgate.gateway;

import dev.pushgate.types.AuditEntry;
import java.time.Duration;

/** What the gateway reports for metrics. Port owned by the gateway; {@link #NONE} counts nothing. */
public interface PushMetrics {
  PushMetrics NONE = new PushMetrics() {};

  /** One ref update decided, {@code kind} its kind; {@code code} is null when allowed. */
  default void onDecision(String kind, AuditEntry.Decision decision, RefusalCode code) {}

  /**
   * One forward upstream and how long it took, whatever its outcome; {@code streamed} when the
   * pack was copied upstream while it arrived, so that only its end was left to send.
   */
  default void onForward(Duration took, boolean ok, boolean streamed) {}

  /**
   * One sync of a cache from upstream; {@code fetched} when upstream's refs differed from the
   * cache's, so objects were fetched, not only the ref list read.
   */
  default void onSync(Duration took, boolean ok, boolean fetched) {}

  /**
   * One write token asked for: {@code outcome} is {@code minted}, {@code minted-with-workflows},
   * {@code failed} (upstream refused or could not be reached) or {@code rate-limited} (the run's
   * budget was spent, so upstream was not asked).
   */
  default void onWriteTokenMint(String outcome) {}

  /**
   * One git request shed by admission, nothing done: {@code door} is {@code fetch} (upload-pack)
   * or {@code push} (receive-pack), {@code limit} {@code gateway} (its limit of requests at once)
   * or {@code repository} (one repository's wait).
   */
  default void onShed(String door, String limit) {}
}
