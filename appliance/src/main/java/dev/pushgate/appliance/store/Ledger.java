package dev.pushgate.appliance.store;

import dev.pushgate.types.AuditEntry;
import dev.pushgate.types.Secret;
import java.security.GeneralSecurityException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable record of every run and every credential issued for it, so that a restarted
 * appliance can still revoke what a crashed one left alive. Tokens are sealed with {@link
 * SecretBox}; run credentials are kept only as hashes.
 *
 * <p>Several hosts may share one database. A ledger bound to a host (see {@link HostId}) stamps
 * the runs it inserts with it, and its "every unended run" and "every live credential" views
 * leave out the runs other hosts still hold; one run, looked up by id, is visible to every host,
 * so any host can end a dead host's run and revoke its credentials.
 */
public final class Ledger {
  private static final Logger log = LoggerFactory.getLogger(Ledger.class);

  /** A run as stored. {@code rulesJson} is the workspace rules document as JSON. */
  public record RunRow(
      String id,
      String workspaceId,
      String sessionId,
      String agentId,
      String mode,
      String repository,
      Long repositoryId,
      String attachedJson,
      String rulesJson,
      String credentialHash,
      String gitConfigPath,
      String backend,
      Instant createdAt,
      Instant expiresAt,
      Instant endedAt,
      String endReason) {

    public boolean live(Instant now) {
      return endedAt == null && expiresAt.isAfter(now);
    }

    /** This run as {@link Ledger#setBackend} records it once its sandbox plan is known. */
    public RunRow withBackend(String b) {
      return new RunRow(id, workspaceId, sessionId, agentId, mode, repository, repositoryId,
          attachedJson, rulesJson, credentialHash, gitConfigPath, b, createdAt, expiresAt,
          endedAt, endReason);
    }
  }

  /** A credential that has not been confirmed revoked. */
  public record LiveCredential(
      long id, String runId, String kind, String repository, Secret token, Instant expiresAt) {}

  private static final String RUN_COLUMNS =
      "id, workspace_id, session_id, agent_id, mode, repository, repository_id, attached, rules,"
          + " credential_hash, git_config_path, backend, created_at, expires_at, ended_at,"
          + " end_reason";

  // The statements of a push's token issued and revoked, kept prepared (Database#prepare): the
  // issue and the revocation of a write token are two of a push's four chained transactions.
  private static final String INSERT_CREDENTIAL =
      "INSERT INTO credentials(run_id, kind, repository, token, issued_at, expires_at)"
          + " VALUES (?,?,?,?,?,?) RETURNING id";
  private static final String UNREVOKED_CREDENTIAL =
      "SELECT run_id, kind, repository FROM credentials WHERE id = ? AND revoked_at IS NULL";
  private static final String SET_REVOKED = "UPDATE credentials SET revoked_at = ?,"
      + " last_error = NULL, revoke_attempts = revoke_attempts + 1 WHERE id = ?";

  private final Database db;
  private final SecretBox box;
  private final String host;
  /** Where tokens issued and revoked are audited; null for tools and tests, which audit none. */
  private final AuditChain audit;

  /** A ledger that sees every host's runs, for tools that read the database. */
  public Ledger(Database db, SecretBox box) {
    this(db, box, null);
  }

  /** The ledger of the appliance on {@code host}, auditing nothing. */
  public Ledger(Database db, SecretBox box, String host) {
    this(db, box, host, null);
  }

  /**
   * The ledger of the appliance on {@code host}: each token issued and each revocation confirmed
   * is also chained in {@code audit}, in the transaction that records it here.
   */
  public Ledger(Database db, SecretBox box, String host, AuditChain audit) {
    this.db = db;
    this.box = box;
    this.host = host;
    this.audit = audit;
  }

  public void insertRun(RunRow r) throws SQLException {
    db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "INSERT INTO runs(" + RUN_COLUMNS + ", host) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")) {
        ps.setString(1, r.id());
        ps.setString(2, r.workspaceId());
        ps.setString(3, r.sessionId());
        ps.setString(4, r.agentId());
        ps.setString(5, r.mode());
        ps.setString(6, r.repository());
        if (r.repositoryId() == null) {
          ps.setNull(7, Types.BIGINT);
        } else {
          ps.setLong(7, r.repositoryId());
        }
        ps.setString(8, r.attachedJson());
        ps.setString(9, r.rulesJson());
        ps.setString(10, r.credentialHash());
        ps.setString(11, r.gitConfigPath());
        ps.setString(12, r.backend());
        ps.setLong(13, r.createdAt().toEpochMilli());
        ps.setLong(14, r.expiresAt().toEpochMilli());
        setMillis(ps, 15, r.endedAt());
        ps.setString(16, r.endReason());
        ps.setString(17, host);
        return ps.executeUpdate();
      }
    });
  }

  public Optional<RunRow> run(String id) throws SQLException {
    List<RunRow> rows = queryRuns("WHERE id = ?", id);
    return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
  }

  /** This host's runs not yet ended, whatever their expiry. */
  public List<RunRow> unendedRuns() throws SQLException {
    if (host == null) {
      return queryRuns("WHERE ended_at IS NULL ORDER BY created_at");
    }
    return queryRuns("WHERE ended_at IS NULL AND (host = ? OR host IS NULL) ORDER BY created_at",
        host);
  }

  /** The runs of every host not yet ended nor expired at {@code now}, oldest first. */
  public List<RunRow> liveRunsOfEveryHost(Instant now) throws SQLException {
    return queryRuns("WHERE ended_at IS NULL AND expires_at > ? ORDER BY created_at",
        now.toEpochMilli());
  }

  /** Whether run {@code id} has ended, or is not in the ledger at all. */
  public boolean hasEnded(String id) throws SQLException {
    return db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT ended_at FROM runs WHERE id = ?")) {
        ps.setString(1, id);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            return true;
          }
          rs.getLong(1);
          return !rs.wasNull();
        }
      }
    });
  }

  public void setBackend(String id, String backend) throws SQLException {
    db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement("UPDATE runs SET backend = ? WHERE id = ?")) {
        ps.setString(1, backend);
        ps.setString(2, id);
        return ps.executeUpdate();
      }
    });
  }

  public void endRun(String id, String reason, Instant at) throws SQLException {
    db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "UPDATE runs SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL")) {
        ps.setLong(1, at.toEpochMilli());
        ps.setString(2, reason);
        ps.setString(3, id);
        return ps.executeUpdate();
      }
    });
  }

  /** Records a token issued (sealed; the audit gets its kind and id, never the token). */
  public long recordCredential(String runId, String kind, String repository, Secret token,
      Instant issuedAt, Instant expiresAt) throws SQLException {
    byte[] sealed = box.seal(token);
    if (audit == null) {
      return db.with(c -> insertCredential(c, runId, kind, repository, sealed, issuedAt,
          expiresAt));
    }
    return audit.append((c, chain) -> {
      long id = insertCredential(c, runId, kind, repository, sealed, issuedAt, expiresAt);
      chain.append(AuditEntry.builder(AuditEntry.Type.TOKEN_ISSUED).at(issuedAt).runId(runId)
          .repository(repository).kind(kind).decision("issued")
          .reason(expiresAt == null ? null : "expires " + expiresAt).subject(String.valueOf(id))
          .build());
      return id;
    });
  }

  private long insertCredential(Connection c, String runId, String kind,
      String repository, byte[] sealed, Instant issuedAt, Instant expiresAt) throws SQLException {
    try (Database.Prepared p = db.prepare(c, INSERT_CREDENTIAL)) {
      PreparedStatement ps = p.statement();
      ps.setString(1, runId);
      ps.setString(2, kind);
      ps.setString(3, repository);
      ps.setBytes(4, sealed);
      ps.setLong(5, issuedAt.toEpochMilli());
      setMillis(ps, 6, expiresAt);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** Credentials of {@code runId} not confirmed revoked, whichever host holds the run. */
  public List<LiveCredential> liveCredentials(String runId) throws SQLException {
    return queryCredentials("WHERE revoked_at IS NULL AND run_id = ?", runId);
  }

  /**
   * Every credential not confirmed revoked, but those of runs that another host holds and has
   * not ended: this host's to revoke when their run is not live here.
   */
  public List<LiveCredential> liveCredentials() throws SQLException {
    if (host == null) {
      return queryCredentials("WHERE revoked_at IS NULL");
    }
    return queryCredentials("WHERE revoked_at IS NULL AND NOT EXISTS (SELECT 1 FROM runs r"
        + " WHERE r.id = credentials.run_id AND r.ended_at IS NULL AND r.host <> ?)", host);
  }

  /**
   * The credentials this host is to revoke now: those of {@link #liveCredentials()} whose run is
   * not live in the ledger at {@code now} (no row, ended, or expired). Chosen by the database, so
   * that a sweep with many live runs neither unseals their tokens nor holds the database for them.
   */
  public List<LiveCredential> revocableCredentials(Instant now) throws SQLException {
    String live = "SELECT 1 FROM runs r WHERE r.id = credentials.run_id AND r.ended_at IS NULL"
        + " AND (r.expires_at > ?";
    if (host == null) {
      return queryCredentials("WHERE revoked_at IS NULL AND NOT EXISTS (" + live + "))",
          now.toEpochMilli());
    }
    // another host's run not ended is that host's to end, whatever its expiry
    return queryCredentials("WHERE revoked_at IS NULL AND NOT EXISTS (" + live
        + " OR r.host <> ?))", now.toEpochMilli(), host);
  }

  /** Records a revocation GitHub confirmed; the first one of a credential is audited. */
  public void markRevoked(long credentialId, Instant at) throws SQLException {
    if (audit == null) {
      db.with(c -> setRevoked(c, credentialId, at));
      return;
    }
    audit.append((c, chain) -> {
      AuditEntry revoked = null;
      try (Database.Prepared p = db.prepare(c, UNREVOKED_CREDENTIAL)) {
        PreparedStatement ps = p.statement();
        ps.setLong(1, credentialId);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            revoked = AuditEntry.builder(AuditEntry.Type.TOKEN_REVOKED).at(at)
                .runId(rs.getString(1)).repository(rs.getString(3)).kind(rs.getString(2))
                .decision("revoked").subject(String.valueOf(credentialId)).build();
          }
        }
      }
      setRevoked(c, credentialId, at);
      if (revoked != null) {
        chain.append(revoked);
      }
      return null;
    });
  }

  private int setRevoked(Connection c, long credentialId, Instant at) throws SQLException {
    try (Database.Prepared p = db.prepare(c, SET_REVOKED)) {
      PreparedStatement ps = p.statement();
      ps.setLong(1, at.toEpochMilli());
      ps.setLong(2, credentialId);
      return ps.executeUpdate();
    }
  }

  public void markRevokeFailed(long credentialId, String error) throws SQLException {
    db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "UPDATE credentials SET last_error = ?, revoke_attempts = revoke_attempts + 1"
              + " WHERE id = ?")) {
        ps.setString(1, error);
        ps.setLong(2, credentialId);
        return ps.executeUpdate();
      }
    });
  }

  private static void setMillis(PreparedStatement ps, int index, Instant at) throws SQLException {
    if (at == null) {
      ps.setNull(index, Types.BIGINT);
    } else {
      ps.setLong(index, at.toEpochMilli());
    }
  }

  private List<RunRow> queryRuns(String where, Object... args) throws SQLException {
    return db.with(c -> {
      try (PreparedStatement ps =
          c.prepareStatement("SELECT " + RUN_COLUMNS + " FROM runs " + where)) {
        for (int i = 0; i < args.length; i++) {
          ps.setObject(i + 1, args[i]);
        }
        List<RunRow> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            long repoId = rs.getLong(7);
            Long repositoryId = rs.wasNull() ? null : repoId;
            long ended = rs.getLong(15);
            Instant endedAt = rs.wasNull() ? null : Instant.ofEpochMilli(ended);
            out.add(new RunRow(rs.getString(1), rs.getString(2), rs.getString(3),
                rs.getString(4), rs.getString(5), rs.getString(6), repositoryId,
                rs.getString(8), rs.getString(9), rs.getString(10), rs.getString(11),
                rs.getString(12), Instant.ofEpochMilli(rs.getLong(13)),
                Instant.ofEpochMilli(rs.getLong(14)), endedAt, rs.getString(16)));
          }
        }
        return out;
      }
    });
  }

  private List<LiveCredential> queryCredentials(String where, Object... args)
      throws SQLException {
    return db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT id, run_id, kind, repository, token, expires_at FROM credentials " + where
              + " ORDER BY id")) {
        for (int i = 0; i < args.length; i++) {
          ps.setObject(i + 1, args[i]);
        }
        List<LiveCredential> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            long exp = rs.getLong(6);
            Instant expiresAt = rs.wasNull() ? null : Instant.ofEpochMilli(exp);
            Secret token;
            try {
              token = box.open(rs.getBytes(5));
            } catch (GeneralSecurityException e) {
              log.error("credential {} cannot be unsealed: is the ledger key the right one?",
                  rs.getLong(1));
              continue;
            }
            out.add(new LiveCredential(rs.getLong(1), rs.getString(2), rs.getString(3),
                rs.getString(4), token, expiresAt));
          }
        }
        return out;
      }
    });
  }
}
