package dev.pushgate.gateway.api;

import dev.pushgate.gateway.UpstreamException;
import dev.pushgate.gateway.WriteTokenLease;
import dev.pushgate.types.Secret;

/**
 * The real tokens an allowed call is sent upstream with, for one run. Port filled by the
 * appliance: the read token is the run's own (kept fresh by the appliance), a write token is
 * minted like a push's, within the run's mint budget, and revoked once the call is answered.
 */
public interface ApiTokens {
  /** The run's read token (contents read, pull requests write). */
  Secret readToken() throws UpstreamException;

  /** A token with contents write on {@code repository} ({@code owner/name}) alone, for one call. */
  WriteTokenLease writeToken(String repository) throws UpstreamException;
}
