package dev.pushgate.appliance.store;

import dev.pushgate.forge.ForgeTokenTable;
import dev.pushgate.forge.ForgeTokens;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The local forge's tokens in the appliance's database ({@code forge_tokens}, SQLite or a fleet's
 * PostgreSQL): repository ids and permissions as comma-separated text, times in epoch
 * milliseconds, the token only as its hash.
 */
public final class ForgeTokenRows implements ForgeTokenTable {
  // Kept prepared (Database#prepare): a gateway push has the forge insert a token, check it on
  // its forwarded receive, and revoke it, and SQLite compiles a statement at every prepare.
  private static final String INSERT = "INSERT INTO forge_tokens(hash, repository_ids,"
      + " permissions, expires_at) VALUES (?,?,?,?)";
  private static final String LIVE = "SELECT repository_ids, permissions, expires_at FROM"
      + " forge_tokens WHERE hash = ? AND revoked_at IS NULL AND expires_at > ?";
  private static final String REVOKE = "UPDATE forge_tokens SET revoked_at = ? WHERE hash = ?"
      + " AND revoked_at IS NULL AND expires_at > ?";

  private final Database db;

  public ForgeTokenRows(Database db) {
    this.db = db;
  }

  @Override
  public void insert(String hash, ForgeTokens.Grant grant) throws SQLException {
    String repos = String.join(",", grant.repositoryIds().stream().map(String::valueOf).toList());
    db.with(c -> {
      try (Database.Prepared p = db.prepare(c, INSERT)) {
        PreparedStatement ps = p.statement();
        ps.setString(1, hash);
        ps.setString(2, repos);
        ps.setString(3, encode(grant.permissions()));
        ps.setLong(4, grant.expiresAt().toEpochMilli());
        return ps.executeUpdate();
      }
    });
  }

  @Override
  public Optional<ForgeTokens.Grant> live(String hash, Instant now) throws SQLException {
    return db.with(c -> {
      try (Database.Prepared p = db.prepare(c, LIVE)) {
        PreparedStatement ps = p.statement();
        ps.setString(1, hash);
        ps.setLong(2, now.toEpochMilli());
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            return Optional.empty();
          }
          List<Long> ids = rs.getString(1).isEmpty() ? List.of()
              : Arrays.stream(rs.getString(1).split(",")).map(Long::valueOf).toList();
          return Optional.of(new ForgeTokens.Grant(ids, decode(rs.getString(2)),
              Instant.ofEpochMilli(rs.getLong(3))));
        }
      }
    });
  }

  @Override
  public boolean revoke(String hash, Instant now) throws SQLException {
    return db.with(c -> {
      try (Database.Prepared p = db.prepare(c, REVOKE)) {
        PreparedStatement ps = p.statement();
        ps.setLong(1, now.toEpochMilli());
        ps.setString(2, hash);
        ps.setLong(3, now.toEpochMilli());
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
    return Collections.unmodifiableMap(out);
  }
}
