package dev.pushgate.appliance.store;

import dev.pushgate.gateway.AuditLog;
import dev.pushgate.gateway.PushRecord;
import dev.pushgate.gateway.RefusalCode;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The audit log of push decisions, in the appliance's database. */
public final class AuditStore implements AuditLog {
  /**
   * What to list: all filters optional; a {@code limit} of 0 means the default. Anything else
   * out of range is refused, never clamped or passed to the database (where a negative LIMIT
   * lists every row and a far-off instant overflows the milliseconds).
   */
  public record Query(Boolean refusedOnly, String runId, String repository, Instant since, int limit) {
    public static final int DEFAULT_LIMIT = 1000;
    public static final int MAX_LIMIT = 10_000;
    public static final Instant EARLIEST = Instant.parse("0000-01-01T00:00:00Z");
    public static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");

    public Query {
      if (limit < 0 || limit > MAX_LIMIT) {
        throw new IllegalArgumentException(
            "limit must be a whole number from 1 to " + MAX_LIMIT + ", not " + limit);
      }
      if (since != null && (since.isBefore(EARLIEST) || since.isAfter(LATEST))) {
        throw new IllegalArgumentException("since must lie between " + EARLIEST + " and "
            + LATEST);
      }
    }

    public static Query all() {
      return new Query(null, null, null, null, DEFAULT_LIMIT);
    }
  }

  /** A record written: its row. */
  public record Row(long id) implements AuditLog.Handle {}

  private final Database db;

  public AuditStore(Database db) {
    this.db = db;
  }

  @Override
  public List<Row> record(List<PushRecord> records) throws AuditException {
    try {
      return db.inTransaction(c -> {
        List<Row> rows = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(
            "INSERT INTO audit(at, run_id, workspace_id, repository, ref, old_id, new_id, kind,"
                + " decision, rule, code, reason, outcome, duration_ms)"
                + " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            new String[] {"id"})) {
          for (PushRecord r : records) {
            ps.setLong(1, r.at().toEpochMilli());
            ps.setString(2, r.runId());
            ps.setString(3, r.workspaceId());
            ps.setString(4, r.repository());
            ps.setString(5, r.ref());
            ps.setString(6, r.oldId());
            ps.setString(7, r.newId());
            ps.setString(8, r.kind());
            ps.setString(9, r.decision().id());
            ps.setString(10, r.rule());
            if (r.code() == null) {
              ps.setNull(11, Types.VARCHAR);
            } else {
              ps.setString(11, r.code().name());
            }
            ps.setString(12, r.reason());
            ps.setString(13, r.outcome() == null ? null : r.outcome().text());
            ps.setLong(14, r.durationMillis());
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
              keys.next();
              rows.add(new Row(keys.getLong(1)));
            }
          }
        }
        return rows;
      });
    } catch (SQLException e) {
      throw new AuditException("cannot write the audit log: " + e.getMessage(), e);
    }
  }

  @Override
  public void settle(Handle record, PushRecord.Outcome outcome, long durationMillis)
      throws AuditException {
    if (!(record instanceof Row row)) {
      throw new IllegalArgumentException("not a record of this audit log: " + record);
    }
    try {
      db.with(c -> {
        try (PreparedStatement ps =
            c.prepareStatement("UPDATE audit SET outcome = ?, duration_ms = ? WHERE id = ?")) {
          ps.setString(1, outcome.text());
          ps.setLong(2, durationMillis);
          ps.setLong(3, row.id());
          return ps.executeUpdate();
        }
      });
    } catch (SQLException e) {
      throw new AuditException("cannot write the audit log: " + e.getMessage(), e);
    }
  }

  public List<PushRecord> list(Query q) throws SQLException {
    StringBuilder sql = new StringBuilder(
        "SELECT at, run_id, workspace_id, repository, ref, old_id, new_id, kind, decision, rule,"
            + " code, reason, outcome, duration_ms FROM audit WHERE 1=1");
    List<Object> args = new ArrayList<>();
    if (Boolean.TRUE.equals(q.refusedOnly())) {
      sql.append(" AND (decision = 'denied' OR (outcome IS NOT NULL AND outcome <> 'ok'"
          + " AND outcome <> 'pending'))");
    } else if (Boolean.FALSE.equals(q.refusedOnly())) {
      sql.append(" AND decision = 'allowed'");
    }
    if (q.runId() != null) {
      sql.append(" AND run_id = ?");
      args.add(q.runId());
    }
    if (q.repository() != null) {
      sql.append(" AND lower(repository) = lower(?)");
      args.add(q.repository());
    }
    if (q.since() != null) {
      sql.append(" AND at >= ?");
      args.add(q.since().toEpochMilli());
    }
    sql.append(" ORDER BY id LIMIT ?");
    args.add(q.limit() == 0 ? Query.DEFAULT_LIMIT : q.limit());
    return db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
        for (int i = 0; i < args.size(); i++) {
          ps.setObject(i + 1, args.get(i));
        }
        List<PushRecord> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            String code = rs.getString(11);
            out.add(new PushRecord(Instant.ofEpochMilli(rs.getLong(1)), rs.getString(2),
                rs.getString(3), rs.getString(4), rs.getString(5), rs.getString(6),
                rs.getString(7), rs.getString(8), PushRecord.Decision.of(rs.getString(9)),
                rs.getString(10), code == null ? null : RefusalCode.valueOf(code),
                rs.getString(12), PushRecord.Outcome.of(rs.getString(13)), rs.getLong(14)));
          }
        }
        return out;
      }
    });
  }
}
