package dev.pushgate.gateway.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * The token a run sees in {@code GH_TOKEN} and {@code GITHUB_TOKEN} in place of a real one: shaped
 * like an installation token so that tools accept it ({@code ghs_}), marked as pushgate's so that a
 * person reading it knows what it is, and random (186 bits) so that nobody guesses another run's.
 * GitHub refuses it: it was never issued. Only the API boundary accepts it, and swaps it for the
 * real token there. Only its SHA-256 is kept; the value itself is handed out once.
 */
public final class ApiSentinel {
  /** What every sentinel starts with: the marker that says whose it is. */
  public static final String PREFIX = "ghs_pushgate";

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final char[] ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".toCharArray();
  private static final int RANDOM_CHARS = 32; // 32 * log2(62) = 190 bits

  private final byte[] hash;

  private ApiSentinel(byte[] hash) {
    this.hash = hash;
  }

  /** A new sentinel value, to be put in the run's environment; keep {@link #of} of it. */
  public static String newValue() {
    StringBuilder b = new StringBuilder(PREFIX);
    for (int i = 0; i < RANDOM_CHARS; i++) {
      b.append(ALPHABET[RANDOM.nextInt(ALPHABET.length)]);
    }
    return b.toString();
  }

  /** What the boundary keeps of {@code value}: its hash. */
  public static ApiSentinel of(String value) {
    if (value == null || !value.startsWith(PREFIX)) {
      throw new IllegalArgumentException("not a pushgate sentinel");
    }
    return new ApiSentinel(sha256(value));
  }

  /** Whether {@code candidate} is this sentinel; in constant time. */
  public boolean matches(String candidate) {
    return candidate != null && MessageDigest.isEqual(hash, sha256(candidate));
  }

  @Override
  public String toString() {
    return "ApiSentinel[hidden]";
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
