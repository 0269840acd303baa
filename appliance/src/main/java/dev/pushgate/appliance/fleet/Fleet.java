package dev.pushgate.appliance.fleet;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.appliance.approvals.Answer;
import dev.pushgate.appliance.approvals.ApprovalDesk;
import dev.pushgate.appliance.approvals.FleetDesk;
import dev.pushgate.appliance.approvals.Question;
import dev.pushgate.appliance.logging.Redaction;
import dev.pushgate.appliance.store.Database;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This appliance as one of a fleet sharing a PostgreSQL database (docs/operations.md#a-fleet-on-
 * one-database). The database is the truth; a {@code NOTIFY} only wakes the others early:
 *
 * <ul>
 *   <li>a heartbeat row per appliance says whether an approver is connected to it; an appliance
 *       not seen for {@link #DOWN_AFTER} is down, counts as no approver, and its open questions
 *       are withdrawn (never allowed);
 *   <li>a question ends in its row, first end wins ({@code UPDATE … WHERE ended_at IS NULL}):
 *       an answer given on any appliance, or the holder's own time-out or withdrawal;
 *   <li>a run ended on any appliance (its row's {@code ended_at}) ends on the one holding it.
 * </ul>
 *
 * What a lost notice would have said is found by the heartbeat's own reads, every {@link
 * #HEARTBEAT}, and when the listening connection comes back.
 */
public final class Fleet implements FleetDesk, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Fleet.class);

  /** How often this appliance writes its heartbeat and reads what notices may have missed. */
  public static final Duration HEARTBEAT = Duration.ofSeconds(1);
  /** An appliance whose heartbeat is older than this is down. */
  public static final Duration DOWN_AFTER = Duration.ofSeconds(10);
  /** A fleet read on a question's path waits no longer than this for the database. */
  private static final int QUERY_SECONDS = 2;
  private static final String NOW = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT";
  private static final String LIVE_HOSTS =
      "SELECT p.host FROM fleet_presence p WHERE p.seen_at > " + NOW + " - " + DOWN_AFTER.toMillis();
  private static final String QUESTION_COLUMNS = "id, asked_at, deadline, action, run_id,"
      + " workspace_id, repository, ref, kind, old_id, new_id, command, rule, reason, commits,"
      + " host, ended_at, outcome, answered_by, answer_reason";
  /** What a notice names: a question or run id as this appliance makes them, nothing longer. */
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_.-]{1,128}");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Database db;
  private final String host;
  private final ApprovalDesk desk;
  private final RunsHere runs;
  private final String channel;
  private final ScheduledExecutorService beat;
  private final ExecutorService work;
  private final Notices notices;
  /** The other appliances' open questions this one's approvers have heard of. */
  private final Set<String> announced = ConcurrentHashMap.newKeySet();

  /** The runs this appliance holds, as the fleet ends them when another appliance did. */
  public interface RunsHere {
    /** The ids of the runs live here. */
    Set<String> liveIds();

    /** Run {@code runId} ended elsewhere: end it here too, if it is live here. */
    boolean endedElsewhere(String runId);
  }

  private Fleet(Database db, String host, ApprovalDesk desk, RunsHere runs, String channel) {
    this.db = db;
    this.host = host;
    this.desk = desk;
    this.runs = runs;
    this.channel = channel;
    this.beat = Executors.newSingleThreadScheduledExecutor(daemon("pushgate-fleet-heartbeat"));
    this.work = Executors.newSingleThreadExecutor(daemon("pushgate-fleet-work"));
    this.notices = new Notices(db, channel, this::heard, () -> run(this::catchUp));
  }

  /**
   * Joins the fleet of appliances on {@code db} as {@code host}: withdraws what this host held
   * before a restart, writes its first heartbeat, then listens and beats until closed. The
   * caller sends {@link #runEnded} every run that ends here.
   */
  public static Fleet join(Database db, String host, ApprovalDesk desk, RunsHere runs)
      throws SQLException {
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
    Fleet fleet = new Fleet(db, host, desk, runs, channelOf(schema));
    int withdrawn = fleet.withdrawOwnQuestions();
    if (withdrawn > 0) {
      log.info("fleet: {} question(s) this host held before it restarted withdrawn", withdrawn);
    }
    fleet.heartbeat();
    desk.joinFleet(fleet);
    fleet.notices.start();
    long every = HEARTBEAT.toMillis();
    fleet.beat.scheduleWithFixedDelay(fleet::beatQuietly, every, every, TimeUnit.MILLISECONDS);
    log.info("fleet: host {} joined (notices on channel {})", host, fleet.channel);
    return fleet;
  }

  /**
   * Notices are database-wide; fleets in different schemas of one database (as the tests make)
   * must not hear each other. A hash keeps the name short and a plain identifier.
   */
  static String channelOf(String schema) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256")
          .digest(schema.getBytes(StandardCharsets.UTF_8));
      return "pushgate_fleet_" + HexFormat.of().formatHex(d, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  // --- the desk's view of the fleet ---

  @Override
  public boolean approverElsewhere() {
    try {
      return db.with(c -> {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM fleet_presence WHERE"
            + " host <> ? AND approver AND seen_at > " + NOW + " - ? LIMIT 1")) {
          ps.setQueryTimeout(QUERY_SECONDS);
          ps.setString(1, host);
          ps.setLong(2, DOWN_AFTER.toMillis());
          try (ResultSet rs = ps.executeQuery()) {
            return rs.next();
          }
        }
      });
    } catch (SQLException e) {
      // Fail closed: an approver nobody can see is no approver, and the question is refused.
      log.warn("fleet: cannot read the other appliances' approvers, so none counts: {}",
          message(e));
      return false;
    }
  }

  @Override
  public void held(Question q) {
    notifyQuietly("asked:" + q.id());
  }

  @Override
  public Answer settle(Question q, Answer proposed) {
    try {
      int claimed = db.with(c -> {
        try (PreparedStatement ps = c.prepareStatement("UPDATE approvals SET ended_at = " + NOW
            + ", outcome = ?, answered_by = ?, answer_reason = ? WHERE id = ?"
            + " AND ended_at IS NULL")) {
          ps.setString(1, proposed.outcome().id());
          ps.setString(2, proposed.by());
          ps.setString(3, proposed.reason());
          ps.setString(4, q.id());
          return ps.executeUpdate();
        }
      });
      if (claimed == 1) {
        notifyQuietly("ended:" + q.id());
        return proposed;
      }
      Optional<Row> row = question(q.id());
      if (row.isEmpty() || row.get().answer() == null) {
        return proposed.allowed() ? unrecorded() : proposed;
      }
      if (proposed.outcome() == Answer.Outcome.CANCELLED) {
        return proposed; // a withdrawal stands: the run ended, or this appliance is stopping
      }
      return row.get().answer();
    } catch (SQLException e) {
      log.warn("fleet: cannot record the end of question {}: {}", q.id(), message(e));
      return proposed.allowed() ? unrecorded() : proposed;
    }
  }

  private static Answer unrecorded() {
    return new Answer(Answer.Outcome.DENIED, null, "the answer could not be recorded in the"
        + " fleet's database, so it does not count");
  }

  @Override
  public Optional<Question> answerElsewhere(String id, Answer a) {
    if (!ID.matcher(id).matches()) {
      return Optional.empty();
    }
    try {
      Optional<Question> answered = db.with(c -> {
        try (PreparedStatement ps = c.prepareStatement("UPDATE approvals SET ended_at = " + NOW
            + ", outcome = ?, answered_by = ?, answer_reason = ? WHERE id = ?"
            + " AND ended_at IS NULL AND host <> ? AND host IN (" + LIVE_HOSTS + ")"
            + " RETURNING " + QUESTION_COLUMNS)) {
          ps.setQueryTimeout(QUERY_SECONDS);
          ps.setString(1, a.outcome().id());
          ps.setString(2, a.by());
          ps.setString(3, a.reason());
          ps.setString(4, id);
          ps.setString(5, host);
          try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? Optional.of(row(rs).question()) : Optional.empty();
          }
        }
      });
      answered.ifPresent(q -> {
        log.info("approval {} {} here, for the appliance holding it", q.id(), a.outcome().id());
        notifyQuietly("ended:" + q.id());
      });
      return answered;
    } catch (SQLException e) {
      log.warn("fleet: cannot record an answer to question {}: {}", id, message(e));
      return Optional.empty();
    }
  }

  @Override
  public List<Question> pendingElsewhere(String runId) {
    try {
      return openElsewhere(runId);
    } catch (SQLException e) {
      log.warn("fleet: cannot read the other appliances' questions: {}", message(e));
      return List.of();
    }
  }

  private List<Question> openElsewhere(String runId) throws SQLException {
    return db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT " + QUESTION_COLUMNS
          + " FROM approvals WHERE ended_at IS NULL AND host <> ? AND host IN (" + LIVE_HOSTS
          + ")" + (runId == null ? "" : " AND run_id = ?") + " ORDER BY asked_at LIMIT 1000")) {
        ps.setQueryTimeout(QUERY_SECONDS);
        ps.setString(1, host);
        if (runId != null) {
          ps.setString(2, runId);
        }
        List<Question> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(row(rs).question());
          }
        }
        return out;
      }
    });
  }

  @Override
  public void presenceChanged() {
    run(this::beatQuietly, beat);
  }

  /** A run ended here (teardown, expiry): the appliance holding it ends it too. */
  public void runEnded(String runId) {
    notifyQuietly("run-ended:" + runId);
  }

  // --- notices and the heartbeat ---

  /** A notice from an appliance of the fleet (this one included); the database says what. */
  private void heard(String payload) {
    int colon = payload.indexOf(':');
    String kind = colon < 0 ? payload : payload.substring(0, colon);
    String id = colon < 0 ? "" : payload.substring(colon + 1);
    if (!ID.matcher(id).matches()) {
      log.warn("fleet: a notice that names no id was ignored");
      return;
    }
    run(() -> {
      switch (kind) {
        case "asked" -> question(id).filter(r -> !host.equals(r.host()) && r.answer() == null)
            .ifPresent(r -> announceAsked(r.question()));
        case "ended" -> question(id).filter(r -> r.answer() != null).ifPresent(r -> {
          if (host.equals(r.host())) {
            desk.settledElsewhere(id, r.answer());
          } else if (announced.remove(id)) { // once: the catch-up may have told it already
            desk.heardEnded(r.question(), r.answer());
          }
        });
        case "run-ended" -> endIfEndedElsewhere(Set.of(id));
        default -> log.warn("fleet: a notice of an unknown kind was ignored");
      }
      return null;
    });
  }

  private void beatQuietly() {
    try {
      heartbeat();
      withdrawQuestionsOfDownHosts();
      run(this::catchUp);
    } catch (SQLException e) {
      log.warn("fleet: heartbeat failed: {}", message(e));
    } catch (RuntimeException e) {
      log.warn("fleet: heartbeat failed: {}", e.toString());
    }
  }

  private void heartbeat() throws SQLException {
    boolean approver = desk.approverHere();
    db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO fleet_presence(host, approver,"
          + " seen_at) VALUES (?, ?, " + NOW + ") ON CONFLICT (host) DO UPDATE SET"
          + " approver = EXCLUDED.approver, seen_at = EXCLUDED.seen_at")) {
        ps.setQueryTimeout(QUERY_SECONDS);
        ps.setString(1, host);
        ps.setBoolean(2, approver);
        return ps.executeUpdate();
      }
    });
  }

  /** Questions held by an appliance that stopped beating end as withdrawn: never allowed. */
  private void withdrawQuestionsOfDownHosts() throws SQLException {
    List<String> ids = db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement("UPDATE approvals SET ended_at = " + NOW
          + ", outcome = ?, answer_reason = 'the question was withdrawn before anyone answered:"
          + " the appliance holding it (' || host || ') is down' WHERE ended_at IS NULL"
          + " AND host IS NOT NULL AND host <> ? AND host NOT IN (" + LIVE_HOSTS + ")"
          + " RETURNING id")) {
        ps.setQueryTimeout(QUERY_SECONDS);
        ps.setString(1, Answer.Outcome.CANCELLED.id());
        ps.setString(2, host);
        List<String> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(rs.getString(1));
          }
        }
        return out;
      }
    });
    for (String id : ids) {
      log.info("fleet: question {} withdrawn: the appliance holding it is down", id);
      notifyQuietly("ended:" + id);
    }
  }

  private int withdrawOwnQuestions() throws SQLException {
    return db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement("UPDATE approvals SET ended_at = " + NOW
          + ", outcome = ?, answer_reason = 'the question was withdrawn before anyone answered:"
          + " the appliance holding it restarted' WHERE ended_at IS NULL AND host = ?")) {
        ps.setString(1, Answer.Outcome.CANCELLED.id());
        ps.setString(2, host);
        return ps.executeUpdate();
      }
    });
  }

  /** What notices may have missed: questions held here that ended, runs live here that ended. */
  private Void catchUp() throws SQLException {
    List<Question> held = desk.heldHere(null);
    if (!held.isEmpty()) {
      String[] ids = held.stream().map(Question::id).toArray(String[]::new);
      List<Row> ended = db.with(c -> {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + QUESTION_COLUMNS
            + " FROM approvals WHERE ended_at IS NOT NULL AND id = ANY(?)")) {
          ps.setArray(1, c.createArrayOf("text", ids));
          List<Row> out = new ArrayList<>();
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              out.add(row(rs));
            }
          }
          return out;
        }
      });
      ended.stream().filter(r -> r.answer() != null)
          .forEach(r -> desk.settledElsewhere(r.question().id(), r.answer()));
    }
    endIfEndedElsewhere(runs.liveIds());
    catchUpElsewhere();
    return null;
  }

  /**
   * The other appliances' questions as this one's approvers should have heard of them: an open
   * one not yet announced (its notice was lost, or came before this appliance listened), an
   * announced one that ended. Each is announced asked once and ended once (notices and this
   * catch-up run on the one work thread).
   */
  private void catchUpElsewhere() throws SQLException {
    Set<String> open = new HashSet<>();
    for (Question q : openElsewhere(null)) {
      open.add(q.id());
      announceAsked(q);
    }
    for (String id : List.copyOf(announced)) {
      if (!open.contains(id)) {
        announced.remove(id);
        question(id).filter(r -> r.answer() != null)
            .ifPresent(r -> desk.heardEnded(r.question(), r.answer()));
      }
    }
  }

  private void announceAsked(Question q) {
    if (announced.add(q.id())) {
      desk.heardAsked(q);
    }
  }

  private void endIfEndedElsewhere(Set<String> runIds) throws SQLException {
    if (runIds.isEmpty()) {
      return;
    }
    String[] ids = runIds.toArray(String[]::new);
    List<String> ended = db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT id FROM runs WHERE ended_at IS NOT NULL AND id = ANY(?)")) {
        ps.setArray(1, c.createArrayOf("text", ids));
        List<String> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(rs.getString(1));
          }
        }
        return out;
      }
    });
    ended.forEach(runs::endedElsewhere);
  }

  // --- rows and notices ---

  /** A question's row: the question, its holder, and its end once it has one. */
  private record Row(Question question, String host, Answer answer) {}

  private Optional<Row> question(String id) throws SQLException {
    return db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT " + QUESTION_COLUMNS + " FROM approvals WHERE id = ?")) {
        ps.setQueryTimeout(QUERY_SECONDS);
        ps.setString(1, id);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? Optional.of(row(rs)) : Optional.empty();
        }
      }
    });
  }

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
    if (text == null) {
      return null;
    }
    String line = text.replaceAll("[\\r\\n\\x00-\\x1f\\x7f\\u0080-\\u009f]+", " ").strip();
    return line.length() > 1000 ? line.substring(0, 1000) : line;
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

  private void notifyQuietly(String payload) {
    try {
      db.with(c -> {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
          ps.setString(1, channel);
          ps.setString(2, payload);
          ps.execute();
          return null;
        }
      });
    } catch (SQLException e) {
      // The heartbeats' reads find what this notice would have said, a little later.
      log.warn("fleet: cannot notify the other appliances: {}", message(e));
    }
  }

  /** Work that reads the database, off the thread that listens or beats. */
  private interface Step {
    Void run() throws SQLException;
  }

  private void run(Step step) {
    run(() -> {
      try {
        step.run();
      } catch (SQLException e) {
        log.warn("fleet: {}", message(e));
      } catch (RuntimeException e) {
        log.warn("fleet: {}", e.toString());
      }
    }, work);
  }

  private static void run(Runnable r, ExecutorService on) {
    try {
      on.execute(r);
    } catch (RejectedExecutionException closing) {
      // The appliance is stopping.
    }
  }

  private static String message(SQLException e) {
    return Redaction.redact(String.valueOf(e.getMessage()));
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /** Stops listening and beating, and leaves the fleet at once: no approver counts here. */
  @Override
  public void close() {
    notices.close();
    beat.shutdownNow();
    work.shutdown();
    try {
      work.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      db.with(c -> {
        try (PreparedStatement ps =
            c.prepareStatement("DELETE FROM fleet_presence WHERE host = ?")) {
          ps.setQueryTimeout(QUERY_SECONDS);
          ps.setString(1, host);
          return ps.executeUpdate();
        }
      });
    } catch (SQLException e) {
      log.warn("fleet: could not leave the fleet's presence table: {}", message(e));
    }
  }
}
