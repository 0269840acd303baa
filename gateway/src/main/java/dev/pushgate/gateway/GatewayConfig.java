package dev.pushgate.gateway;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the gateway. {@code gitHost} is the host part of the URLs the gateway serves
 * ({@code /git/<gitHost>/<owner>/<repo>.git}); {@code maxPackBytes} bounds one push;
 * {@code writeTokensPerMinute} bounds the write tokens one run may have minted (a burst of that
 * many, then that many a minute).
 */
public record GatewayConfig(
    String gitHost,
    Path cacheDir,
    long maxPackBytes,
    Duration clientTimeout,
    Duration upstreamTimeout,
    Clock clock,
    int writeTokensPerMinute) {

  /** The host part of the gateway's URLs for GitHub repositories. */
  public static final String GITHUB_HOST = "github.com";

  public static final long DEFAULT_MAX_PACK_BYTES = 2L * 1024 * 1024 * 1024;

  /**
   * Write tokens one run may have minted per minute. A mint and its revocation are two calls of
   * the GitHub App's 5,000 an hour; an agent pushing more than this every minute is looping.
   */
  public static final int DEFAULT_WRITE_TOKENS_PER_MINUTE = 20;

  /** With the default budget of write tokens. */
  public GatewayConfig(String gitHost, Path cacheDir, long maxPackBytes, Duration clientTimeout,
      Duration upstreamTimeout, Clock clock) {
    this(gitHost, cacheDir, maxPackBytes, clientTimeout, upstreamTimeout, clock,
        DEFAULT_WRITE_TOKENS_PER_MINUTE);
  }

  public GatewayConfig {
    Objects.requireNonNull(gitHost, "gitHost");
    if (!gitHost.matches("[A-Za-z0-9.-]+(:[0-9]+)?")) {
      throw new IllegalArgumentException("not a git host name: " + gitHost);
    }
    Objects.requireNonNull(cacheDir, "cacheDir");
    if (maxPackBytes <= 0) {
      throw new IllegalArgumentException("maxPackBytes must be positive: " + maxPackBytes);
    }
    Objects.requireNonNull(clientTimeout, "clientTimeout");
    Objects.requireNonNull(upstreamTimeout, "upstreamTimeout");
    Objects.requireNonNull(clock, "clock");
    if (writeTokensPerMinute < 1) {
      throw new IllegalArgumentException(
          "writeTokensPerMinute must be at least 1: " + writeTokensPerMinute);
    }
  }

  public static GatewayConfig defaults(Path cacheDir) {
    return new GatewayConfig(
        GITHUB_HOST,
        cacheDir,
        DEFAULT_MAX_PACK_BYTES,
        Duration.ofMinutes(2),
        Duration.ofMinutes(5),
        Clock.systemUTC());
  }
}
