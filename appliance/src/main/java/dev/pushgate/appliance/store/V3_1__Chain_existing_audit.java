package dev.pushgate.appliance.store;

import dev.pushgate.types.AuditEntry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * Chains the audit rows written before the chain existed, in id order, under the pseudo-host
 * {@value #HOST} (no real host id can take that name), marked {@code chained = 'upgrade'}: their
 * hashes say they have not changed since the upgrade, not since they were written. Rows from
 * several hosts sharing a database cannot be told apart, hence one chain for all of them. Named
 * as Flyway wants a Java migration named; registered in {@link Database}.
 */
public final class V3_1__Chain_existing_audit extends BaseJavaMigration {
  /** The host of the records chained at upgrade time. */
  public static final String HOST = "(before-chain)";

  private static final int BATCH = 1000;

  @Override
  public void migrate(Context context) throws SQLException {
    Connection c = context.getConnection();
    long seq = 0;
    String prev = AuditHash.GENESIS;
    long after = 0;
    while (true) {
      List<AuditEntryWithId> batch = unchained(c, after);
      if (batch.isEmpty()) {
        break;
      }
      for (AuditEntryWithId row : batch) {
        seq++;
        ChainedRecord r = new ChainedRecord(row.id(), HOST, seq, prev, null,
            ChainedRecord.AT_UPGRADE, row.entry());
        prev = AuditHash.of(r);
        chain(c, r, prev);
        after = row.id();
      }
    }
    if (seq > 0) {
      try (PreparedStatement ps =
          c.prepareStatement("INSERT INTO audit_heads(host, seq, hash) VALUES (?,?,?)")) {
        ps.setString(1, HOST);
        ps.setLong(2, seq);
        ps.setString(3, prev);
        ps.executeUpdate();
      }
    }
  }

  private record AuditEntryWithId(long id, AuditEntry entry) {}

  private static List<AuditEntryWithId> unchained(Connection c, long after) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT id, at, run_id, workspace_id,"
        + " repository, ref, old_id, new_id, kind, decision, rule, code, reason, outcome,"
        + " duration_ms FROM audit WHERE hash IS NULL AND id > ? ORDER BY id LIMIT " + BATCH)) {
      ps.setLong(1, after);
      List<AuditEntryWithId> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          long duration = rs.getLong(15);
          Long durationMillis = rs.wasNull() ? null : duration;
          String kind = rs.getString(9);
          AuditEntry.Type type = AuditStore.COMMAND_KIND.equals(kind)
              ? AuditEntry.Type.COMMAND : AuditEntry.Type.PUSH;
          out.add(new AuditEntryWithId(rs.getLong(1), AuditEntry.builder(type)
              .at(Instant.ofEpochMilli(rs.getLong(2))).runId(rs.getString(3))
              .workspaceId(rs.getString(4)).repository(rs.getString(5)).ref(rs.getString(6))
              .oldId(rs.getString(7)).newId(rs.getString(8)).kind(kind)
              .decision(rs.getString(10)).rule(rs.getString(11)).code(rs.getString(12))
              .reason(rs.getString(13)).outcome(rs.getString(14)).durationMillis(durationMillis)
              .build()));
        }
      }
      return out;
    }
  }

  private static void chain(Connection c, ChainedRecord r, String hash) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("UPDATE audit SET record_type = ?, host = ?,"
        + " seq = ?, prev_hash = ?, hash = ?, chained = ? WHERE id = ?")) {
      ps.setString(1, r.entry().type().id());
      ps.setString(2, r.host());
      ps.setLong(3, r.seq());
      ps.setString(4, r.prevHash());
      ps.setString(5, hash);
      ps.setString(6, r.chained());
      ps.setLong(7, r.id());
      ps.executeUpdate();
    }
  }
}
