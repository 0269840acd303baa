package dev.pushgate.appliance.store;

import dev.pushgate.types.UntrustedText;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.approvals.Answer;
import dev.pushgate.approvals.Question;
import dev.pushgate.approvals.fleet.Fleet;
import dev.pushgate.approvals.fleet.FleetTables;
import dev.pushgate.types.Redaction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The fleet's statements on the PostgreSQL database its appliances share (docs/operations.md#a-
 * fleet-on-one-database): heartbeats in {@code fleet_presence}, questions' ends in {@code
 * approvals} (first end wins: {@code UPDATE … WHERE ended_at IS NULL}), runs' ends in {@code
 * runs}, notices with {@code NOTIFY} on a channel of the schema's own. Time is the database's
 * clock, so that hosts whose clocks disagree still agree on who is down.
 */
public final class FleetStore implements FleetTables {
  /** A fleet read on a question's path waits no longer than this for the database. */
  private static final int QUERY_SECONDS = 2;
  private static final String NOW = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT";
  private static final String LIVE_HOSTS = "SELECT p.host FROM fleet_presence p WHERE p.seen_at > "
      + NOW + " - " + Fleet.DOWN_AFTER.toMillis();
  private static final String QUESTION_COLUMNS = "id, asked_at, deadline, action, run_id,"
      + " workspace_id, repository, ref, kind, old_id, new_id, command, rule, reason, commits,"
      + " host, ended_at, outcome, answered_by, answer_reason";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Database db;
  private final String host;
  private final String channel;

  private FleetStore(Database db, String host, String channel) {
    this.db = db;
    this.host = host;
    this.channel = channel;
  }

  /** The fleet's tables on {@code db} for {@code host}; only PostgreSQL is shared by a fleet. */
  public static FleetStore open(Database db, String host) throws SQLException {
    if (db.dialect() != Database.Dialect.POSTGRESQL) {
      throw new IllegalArgumentException("a fleet shares a PostgreSQL database");
    }
    String schema = db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT current_schema()");
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        return String.valueOf(rs.getString(1));
      }
    });
    return new FleetStore(db, host, channelOf(schema));
  }

  /**
   * Notices are database-wide; fleets in different schemas of one database (as the tests make)
   * must not hear each other. A hash keeps the name short and a plain identifier.
   */
  public static String channelOf(String schema) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256")
          .digest(schema.getBytes(StandardCharsets.UTF_8));
      return "pushgate_fleet_" + HexFormat.of().formatHex(d, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public String host() {
    return host;
  }

  @Override
  public void beat(boolean approverHere) throws Unavailable {
    update("INSERT INTO fleet_presence(host, approver, seen_at) VALUES (?, ?, " + NOW + ")"
        + " ON CONFLICT (host) DO UPDATE SET approver = EXCLUDED.approver,"
        + " seen_at = EXCLUDED.seen_at", ps -> {
          ps.setString(1, host);
          ps.setBoolean(2, approverHere);
        });
  }

  @Override
  public void leave() throws Unavailable {
    update("DELETE FROM fleet_presence WHERE host = ?", ps -> ps.setString(1, host));
  }

  @Override
  public boolean approverElsewhere() throws Unavailable {
    return !query("SELECT 1 FROM fleet_presence WHERE host <> ? AND approver AND seen_at > "
        + NOW + " - ? LIMIT 1", ps -> {
          ps.setString(1, host);
          ps.setLong(2, Fleet.DOWN_AFTER.toMillis());
        }, rs -> 1).isEmpty();
  }

  @Override
  public boolean end(String id, Answer a) throws Unavailable {
    return update("UPDATE approvals SET ended_at = " + NOW + ", outcome = ?, answered_by = ?,"
        + " answer_reason = ? WHERE id = ? AND ended_at IS NULL", ps -> {
          setAnswer(ps, a);
          ps.setString(4, id);
        }) == 1;
  }

  @Override
  public Optional<Question> endElsewhere(String id, Answer a) throws Unavailable {
    return query("UPDATE approvals SET ended_at = " + NOW + ", outcome = ?, answered_by = ?,"
        + " answer_reason = ? WHERE id = ? AND ended_at IS NULL AND host <> ? AND host IN ("
        + LIVE_HOSTS + ") RETURNING " + QUESTION_COLUMNS, ps -> {
          setAnswer(ps, a);
          ps.setString(4, id);
          ps.setString(5, host);
        }, rs -> row(rs).question()).stream().findFirst();
  }

  @Override
  public List<Question> openElsewhere(String runId) throws Unavailable {
    return query("SELECT " + QUESTION_COLUMNS + " FROM approvals WHERE ended_at IS NULL"
        + " AND host <> ? AND host IN (" + LIVE_HOSTS + ")"
        + (runId == null ? "" : " AND run_id = ?") + " ORDER BY asked_at LIMIT 1000", ps -> {
          ps.setString(1, host);
          if (runId != null) {
            ps.setString(2, runId);
          }
        }, rs -> row(rs).question());
  }

  @Override
  public List<String> withdrawQuestionsOfDownHosts() throws Unavailable {
    return query("UPDATE approvals SET ended_at = " + NOW + ", outcome = ?, answer_reason ="
        + " 'the question was withdrawn before anyone answered: the appliance holding it ('"
        + " || host || ') is down' WHERE ended_at IS NULL AND host IS NOT NULL AND host <> ?"
        + " AND host NOT IN (" + LIVE_HOSTS + ") RETURNING id", ps -> {
          ps.setString(1, Answer.Outcome.CANCELLED.id());
          ps.setString(2, host);
        }, rs -> rs.getString(1));
  }

  @Override
  public int withdrawOwnQuestions() throws Unavailable {
    return update("UPDATE approvals SET ended_at = " + NOW + ", outcome = ?, answer_reason ="
        + " 'the question was withdrawn before anyone answered: the appliance holding it"
        + " restarted' WHERE ended_at IS NULL AND host = ?", ps -> {
          ps.setString(1, Answer.Outcome.CANCELLED.id());
          ps.setString(2, host);
        });
  }

  @Override
  public Optional<Row> question(String id) throws Unavailable {
    return query("SELECT " + QUESTION_COLUMNS + " FROM approvals WHERE id = ?",
        ps -> ps.setString(1, id), FleetStore::row).stream().findFirst();
  }

  @Override
  public List<Row> ended(Set<String> ids) throws Unavailable {
    return query("SELECT " + QUESTION_COLUMNS + " FROM approvals WHERE ended_at IS NOT NULL"
        + " AND id = ANY(?)", ps -> ps.setArray(1,
            ps.getConnection().createArrayOf("text", ids.toArray(String[]::new))),
        FleetStore::row);
  }

  @Override
  public List<String> endedRuns(Set<String> ids) throws Unavailable {
    return query("SELECT id FROM runs WHERE ended_at IS NOT NULL AND id = ANY(?)",
        ps -> ps.setArray(1,
            ps.getConnection().createArrayOf("text", ids.toArray(String[]::new))),
        rs -> rs.getString(1));
  }

  @Override
  public void tell(String payload) throws Unavailable {
    query("SELECT pg_notify(?, ?)", ps -> {
      ps.setString(1, channel);
      ps.setString(2, payload);
    }, rs -> 1);
  }

  @Override
  public AutoCloseable listen(Consumer<String> heard, Runnable reconnected) {
    FleetNotices notices = new FleetNotices(db, channel, heard, reconnected);
    notices.start();
    return notices;
  }

  // --- statements ---

  @FunctionalInterface
  private interface Parameters {
    void set(PreparedStatement ps) throws SQLException;
  }

  @FunctionalInterface
  private interface Reader<T> {
    T read(ResultSet rs) throws SQLException;
  }

  private int update(String sql, Parameters parameters) throws Unavailable {
    try {
      return db.with(c -> {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
          ps.setQueryTimeout(QUERY_SECONDS);
          parameters.set(ps);
          return ps.executeUpdate();
        }
      });
    } catch (SQLException e) {
      throw unavailable(e);
    }
  }

  private <T> List<T> query(String sql, Parameters parameters, Reader<T> reader)
      throws Unavailable {
    try {
      return db.with(c -> {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
          ps.setQueryTimeout(QUERY_SECONDS);
          parameters.set(ps);
          List<T> out = new ArrayList<>();
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              out.add(reader.read(rs));
            }
          }
          return out;
        }
      });
    } catch (SQLException e) {
      throw unavailable(e);
    }
  }

  private static Unavailable unavailable(SQLException e) {
    return new Unavailable(Redaction.redact(String.valueOf(e.getMessage())), e);
  }

  private static void setAnswer(PreparedStatement ps, Answer a) throws SQLException {
    ps.setString(1, a.outcome().id());
    ps.setString(2, a.by());
    ps.setString(3, a.reason());
  }

  // --- rows ---

  private static Row row(ResultSet rs) throws SQLException {
    long deadline = rs.getLong(3);
    Instant deadlineAt = rs.wasNull() ? null : Instant.ofEpochMilli(deadline);
    Instant askedAt = Instant.ofEpochMilli(rs.getLong(2));
    Question q = new Question(rs.getString(1), askedAt,
        deadlineAt == null ? askedAt : deadlineAt, rs.getString(4), rs.getString(5),
        rs.getString(6), rs.getString(7), rs.getString(8), rs.getString(9), rs.getString(10),
        rs.getString(11), rs.getString(12), rs.getString(13), rs.getString(14),
        commits(rs.getString(15)));
    String outcome = rs.getString(18);
    rs.getLong(17);
    boolean ended = !rs.wasNull();
    Answer a = ended && outcome != null ? new Answer(outcomeOf(outcome),
        oneLine(rs.getString(19)), oneLine(rs.getString(20))) : null;
    return new Row(q, rs.getString(16), a);
  }

  /**
   * Who answered and why, as another appliance wrote them: shown in git's output and to
   * approvers, so on one line of printable text whatever the row holds.
   */
  private static String oneLine(String text) {
    return text == null ? null : UntrustedText.oneLine(text, 1000);
  }

  /** An outcome as stored; one this version does not know ends as denied, never allowed. */
  private static Answer.Outcome outcomeOf(String id) {
    try {
      return Answer.Outcome.valueOf(id.toUpperCase(Locale.ROOT).replace('-', '_'));
    } catch (IllegalArgumentException e) {
      return Answer.Outcome.DENIED;
    }
  }

  private static List<String> commits(String json) {
    if (json == null) {
      return List.of();
    }
    try {
      return List.of(JSON.readValue(json, String[].class));
    } catch (java.io.IOException | RuntimeException e) {
      return List.of();
    }
  }
}
