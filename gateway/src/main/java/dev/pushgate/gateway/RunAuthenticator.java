package dev.pushgate.gateway;

import java.util.Optional;

/** Finds the live run a gateway credential belongs to. Port owned by the gateway. */
@FunctionalInterface
public interface RunAuthenticator {
  /** Nobody is authenticated: the safe default. */
  RunAuthenticator NONE = credential -> Optional.empty();

  /**
   * The run whose live credential equals {@code credential}, compared in constant time; empty for
   * an unknown, expired or revoked credential.
   */
  Optional<RunContext> authenticate(String credential);
}
