package dev.pushgate.appliance.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The appliance's database: SQLite in the data directory. One connection, used under this
 * object's lock; the appliance's write rate (a few rows per push or run) never needs more.
 */
public final class Database implements AutoCloseable {
  private static final String[] SCHEMA = {
    """
    CREATE TABLE IF NOT EXISTS runs (
      id TEXT PRIMARY KEY,
      workspace_id TEXT NOT NULL,
      session_id TEXT,
      agent_id TEXT,
      mode TEXT NOT NULL,
      repository TEXT NOT NULL,
      repository_id INTEGER,
      attached TEXT NOT NULL,
      rules TEXT NOT NULL,
      credential_hash TEXT NOT NULL UNIQUE,
      git_config_path TEXT,
      backend TEXT,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      ended_at INTEGER,
      end_reason TEXT)""",
    """
    CREATE TABLE IF NOT EXISTS credentials (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      run_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      repository TEXT NOT NULL,
      token BLOB NOT NULL,
      issued_at INTEGER NOT NULL,
      expires_at INTEGER,
      revoked_at INTEGER,
      revoke_attempts INTEGER NOT NULL DEFAULT 0,
      last_error TEXT)""",
    "CREATE INDEX IF NOT EXISTS credentials_live ON credentials(revoked_at, run_id)",
    """
    CREATE TABLE IF NOT EXISTS audit (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      at INTEGER NOT NULL,
      run_id TEXT NOT NULL,
      workspace_id TEXT,
      repository TEXT NOT NULL,
      ref TEXT,
      old_id TEXT,
      new_id TEXT,
      kind TEXT,
      decision TEXT NOT NULL,
      rule TEXT,
      code TEXT,
      reason TEXT,
      outcome TEXT,
      duration_ms INTEGER)""",
    "CREATE INDEX IF NOT EXISTS audit_run ON audit(run_id)",
    """
    CREATE TABLE IF NOT EXISTS approvals (
      id TEXT PRIMARY KEY,
      action TEXT NOT NULL,
      run_id TEXT NOT NULL,
      workspace_id TEXT,
      repository TEXT,
      ref TEXT,
      kind TEXT,
      old_id TEXT,
      new_id TEXT,
      command TEXT,
      rule TEXT,
      reason TEXT,
      asked_at INTEGER NOT NULL,
      ended_at INTEGER,
      outcome TEXT,
      answered_by TEXT,
      answer_reason TEXT)""",
    """
    CREATE TABLE IF NOT EXISTS forge_tokens (
      hash TEXT PRIMARY KEY,
      repository_ids TEXT NOT NULL,
      permissions TEXT NOT NULL,
      expires_at INTEGER NOT NULL,
      revoked_at INTEGER)""",
  };

  private final Connection connection;

  private Database(Connection connection) {
    this.connection = connection;
  }

  public static Database open(Path file) throws SQLException {
    Connection c = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
    try (Statement s = c.createStatement()) {
      s.execute("PRAGMA journal_mode=WAL");
      s.execute("PRAGMA synchronous=NORMAL");
      s.execute("PRAGMA busy_timeout=5000");
      s.execute("PRAGMA foreign_keys=ON");
      for (String ddl : SCHEMA) {
        s.execute(ddl);
      }
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    return new Database(c);
  }

  /** Work done on the one connection, under its lock. */
  @FunctionalInterface
  public interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  public synchronized <T> T with(Work<T> work) throws SQLException {
    return work.run(connection);
  }

  /** Runs {@code work} in one transaction: all of it or none. */
  public synchronized <T> T inTransaction(Work<T> work) throws SQLException {
    connection.setAutoCommit(false);
    try {
      T result = work.run(connection);
      connection.commit();
      return result;
    } catch (SQLException | RuntimeException e) {
      connection.rollback();
      throw e;
    } finally {
      connection.setAutoCommit(true);
    }
  }

  @Override
  public synchronized void close() throws SQLException {
    connection.close();
  }
}
