package dev.pushgate.gateway;

import dev.pushgate.broker.Secret;

/**
 * A write token lent to one push. Closing it gives it back: the lessor revokes it, at once or
 * once it is no longer kept for the run's next push, and at the run's end at the latest.
 */
public interface WriteTokenLease extends AutoCloseable {
  Secret token();

  /** Revokes the token; a failure is the lessor's to retry, never the push's. */
  @Override
  void close();
}
