package dev.pushgate.appliance.runs;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/** Run credentials: random, unguessable, and stored only as hashes. */
final class Credentials {
  private static final SecureRandom RANDOM = new SecureRandom();

  private Credentials() {}

  /** A gateway credential: {@code pgr_} and 256 random bits. */
  static String newRunCredential() {
    byte[] b = new byte[32];
    RANDOM.nextBytes(b);
    return "pgr_" + Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  static String hash(String credential) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(credential.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
