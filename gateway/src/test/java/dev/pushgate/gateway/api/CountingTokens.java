package dev.pushgate.gateway.api;

import dev.pushgate.gateway.WriteTokenLease;
import dev.pushgate.types.Secret;
import java.util.concurrent.atomic.AtomicInteger;

/** A run's tokens in a test: its read token, and a write token counted as minted and revoked. */
final class CountingTokens implements ApiTokens {
  final AtomicInteger minted = new AtomicInteger();
  final AtomicInteger revoked = new AtomicInteger();
  private final String readToken;
  private final String writeToken;

  CountingTokens(String readToken, String writeToken) {
    this.readToken = readToken;
    this.writeToken = writeToken;
  }

  @Override
  public Secret readToken() {
    return Secret.of(readToken);
  }

  @Override
  public WriteTokenLease writeToken(String repository) {
    minted.incrementAndGet();
    return new WriteTokenLease() {
      @Override
      public Secret token() {
        return Secret.of(writeToken);
      }

      @Override
      public void close() {
        revoked.incrementAndGet();
      }
    };
  }
}
