package dev.pushgate.gateway;

import dev.pushgate.types.Secret;

/** A write token minted for one push. Closing it revokes it. */
public interface WriteTokenLease extends AutoCloseable {
  Secret token();

  /** Revokes the token; a failure is the lessor's to retry, never the push's. */
  @Override
  void close();
}
