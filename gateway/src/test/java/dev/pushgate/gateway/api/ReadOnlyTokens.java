package dev.pushgate.gateway.api;

import dev.pushgate.gateway.WriteTokenLease;
import dev.pushgate.types.Secret;

/** The tokens of a run in a test that makes no write: its read token, and no write token. */
final class ReadOnlyTokens implements ApiTokens {
  private final String readToken;

  ReadOnlyTokens(String readToken) {
    this.readToken = readToken;
  }

  @Override
  public Secret readToken() {
    return Secret.of(readToken);
  }

  @Override
  public WriteTokenLease writeToken(String repository) {
    throw new AssertionError("no write token in these tests");
  }
}
