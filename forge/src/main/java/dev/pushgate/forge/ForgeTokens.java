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
    StringBuilder token = new StringBuilder("ghs_");
    for (int i = 0; i < 36; i++) {
      token.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
    }
    Instant expiresAt = clock.instant().plus(lifetime);
    table.insert(hash(token.toString()),
        new Grant(List.copyOf(repositoryIds),
            Collections.unmodifiableMap(new LinkedHashMap<>(permissions)), expiresAt));
    return new Issued(Secret.of(token.toString()), expiresAt);
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
