package dev.pushgate.appliance.forge;

import dev.pushgate.appliance.store.Database;
import dev.pushgate.types.Secret;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Installation tokens of the local forge, with GitHub's semantics: scoped to repositories and
 * permissions, expiring, revocable. Only their SHA-256 is stored, so they survive a restart and a
 * revoked or unknown token is refused with 401 after one too.
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

  private final Database db;
  private final Clock clock;
  private final Duration lifetime;
  private final SecureRandom random = new SecureRandom();

  public ForgeTokens(Database db, Clock clock, Duration lifetime) {
    this.db = db;
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
    String repos = String.join(",", repositoryIds.stream().map(String::valueOf).toList());
    String perms = encode(permissions);
    db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "INSERT INTO forge_tokens(hash, repository_ids, permissions, expires_at)"
              + " VALUES (?,?,?,?)")) {
        ps.setString(1, hash(token.toString()));
        ps.setString(2, repos);
        ps.setString(3, perms);
        ps.setLong(4, expiresAt.toEpochMilli());
        return ps.executeUpdate();
      }
    });
    return new Issued(Secret.of(token.toString()), expiresAt);
  }

  /** A freshly issued token and when it expires. */
  public record Issued(Secret token, Instant expiresAt) {}

  /** The grant of a live token; empty for an unknown, expired or revoked one. */
  public Optional<Grant> check(String token) throws SQLException {
    if (token == null || token.isEmpty()) {
      return Optional.empty();
    }
    long now = clock.millis();
    return db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT repository_ids, permissions, expires_at FROM forge_tokens"
              + " WHERE hash = ? AND revoked_at IS NULL AND expires_at > ?")) {
        ps.setString(1, hash(token));
        ps.setLong(2, now);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            return Optional.empty();
          }
          List<Long> ids = rs.getString(1).isEmpty() ? List.of()
              : Arrays.stream(rs.getString(1).split(",")).map(Long::valueOf).toList();
          return Optional.of(new Grant(ids, decode(rs.getString(2)),
              Instant.ofEpochMilli(rs.getLong(3))));
        }
      }
    });
  }

  /** Revokes a live token; false when it was not live. */
  public boolean revoke(String token) throws SQLException {
    long now = clock.millis();
    return db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "UPDATE forge_tokens SET revoked_at = ? WHERE hash = ? AND revoked_at IS NULL"
              + " AND expires_at > ?")) {
        ps.setLong(1, now);
        ps.setString(2, hash(token));
        ps.setLong(3, now);
        return ps.executeUpdate() == 1;
      }
    });
  }

  private static String encode(Map<String, String> permissions) {
    StringBuilder s = new StringBuilder();
    permissions.forEach((k, v) -> s.append(s.length() == 0 ? "" : ",").append(k).append('=').append(v));
    return s.toString();
  }

  private static Map<String, String> decode(String s) {
    Map<String, String> out = new LinkedHashMap<>();
    if (!s.isEmpty()) {
      for (String pair : s.split(",")) {
        int eq = pair.indexOf('=');
        out.put(pair.substring(0, eq), pair.substring(eq + 1));
      }
    }
    return out;
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
