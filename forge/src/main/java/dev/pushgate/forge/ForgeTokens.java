package dev.pushgate.forge;

import dev.pushgate.types.Secret;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Installation tokens of the local forge, with GitHub's semantics: scoped to repositories and
 * permissions, expiring, revocable. Only their SHA-256 is stored, in the {@link ForgeTokenTable}
 * the appliance gives, so they survive a restart and a revoked or unknown token is refused with
 * 401 after one too.
 */
public final class ForgeTokens {
  /** What a live token may do. */
  public record Grant(List<Long> repositoryIds, Map<String, String> permissions, Instant expiresAt) {
    public boolean canRead(long repositoryId) {
      return repositoryIds.contains(repositoryId) && permissions.containsKey("contents");
    }

    public boolean canWrite(long repositoryId) {
      return repositoryIds.contains(repositoryId) && "write".equals(permissions.get("contents"));
    }
  }

  private static final String ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  private static final int TOKEN_CHARACTERS = 36;

  private final ForgeTokenTable table;
  private final Clock clock;
  private final Duration lifetime;
  private final SecureRandom random = new SecureRandom();

  public ForgeTokens(ForgeTokenTable table, Clock clock, Duration lifetime) {
    this.table = table;
    this.clock = clock;
    this.lifetime = lifetime;
  }

  /** Issues a token in GitHub's installation-token form ({@code ghs_} and 36 characters). */
  public Issued issue(List<Long> repositoryIds, Map<String, String> permissions)
      throws SQLException {
    String token = newToken();
    Instant expiresAt = clock.instant().plus(lifetime);
    table.insert(hash(token),
        new Grant(List.copyOf(repositoryIds),
            Collections.unmodifiableMap(new LinkedHashMap<>(permissions)), expiresAt));
    return new Issued(Secret.of(token), expiresAt);
  }

  /**
   * {@code ghs_} and 36 characters of {@link #ALPHABET}, uniformly drawn. The random bytes are
   * asked for at once: {@code nextInt} per character made 36 calls into the system's generator,
   * each a lock, a read of its buffer and a SHA-1 of its mixing generator. A byte's low six bits
   * pick a character; the two values past the alphabet's 62 are dropped, not folded, so that no
   * character is likelier than another.
   */
  private String newToken() {
    char[] out = new char[TOKEN_CHARACTERS];
    byte[] bytes = new byte[2 * TOKEN_CHARACTERS];
    int n = 0;
    while (n < out.length) {
      random.nextBytes(bytes);
      for (int i = 0; i < bytes.length && n < out.length; i++) {
        int six = bytes[i] & 0x3f;
        if (six < ALPHABET.length()) {
          out[n++] = ALPHABET.charAt(six);
        }
      }
    }
    return "ghs_" + new String(out);
  }

  /** A freshly issued token and when it expires. */
  public record Issued(Secret token, Instant expiresAt) {}

  /** The grant of a live token; empty for an unknown, expired or revoked one. */
  public Optional<Grant> check(String token) throws SQLException {
    if (token == null || token.isEmpty()) {
      return Optional.empty();
    }
    return table.live(hash(token), clock.instant());
  }

  /** Revokes a live token; false when it was not live. */
  public boolean revoke(String token) throws SQLException {
    return table.revoke(hash(token), clock.instant());
  }

  static String hash(String token) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
