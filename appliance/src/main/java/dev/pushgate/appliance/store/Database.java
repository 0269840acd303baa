package dev.pushgate.appliance.store;

import dev.pushgate.types.Redaction;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;

/**
 * The appliance's database: SQLite in the data directory by default, or PostgreSQL shared by a
 * fleet of hosts. The schema is migrated with Flyway from {@code db/migration/<dialect>} when the
 * database is opened.
 *
 * <p>SQLite is one connection used under this object's lock; the appliance's write rate (a few
 * rows per push or run) never needs more. PostgreSQL takes a connection per operation from a
 * small set of idle ones, so hosts and threads do not wait on each other.
 */
public final class Database implements AutoCloseable {
  /** The SQL dialects the migrations are written for. */
  public enum Dialect {
    SQLITE("sqlite"),
    POSTGRESQL("postgresql");

    private final String id;

    Dialect(String id) {
      this.id = id;
    }

    public String id() {
      return id;
    }
  }

  /** Work done on one connection. */
  @FunctionalInterface
  public interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  /**
   * Where the database is: a JDBC URL without credentials, the credentials apart, and a
   * description with the password redacted, the only form that is ever printed.
   */
  record Target(Dialect dialect, String jdbcUrl, String user, String password, String redacted) {
    @Override
    public String toString() {
      return redacted;
    }
  }

  private static final String URL_FORMS =
      "give a file path, jdbc:sqlite:FILE, or postgresql://USER:PASSWORD@HOST:PORT/DATABASE";
  private static final int POSTGRES_IDLE_CONNECTIONS = 4;

  private final Target target;
  private final Connections connections;

  private Database(Target target, Connections connections) {
    this.target = target;
    this.connections = connections;
  }

  /** Opens (creating and migrating) the SQLite database in {@code file}. */
  public static Database open(Path file) throws SQLException {
    return open(sqlite(file.toAbsolutePath().toString()));
  }

  /**
   * Opens and migrates the database at {@code url}: a file path or {@code jdbc:sqlite:FILE} for
   * SQLite; {@code postgresql://USER:PASSWORD@HOST:PORT/DATABASE} (or a {@code
   * jdbc:postgresql://} URL) for PostgreSQL.
   *
   * @throws IllegalArgumentException when {@code url} is none of these
   */
  public static Database open(String url) throws SQLException {
    return open(parse(url));
  }

  private static Database open(Target target) throws SQLException {
    migrate(target);
    if (target.dialect() == Dialect.SQLITE) {
      Properties options = new Properties();
      // Inserts that want their id say RETURNING; without this the driver ran a regular
      // expression and a "SELECT last_insert_rowid()" after every INSERT, wanted or not.
      options.setProperty("jdbc.get_generated_keys", "false");
      Connection c = DriverManager.getConnection(target.jdbcUrl(), options);
      try (Statement s = c.createStatement()) {
        s.execute("PRAGMA journal_mode=WAL");
        s.execute("PRAGMA synchronous=NORMAL");
        s.execute("PRAGMA busy_timeout=5000");
        s.execute("PRAGMA foreign_keys=ON");
        // No commit copies the log into the file while the checkpointer's thread keeps up (its
        // javadoc); one that finds the log past twice its bound does, whatever the scheduling.
        s.execute("PRAGMA wal_autocheckpoint=" + WalCheckpointer.BACKSTOP_FRAMES);
      } catch (SQLException e) {
        c.close();
        throw e;
      }
      return new Database(target, new Single(c, target.jdbcUrl()));
    }
    Pool pool = new Pool(target);
    // Fail at start-up, not at the first push, when the database cannot be reached.
    pool.use(c -> c.isValid(5), Transaction.NONE);
    return new Database(target, pool);
  }

  /** Brings the schema up to date; adopts a SQLite file created before migrations existed. */
  private static void migrate(Target target) throws SQLException {
    try {
      Flyway.configure(Database.class.getClassLoader())
          .dataSource(target.jdbcUrl(), target.user(), target.password())
          .locations("classpath:db/migration/" + target.dialect().id())
          // Chains the audit rows written before the chain (SQL cannot compute SHA-256 alike
          // in both databases).
          .javaMigrations(new V3_1__Chain_existing_audit())
          .loggers("slf4j")
          // A SQLite file written by pushgate before Flyway has the V1 tables and no history:
          // record it at version 1 and apply only what came later. PostgreSQL never had a
          // schema without history, so a non-empty one without it is refused, not adopted.
          .baselineOnMigrate(target.dialect() == Dialect.SQLITE)
          .baselineVersion("1")
          .baselineDescription("schema created before migrations")
          .load()
          .migrate();
    } catch (FlywayException e) {
      throw new SQLException("cannot migrate the database " + target + ": "
          + redact(e.getMessage(), target), e);
    }
  }

  public Dialect dialect() {
    return target.dialect();
  }

  /** SQLite's file, or null for PostgreSQL. */
  public java.nio.file.Path sqliteFile() {
    return target.dialect() == Dialect.SQLITE
        ? java.nio.file.Path.of(target.jdbcUrl().substring("jdbc:sqlite:".length())) : null;
  }

  /** Where the database is, with its password redacted. */
  public String describe() {
    return target.redacted();
  }

  @Override
  public String toString() {
    return "Database[" + target.redacted() + "]";
  }

  /**
   * A statement for {@code sql} on {@code c}, a connection this database gave to work now
   * running; closing the handle gives it back. SQLite's one connection keeps it prepared for the
   * next use (SQLite compiles a statement at every prepare: a fifth of an audit append's CPU);
   * PostgreSQL's driver keeps its own per connection, so there it is prepared and closed.
   */
  public Prepared prepare(Connection c, String sql) throws SQLException {
    return connections.prepare(c, sql);
  }

  /** A statement lent by {@link #prepare}: closing it gives it back (or closes it). */
  public static final class Prepared implements AutoCloseable {
    private final PreparedStatement statement;
    private final Single keeper;
    private final String sql;

    private Prepared(PreparedStatement statement, Single keeper, String sql) {
      this.statement = statement;
      this.keeper = keeper;
      this.sql = sql;
    }

    public PreparedStatement statement() {
      return statement;
    }

    @Override
    public void close() throws SQLException {
      if (keeper == null) {
        statement.close();
      } else {
        keeper.giveBack(sql, statement);
      }
    }
  }

  /** Runs {@code work} on a connection: SQLite's one, under its lock, or a pooled one. */
  public <T> T with(Work<T> work) throws SQLException {
    return connections.use(work, Transaction.NONE);
  }

  /** Runs {@code work} in one transaction: all of it or none. */
  public <T> T inTransaction(Work<T> work) throws SQLException {
    return connections.use(work, Transaction.ANY);
  }

  /**
   * As {@link #inTransaction}, for work that writes what it read: on SQLite the transaction
   * takes the database's write lock as it begins ({@code BEGIN IMMEDIATE}), so that no other
   * connection writes between its reads and its writes, without a write of its own first to
   * take it. On PostgreSQL the work locks the rows it reads.
   */
  public <T> T inWriteTransaction(Work<T> work) throws SQLException {
    return connections.use(work, Transaction.WRITE);
  }

  /** What {@link Connections#use} runs work in. */
  private enum Transaction { NONE, ANY, WRITE }

  /**
   * A PostgreSQL connection of its own, outside the pool, for a session that lives long (a
   * {@code LISTEN}); the caller closes it.
   *
   * @throws IllegalStateException for SQLite, whose one connection is shared
   */
  public Connection openDedicated() throws SQLException {
    if (!(connections instanceof Pool pool)) {
      throw new IllegalStateException("only a PostgreSQL database has connections of their own");
    }
    return pool.connect();
  }

  @Override
  public void close() throws SQLException {
    connections.close();
  }

  /**
   * How {@code url} may be printed: the password cut out of every form, the URL checked as
   * {@link #open(String)} would.
   *
   * @throws IllegalArgumentException when {@code url} is no database URL (the message redacted)
   */
  public static String describeUrl(String url) {
    return parse(url).redacted();
  }

  static Target parse(String url) {
    if (url == null || url.isBlank()) {
      throw new IllegalArgumentException("the database URL is empty; " + URL_FORMS);
    }
    String u = url.strip();
    if (u.startsWith("jdbc:sqlite:")) {
      String file = u.substring("jdbc:sqlite:".length());
      if (file.isEmpty() || file.contains(":memory:") || file.contains("mode=memory")) {
        throw new IllegalArgumentException(
            "the database must be a file, not an in-memory SQLite database: " + u);
      }
      return sqlite(file);
    }
    if (u.startsWith("postgresql://") || u.startsWith("postgres://")) {
      return postgres(u);
    }
    if (u.startsWith("jdbc:postgresql:")) {
      return postgresJdbc(u);
    }
    if (u.startsWith("jdbc:") || u.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*")) {
      throw new IllegalArgumentException(
          "unsupported database URL " + redactUserInfo(u) + "; " + URL_FORMS);
    }
    return sqlite(Path.of(u).toAbsolutePath().toString());
  }

  private static Target sqlite(String file) {
    String jdbc = "jdbc:sqlite:" + file;
    return new Target(Dialect.SQLITE, jdbc, null, null, jdbc);
  }

  /** {@code postgresql://USER:PASSWORD@HOST:PORT/DATABASE?PARAMS}, libpq's URI form. */
  private static Target postgres(String url) {
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("malformed database URL " + redactUserInfo(url)
          + ": percent-encode special characters of the user and password; " + URL_FORMS);
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException(
          "the database URL " + redactUserInfo(url) + " names no host; " + URL_FORMS);
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    if (path.length() <= 1) {
      throw new IllegalArgumentException(
          "the database URL " + redactUserInfo(url) + " names no database; " + URL_FORMS);
    }
    String user = null;
    String password = null;
    String userInfo = uri.getRawUserInfo();
    if (userInfo != null) {
      int colon = userInfo.indexOf(':');
      user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
      password = colon < 0 ? null : decode(userInfo.substring(colon + 1));
    }
    Query q = Query.of(uri.getRawQuery());
    user = q.user != null ? q.user : user;
    password = q.password != null ? q.password : password;
    String hostPort = uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
    String jdbc = "jdbc:postgresql://" + hostPort + path + q.rest();
    String shown = "postgresql://" + (user == null ? "" : user + (password == null ? "" : ":***")
        + "@") + hostPort + path + q.rest();
    return new Target(Dialect.POSTGRESQL, jdbc, user, password, Redaction.redactUrl(shown));
  }

  /**
   * {@code jdbc:postgresql://HOST:PORT/DATABASE?user=…&password=…}, pgjdbc's own form. Credentials
   * written as user info ({@code jdbc:postgresql://USER:PASSWORD@HOST/…}), which pgjdbc would
   * take for part of the host and print in its errors, are taken out like those of the query.
   */
  private static Target postgresJdbc(String url) {
    int qm = url.indexOf('?');
    String base = qm < 0 ? url : url.substring(0, qm);
    Query q = Query.of(qm < 0 ? null : url.substring(qm + 1));
    String prefix = "jdbc:postgresql://";
    String user = q.user;
    String password = q.password;
    if (base.startsWith(prefix) && base.lastIndexOf('@') > prefix.length() - 1) {
      int at = base.lastIndexOf('@');
      String userInfo = base.substring(prefix.length(), at);
      base = prefix + base.substring(at + 1);
      int colon = userInfo.indexOf(':');
      user = user != null ? user : decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
      password = password != null ? password
          : colon < 0 ? null : decode(userInfo.substring(colon + 1));
    }
    String jdbc = base + q.rest();
    String shown = jdbc + (password == null ? "" : (q.rest().isEmpty() ? "?" : "&")
        + "password=***");
    return new Target(Dialect.POSTGRESQL, jdbc, user, password, Redaction.redactUrl(shown));
  }

  /** A URL's query with {@code user} and {@code password} taken out. */
  private record Query(String user, String password, List<String> others) {
    static Query of(String raw) {
      String user = null;
      String password = null;
      List<String> others = new ArrayList<>();
      if (raw != null && !raw.isEmpty()) {
        for (String pair : raw.split("&")) {
          int eq = pair.indexOf('=');
          if (eq < 0 && !pair.isEmpty()) {
            // Most likely the tail of a password with an unencoded '&': neither guess nor show.
            throw new IllegalArgumentException("the database URL's query has a part without '=';"
                + " percent-encode '&' as %26 (and '@' as %40) in the user and password");
          }
          String key = eq < 0 ? pair : pair.substring(0, eq);
          String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
          if (key.equals("user")) {
            user = value;
          } else if (key.equals("password")) {
            password = value;
          } else if (!pair.isEmpty()) {
            others.add(pair);
          }
        }
      }
      return new Query(user, password, others);
    }

    String rest() {
      return others.isEmpty() ? "" : "?" + String.join("&", others);
    }
  }

  private static String decode(String s) {
    return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  /** A URL that could not be parsed, as it may be printed. */
  private static String redactUserInfo(String url) {
    return Redaction.redactUrl(url);
  }

  /** A driver's or Flyway's message: the password, raw or URL-encoded, never shows. */
  private static String redact(String message, Target target) {
    if (message == null) {
      return "";
    }
    String m = message.strip();
    String password = target.password();
    if (password != null && !password.isEmpty()) {
      m = m.replace(password, "***")
          .replace(URLEncoder.encode(password, StandardCharsets.UTF_8), "***");
    }
    return Redaction.redact(m);
  }

  /** How work gets a connection. */
  private interface Connections {
    <T> T use(Work<T> work, Transaction transaction) throws SQLException;

    default Prepared prepare(Connection c, String sql) throws SQLException {
      return new Prepared(c.prepareStatement(sql), null, sql);
    }

    void close() throws SQLException;
  }

  private static <T> T transaction(Connection c, Work<T> work) throws SQLException {
    c.setAutoCommit(false);
    try {
      T result = work.run(c);
      c.commit();
      return result;
    } catch (SQLException | RuntimeException e) {
      try {
        c.rollback();
      } catch (SQLException r) {
        e.addSuppressed(r);
      }
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  /**
   * SQLite: one connection, one user at a time, its statements kept prepared (at most one per
   * text, which the code holds few of), and its log checkpointed by a thread of its own.
   */
  private static final class Single implements Connections {
    private final Connection connection;
    private final WalCheckpointer checkpointer;
    /** Prepared statements not lent now, by their text. */
    private final Map<String, PreparedStatement> kept = new HashMap<>();
    /** Whether a transaction is under way (guarded by this, as the connection is). */
    private boolean inTransaction;

    Single(Connection connection, String jdbcUrl) throws SQLException {
      this.connection = connection;
      try {
        this.checkpointer = WalCheckpointer.start(jdbcUrl, this, connection);
      } catch (SQLException e) {
        connection.close();
        throw e;
      }
    }

    @Override
    public synchronized <T> T use(Work<T> work, Transaction transaction) throws SQLException {
      try {
        return transaction == Transaction.NONE ? work.run(connection)
            : transaction(work, transaction == Transaction.WRITE ? "BEGIN IMMEDIATE" : "BEGIN");
      } catch (SQLException | RuntimeException e) {
        // A statement that failed half-way is not lent again.
        forgetKept();
        throw e;
      } finally {
        checkpointer.written();
      }
    }

    /**
     * A transaction begun and ended by SQLite's own statements, kept prepared as the others are:
     * the driver's {@code setAutoCommit(false)}, {@code commit()} and {@code setAutoCommit(true)}
     * compile "begin;" or "commit;" at every call, four times a transaction (its commit begins
     * the next one, which turning auto-commit back on commits): an eighth of an API call's audit
     * record (docs/benchmarks.md). The connection stays in auto-commit, where the driver leaves
     * a transaction begun by a statement alone until that statement ends it.
     */
    private <T> T transaction(Work<T> work, String begin) throws SQLException {
      if (inTransaction) {
        return work.run(connection); // nested: part of the transaction under way
      }
      execute(begin);
      inTransaction = true;
      try {
        T result = work.run(connection);
        execute("COMMIT");
        return result;
      } catch (SQLException | RuntimeException e) {
        try {
          execute("ROLLBACK");
        } catch (SQLException r) {
          e.addSuppressed(r);
        }
        throw e;
      } finally {
        inTransaction = false;
      }
    }

    private void execute(String sql) throws SQLException {
      try (Prepared p = prepare(connection, sql)) {
        p.statement().execute();
      }
    }

    @Override
    public synchronized Prepared prepare(Connection c, String sql) throws SQLException {
      if (c != connection) {
        return Connections.super.prepare(c, sql);
      }
      PreparedStatement ps = kept.remove(sql);
      return new Prepared(ps != null ? ps : c.prepareStatement(sql), this, sql);
    }

    synchronized void giveBack(String sql, PreparedStatement ps) throws SQLException {
      if (ps.isClosed()) {
        return;
      }
      ps.clearParameters();
      PreparedStatement other = kept.putIfAbsent(sql, ps);
      if (other != null) {
        ps.close(); // a second use of one text at once, nested: keep one
      }
    }

    private void forgetKept() {
      for (PreparedStatement ps : kept.values()) {
        try {
          ps.close();
        } catch (SQLException ignored) {
          // Thrown away either way.
        }
      }
      kept.clear();
    }

    @Override
    public void close() throws SQLException {
      try {
        checkpointer.close(); // not under the lock, which its last pass may want
      } finally {
        synchronized (this) {
          forgetKept();
          connection.close();
        }
      }
    }
  }

  /**
   * PostgreSQL: a connection per operation, reusing up to {@value #POSTGRES_IDLE_CONNECTIONS}
   * idle ones. A connection that saw an error is closed, never reused.
   */
  private static final class Pool implements Connections {
    private static final long CHECK_AFTER_IDLE_MILLIS = 30_000;

    private record Idle(Connection connection, long since) {}

    private final Target target;
    private final Properties properties = new Properties();
    private final Deque<Idle> idle = new ArrayDeque<>();
    private boolean closed;

    Pool(Target target) {
      this.target = target;
      if (target.user() != null) {
        properties.setProperty("user", target.user());
      }
      if (target.password() != null) {
        properties.setProperty("password", target.password());
      }
      properties.setProperty("ApplicationName", "pushgate");
      properties.setProperty("connectTimeout", "10");
      properties.setProperty("tcpKeepAlive", "true");
    }

    @Override
    public <T> T use(Work<T> work, Transaction transaction) throws SQLException {
      Connection c = take();
      boolean healthy = false;
      try {
        T result = transaction == Transaction.NONE ? work.run(c) : transaction(c, work);
        healthy = true;
        return result;
      } finally {
        giveBack(c, healthy);
      }
    }

    private Connection take() throws SQLException {
      while (true) {
        Idle i;
        synchronized (this) {
          if (closed) {
            throw new SQLException("the database " + target + " is closed");
          }
          i = idle.pollFirst();
        }
        if (i == null) {
          break;
        }
        if (System.currentTimeMillis() - i.since() < CHECK_AFTER_IDLE_MILLIS
            || i.connection().isValid(5)) {
          return i.connection();
        }
        closeQuietly(i.connection());
      }
      return connect();
    }

    /** A new connection, its errors redacted. */
    Connection connect() throws SQLException {
      try {
        return DriverManager.getConnection(target.jdbcUrl(), properties);
      } catch (SQLException e) {
        throw new SQLException("cannot connect to the database " + target + ": "
            + redact(e.getMessage(), target), e.getSQLState(), e);
      }
    }

    private void giveBack(Connection c, boolean healthy) {
      synchronized (this) {
        if (healthy && !closed && idle.size() < POSTGRES_IDLE_CONNECTIONS) {
          idle.addFirst(new Idle(c, System.currentTimeMillis()));
          return;
        }
      }
      closeQuietly(c);
    }

    @Override
    public void close() {
      List<Idle> all;
      synchronized (this) {
        closed = true;
        all = List.copyOf(idle);
        idle.clear();
      }
      for (Idle i : all) {
        closeQuietly(i.connection());
      }
    }

    private static void closeQuietly(Connection c) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // The connection is being thrown away.
      }
    }
  }
}
