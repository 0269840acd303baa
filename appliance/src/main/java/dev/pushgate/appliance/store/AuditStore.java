package dev.pushgate.appliance.store;

import dev.pushgate.gateway.AuditLog;
import dev.pushgate.types.AuditEntry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit log of push and hook decisions, in the appliance's database, chained (see {@link
 * AuditChain}); its listing shows decisions with their latest outcome. A push's outcome is
 * written after git's answer ({@link #owe}); its readers wait for the outcomes owed when they
 * ask, so that none shows a push pending whose client has its answer.
 */
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

  /**
   * A record written: its row, and the entry it holds when this store wrote it, which the
   * record's outcome repeats ({@link #settle}) without reading it back.
   */
  public record Row(long id, AuditEntry entry) implements AuditLog.Handle {
    /** A record known by its row alone (read back, say): its outcome reads the entry. */
    public Row(long id) {
      this(id, null);
    }
  }

  /** The {@code kind} of a hook decision's record, which holds a command where a push's a ref. */
  public static final String COMMAND_KIND = "command";

  private static final Logger log = LoggerFactory.getLogger(AuditStore.class);

  private final AuditChain chain;
  private final Database db;
  private final OwedSettles owed = new OwedSettles();

  /** The audit of tools and tests, which write under {@link AuditChain#UNNAMED_HOST}. */
  public AuditStore(Database db) {
    this(new AuditChain(db, AuditChain.UNNAMED_HOST, AuditSink.NONE));
  }

  public AuditStore(AuditChain chain) {
    this.chain = chain;
    this.db = chain.database();
  }

  /**
   * Chains decisions of any type (pushes, commands, API calls), in one transaction. A decision
   * whose record cannot reach the file sink is refused like one the database cannot take:
   * nothing moves unaudited (docs/audit.md). Its record is in the database by then, saying
   * {@code allowed … pending} or {@code ok}; so each decision not already a refusal is settled,
   * best effort, by an outcome record saying it did not happen ({@link #REFUSED_FOR_AUDIT}).
   */
  @Override
  public List<Row> record(List<AuditEntry> decisions) throws AuditException {
    List<ChainedRecord> committed = new ArrayList<>();
    try {
      return chain.appendReachingSink((c, a) -> {
        committed.clear(); // a retried transaction starts over
        List<Row> rows = new ArrayList<>();
        for (AuditEntry e : decisions) {
          ChainedRecord r = a.append(e);
          committed.add(r);
          rows.add(new Row(r.id(), r.entry()));
        }
        return rows;
      });
    } catch (SQLException e) {
      throw new AuditException("cannot write the audit log: " + e.getMessage(), e);
    } catch (AuditSink.SinkException e) {
      AuditException refused = new AuditException("cannot write the audit log: " + e.getMessage(), e);
      try {
        settleRefusedForAudit(committed);
      } catch (SQLException | RuntimeException notSettled) {
        refused.addSuppressed(notSettled);
      }
      throw refused;
    }
  }

  /**
   * What a decision its caller refused because the audit sink failed became: it was committed
   * (allowed, pending or ok) but nothing was sent upstream, no command run.
   */
  static final String REFUSED_FOR_AUDIT = "the audit log is unavailable";

  private void settleRefusedForAudit(List<ChainedRecord> committed) throws SQLException {
    List<ChainedRecord> refused = committed.stream()
        .filter(r -> !AuditEntry.Decision.DENIED.id().equals(r.entry().decision())).toList();
    if (refused.isEmpty()) {
      return;
    }
    chain.append((c, a) -> {
      for (ChainedRecord r : refused) {
        String didNot = r.entry().type() == AuditEntry.Type.COMMAND
            ? AuditEntry.Outcome.NOT_RUN.text() : AuditEntry.Outcome.NOT_FORWARDED.text();
        a.append(outcome(r.entry(), r.id(), didNot + ": " + REFUSED_FOR_AUDIT, 0));
      }
      return null;
    });
  }

  /**
   * Appends an outcome record that settles the decision {@code record}; the decision's row is
   * never changed. The outcome repeats what the decision was about, so that it reads alone (in a
   * sink, say). The push has already happened: a sink failure is logged, not thrown.
   */
  @Override
  public void settle(Handle record, AuditEntry.Outcome outcome, long durationMillis)
      throws AuditException {
    Row row = rowOf(record);
    try {
      chain.append((c, a) ->
          a.append(outcome(row.entry() != null ? row.entry() : decision(c, row.id()), row.id(),
              outcome.text(), durationMillis)));
    } catch (SQLException e) {
      throw new AuditException("cannot write the audit log: " + e.getMessage(), e);
    }
  }

  /**
   * Owes {@code record}'s outcome: this store's readers ({@link #list}, {@link #latest}, {@link
   * #timeline}) that start before it is written wait for it, up to {@link #READERS_WAIT}.
   */
  @Override
  public Owed owe(Handle record) {
    Row row = rowOf(record);
    OwedSettles.Owed owedHere = owed.owe();
    return (outcome, durationMillis) -> {
      try {
        settle(row, outcome, durationMillis);
      } finally {
        owedHere.written();
      }
    };
  }

  private static Row rowOf(Handle record) {
    if (!(record instanceof Row row)) {
      throw new IllegalArgumentException("not a record of this audit log: " + record);
    }
    return row;
  }

  /**
   * How long a reader waits for the outcomes owed when it asked. A push's outcome is written
   * milliseconds after its answer; only a database that holds its write lock (SQLite's busy
   * timeout is 5 s) keeps it longer, and then the reader gets the records as they are.
   */
  static final Duration READERS_WAIT = Duration.ofSeconds(10);

  /**
   * Waits for the outcomes owed now ({@link #owe}), so that a reader never finds a push pending
   * whose client already had its answer.
   */
  public void awaitOwedOutcomes() {
    try {
      if (!owed.awaitOwedNow(READERS_WAIT)) {
        log.warn("audit read after waiting {} s for push outcomes still being written; it may"
            + " show a push as pending", READERS_WAIT.toSeconds());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Records one finding of a run's end-of-run check: {@code kind} is its action
   * ({@code git-metadata}, {@code host-tool-file}), {@code target} the path, {@code detail} what
   * was found and done. It has already happened: a sink failure is logged, not thrown.
   */
  public void recordFinding(String runId, String repository, String kind, String target,
      String detail) throws AuditException {
    try {
      chain.append((c, a) -> a.append(AuditEntry.builder(AuditEntry.Type.RUN_END_FINDING)
          .at(Instant.now()).runId(runId).repository(repository).ref(target).kind(kind)
          .decision("reported").reason(detail).build()));
    } catch (SQLException e) {
      throw new AuditException("cannot write the audit log: " + e.getMessage(), e);
    }
  }

  /** The record settling decision {@code d} (row {@code id}), repeating what it was about. */
  private static AuditEntry outcome(AuditEntry d, long id, String outcome, long durationMillis) {
    return AuditEntry.builder(AuditEntry.Type.PUSH_OUTCOME).at(Instant.now())
        .runId(d.runId()).workspaceId(d.workspaceId()).repository(d.repository())
        .ref(d.ref()).oldId(d.oldId()).newId(d.newId()).kind(d.kind())
        .decision(d.decision()).outcome(outcome).durationMillis(durationMillis)
        .settles(id).build();
  }

  private static AuditEntry decision(Connection c, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT " + AuditRows.COLUMNS + " FROM audit WHERE id = ?")) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("no audit record " + id + " to settle");
        }
        return AuditRows.read(rs).entry();
      }
    }
  }

  /** Every record of a run, of every type, in the order they were written. */
  public List<ChainedRecord> timeline(String runId) throws SQLException {
    awaitOwedOutcomes();
    return db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT " + AuditRows.COLUMNS + " FROM audit WHERE run_id = ? ORDER BY id")) {
        ps.setString(1, runId);
        List<ChainedRecord> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(AuditRows.read(rs));
          }
        }
        return out;
      }
    });
  }

  /**
   * The decisions matching {@code q} (up to its limit), oldest first: pushes, commands and API
   * calls, each {@link AuditEntry#asRead as read}, with its latest outcome.
   */
  public List<AuditEntry> list(Query q) throws SQLException {
    return list(q, false);
  }

  /** The latest decisions matching {@code q} (up to its limit), newest first. */
  public List<AuditEntry> latest(Query q) throws SQLException {
    return list(q, true);
  }

  private List<AuditEntry> list(Query q, boolean newestFirst) throws SQLException {
    awaitOwedOutcomes();
    // A decision with its latest outcome: settling appends a record rather than changing the
    // decision's row, and the listing shows the two as one, as it did when settling updated it.
    StringBuilder sql = new StringBuilder(
        "SELECT a.record_type, a.at, a.run_id, a.workspace_id, a.repository, a.ref, a.old_id,"
            + " a.new_id, a.kind, a.decision, a.rule, a.code, a.reason,"
            + " COALESCE(s.outcome, a.outcome), COALESCE(s.duration_ms, a.duration_ms),"
            + " a.subject FROM audit a LEFT JOIN audit s ON s.id ="
            + " (SELECT MAX(o.id) FROM audit o WHERE o.settles = a.id)"
            // A row without a type is a decision a host not yet upgraded wrote (unchained).
            + " WHERE (a.record_type IS NULL OR a.record_type IN ('push', 'command', 'api-call'))");
    List<Object> args = new ArrayList<>();
    if (Boolean.TRUE.equals(q.refusedOnly())) {
      sql.append(" AND (a.decision = 'denied' OR (COALESCE(s.outcome, a.outcome) IS NOT NULL"
          + " AND COALESCE(s.outcome, a.outcome) NOT IN ('ok', 'pending')))");
    } else if (Boolean.FALSE.equals(q.refusedOnly())) {
      sql.append(" AND a.decision = 'allowed'");
    }
    if (q.runId() != null) {
      sql.append(" AND a.run_id = ?");
      args.add(q.runId());
    }
    if (q.repository() != null) {
      sql.append(" AND lower(a.repository) = lower(?)");
      args.add(q.repository());
    }
    if (q.since() != null) {
      sql.append(" AND a.at >= ?");
      args.add(q.since().toEpochMilli());
    }
    sql.append(newestFirst ? " ORDER BY a.id DESC LIMIT ?" : " ORDER BY a.id LIMIT ?");
    args.add(q.limit() == 0 ? Query.DEFAULT_LIMIT : q.limit());
    return db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
        for (int i = 0; i < args.size(); i++) {
          ps.setObject(i + 1, args.get(i));
        }
        List<AuditEntry> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            String type = rs.getString(1);
            String kind = rs.getString(9);
            long duration = rs.getLong(15);
            Long durationMillis = rs.wasNull() ? null : duration;
            out.add(AuditEntry.builder(type != null ? AuditEntry.Type.of(type)
                    : COMMAND_KIND.equals(kind) ? AuditEntry.Type.COMMAND : AuditEntry.Type.PUSH)
                .at(Instant.ofEpochMilli(rs.getLong(2))).runId(rs.getString(3))
                .workspaceId(rs.getString(4)).repository(rs.getString(5)).ref(rs.getString(6))
                .oldId(rs.getString(7)).newId(rs.getString(8)).kind(kind)
                .decision(rs.getString(10)).rule(rs.getString(11)).code(rs.getString(12))
                .reason(rs.getString(13)).outcome(rs.getString(14)).durationMillis(durationMillis)
                .subject(rs.getString(16)).build().asRead());
          }
        }
        return out;
      }
    });
  }
}
