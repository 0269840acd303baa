package dev.pushgate.appliance.store;

import dev.pushgate.types.AuditEntry;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.List;

/** How chained audit records are written to and read from the {@code audit} table. */
final class AuditRows {
  /** The columns {@link #read} expects, in order. */
  static final String COLUMNS = "id, host, seq, prev_hash, hash, chained, record_type, at,"
      + " run_id, workspace_id, repository, ref, old_id, new_id, kind, decision, rule, code,"
      + " reason, outcome, duration_ms, settles, subject, actor";

  /** {@link #COLUMNS} one by one. */
  static final List<String> COLUMN_NAMES = List.of(COLUMNS.split(", "));

  /** The entry's columns, for an INSERT of {@link #ENTRY_COLUMNS}. */
  static final String ENTRY_COLUMNS = "record_type, at, run_id, workspace_id, repository, ref,"
      + " old_id, new_id, kind, decision, rule, code, reason, outcome, duration_ms, settles,"
      + " subject, actor";
  static final int ENTRY_COLUMN_COUNT = 18;

  private AuditRows() {}

  static ChainedRecord read(ResultSet rs) throws SQLException {
    AuditEntry e = AuditEntry.builder(AuditEntry.Type.of(rs.getString(7)))
        .at(Instant.ofEpochMilli(rs.getLong(8))).runId(rs.getString(9))
        .workspaceId(rs.getString(10)).repository(rs.getString(11)).ref(rs.getString(12))
        .oldId(rs.getString(13)).newId(rs.getString(14)).kind(rs.getString(15))
        .decision(rs.getString(16)).rule(rs.getString(17)).code(rs.getString(18))
        .reason(rs.getString(19)).outcome(rs.getString(20)).durationMillis(nullableLong(rs, 21))
        .settles(nullableLong(rs, 22)).subject(rs.getString(23)).actor(rs.getString(24))
        .build();
    return new ChainedRecord(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getString(4),
        rs.getString(5), rs.getString(6), e);
  }

  /** Sets the entry's columns from parameter {@code first} on, in {@link #ENTRY_COLUMNS} order. */
  static void bind(PreparedStatement ps, int first, AuditEntry e) throws SQLException {
    int i = first;
    ps.setString(i++, e.type().id());
    ps.setLong(i++, e.at().toEpochMilli());
    ps.setString(i++, e.runId());
    ps.setString(i++, e.workspaceId());
    ps.setString(i++, e.repository());
    ps.setString(i++, e.ref());
    ps.setString(i++, e.oldId());
    ps.setString(i++, e.newId());
    ps.setString(i++, e.kind());
    ps.setString(i++, e.decision());
    ps.setString(i++, e.rule());
    ps.setString(i++, e.code());
    ps.setString(i++, e.reason());
    ps.setString(i++, e.outcome());
    setLong(ps, i++, e.durationMillis());
    setLong(ps, i++, e.settles());
    ps.setString(i++, e.subject());
    ps.setString(i, e.actor());
  }

  private static Long nullableLong(ResultSet rs, int column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? null : v;
  }

  private static void setLong(PreparedStatement ps, int index, Long v) throws SQLException {
    if (v == null) {
      ps.setNull(index, Types.BIGINT);
    } else {
      ps.setLong(index, v);
    }
  }
}
