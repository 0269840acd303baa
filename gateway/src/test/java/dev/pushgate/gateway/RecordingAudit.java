package dev.pushgate.gateway;

import dev.pushgate.types.AuditEntry;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** An audit log kept in memory; {@link #down} makes every write fail as a dead database would. */
final class RecordingAudit implements AuditLog {
  /** The n-th record written (1-based). */
  private record Row(int n) implements AuditLog.Handle {}

  final List<AuditEntry> records = new ArrayList<>();
  final Map<Integer, AuditEntry.Outcome> outcomes = new LinkedHashMap<>();
  boolean down;
  boolean settleDown;

  @Override
  public synchronized List<Row> record(List<AuditEntry> batch) throws AuditException {
    if (down) {
      throw new AuditException("could not write the audit log",
          new SQLException("[SQLITE_BUSY] The database file is locked"));
    }
    List<Row> rows = new ArrayList<>();
    for (AuditEntry r : batch) {
      records.add(r);
      rows.add(new Row(records.size()));
    }
    return rows;
  }

  @Override
  public synchronized void settle(Handle record, AuditEntry.Outcome outcome, long durationMillis)
      throws AuditException {
    if (settleDown) {
      throw new AuditException("could not write the audit log", new SQLException("disk I/O error"));
    }
    outcomes.put(((Row) record).n(), outcome);
  }

  /** The outcome recorded for the n-th record (0-based), or the record's own outcome, as shown. */
  synchronized String outcomeOf(int n) {
    AuditEntry.Outcome settled = outcomes.get(n + 1);
    return settled != null ? settled.text() : records.get(n).outcome();
  }
}
