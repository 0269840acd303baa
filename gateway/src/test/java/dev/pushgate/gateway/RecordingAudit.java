package dev.pushgate.gateway;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** An audit log kept in memory; {@link #down} makes every write fail as a dead database would. */
final class RecordingAudit implements AuditLog {
  final List<PushRecord> records = new ArrayList<>();
  final Map<Long, String> outcomes = new LinkedHashMap<>();
  boolean down;
  boolean settleDown;

  @Override
  public synchronized List<Long> record(List<PushRecord> batch) throws AuditException {
    if (down) {
      throw new AuditException("could not write the audit log",
          new SQLException("[SQLITE_BUSY] The database file is locked"));
    }
    List<Long> ids = new ArrayList<>();
    for (PushRecord r : batch) {
      records.add(r);
      ids.add((long) records.size());
    }
    return ids;
  }

  @Override
  public synchronized void settle(long id, String outcome, long durationMillis)
      throws AuditException {
    if (settleDown) {
      throw new AuditException("could not write the audit log", new SQLException("disk I/O error"));
    }
    outcomes.put(id, outcome);
  }

  /** The outcome recorded for the n-th record (0-based), or the record's own outcome. */
  synchronized String outcomeOf(int n) {
    return outcomes.getOrDefault((long) n + 1, records.get(n).outcome());
  }
}
