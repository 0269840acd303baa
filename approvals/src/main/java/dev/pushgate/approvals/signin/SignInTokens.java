package dev.pushgate.approvals.signin;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One-time sign-in tokens for the approvals page, as in a Jupyter link: 256 random bits, good
 * once, for a few minutes. Only a hash of each is kept, so a memory dump or a log of this object
 * does not hand out a session.
 */
public final class SignInTokens {
  /** How long a link is good for, unless the appliance says otherwise. */
  public static final Duration DEFAULT_LIFETIME = Duration.ofMinutes(5);
  /** Links not yet used that are kept at once; issuing more forgets the oldest. */
  static final int MAX_OUTSTANDING = 16;

  private final SecureRandom random;
  private final Clock clock;
  private final Duration lifetime;
  /** hash of the token (hex) → when it stops being good; insertion-ordered, oldest first. */
  private final Map<String, Instant> outstanding = new LinkedHashMap<>();

  public SignInTokens(Clock clock, Duration lifetime) {
    this(new SecureRandom(), clock, lifetime);
  }

  SignInTokens(SecureRandom random, Clock clock, Duration lifetime) {
    if (lifetime.isNegative() || lifetime.isZero()) {
      throw new IllegalArgumentException("a sign-in link's lifetime must be positive: " + lifetime);
    }
    this.random = random;
    this.clock = clock;
    this.lifetime = lifetime;
  }

  /** A token issued for the link; only its hash stays here. */
  public record Issued(String token, Instant expiresAt) {
    @Override
    public String toString() {
      return "Issued[token=***, expiresAt=" + expiresAt + "]";
    }
  }

  public synchronized Issued issue() {
    byte[] b = new byte[32];
    random.nextBytes(b);
    String token = Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    Instant expires = clock.instant().plus(lifetime);
    forgetExpired();
    while (outstanding.size() >= MAX_OUTSTANDING) {
      outstanding.remove(outstanding.keySet().iterator().next());
    }
    outstanding.put(hash(token), expires);
    return new Issued(token, expires);
  }

  /** True once for a token issued here and not yet expired; it is spent either way. */
  public synchronized boolean redeem(String token) {
    if (token == null || token.isEmpty() || token.length() > 128) {
      return false;
    }
    Instant expires = outstanding.remove(hash(token));
    return expires != null && clock.instant().isBefore(expires);
  }

  private void forgetExpired() {
    Instant now = clock.instant();
    outstanding.values().removeIf(e -> !now.isBefore(e));
  }

  /** SHA-256, hex: a lookup key that is not the token. */
  static String hash(String secret) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(secret.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this Java", e);
    }
  }
}
