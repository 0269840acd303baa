package dev.pushgate.appliance.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.types.Secret;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The storage tests on SQLite, the embedded default, plus adopting a pre-migration file. */
class SqliteStorageTest extends StorageContract {
  /** The schema as pushgate created it before it had migrations. */
  private static final String[] SCHEMA_BEFORE_MIGRATIONS = {
    "CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL,"
        + " session_id TEXT, agent_id TEXT, mode TEXT NOT NULL, repository TEXT NOT NULL,"
        + " repository_id INTEGER, attached TEXT NOT NULL, rules TEXT NOT NULL,"
        + " credential_hash TEXT NOT NULL UNIQUE, git_config_path TEXT, backend TEXT,"
        + " created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, ended_at INTEGER,"
        + " end_reason TEXT)",
    "CREATE TABLE IF NOT EXISTS credentials (id INTEGER PRIMARY KEY AUTOINCREMENT,"
        + " run_id TEXT NOT NULL, kind TEXT NOT NULL, repository TEXT NOT NULL,"
        + " token BLOB NOT NULL, issued_at INTEGER NOT NULL, expires_at INTEGER,"
        + " revoked_at INTEGER, revoke_attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT)",
    "CREATE INDEX IF NOT EXISTS credentials_live ON credentials(revoked_at, run_id)",
    "CREATE TABLE IF NOT EXISTS audit (id INTEGER PRIMARY KEY AUTOINCREMENT,"
        + " at INTEGER NOT NULL, run_id TEXT NOT NULL, workspace_id TEXT,"
        + " repository TEXT NOT NULL, ref TEXT, old_id TEXT, new_id TEXT, kind TEXT,"
        + " decision TEXT NOT NULL, rule TEXT, code TEXT, reason TEXT, outcome TEXT,"
        + " duration_ms INTEGER)",
    "CREATE INDEX IF NOT EXISTS audit_run ON audit(run_id)",
    "CREATE TABLE IF NOT EXISTS approvals (id TEXT PRIMARY KEY, action TEXT NOT NULL,"
        + " run_id TEXT NOT NULL, workspace_id TEXT, repository TEXT, ref TEXT, kind TEXT,"
        + " old_id TEXT, new_id TEXT, command TEXT, rule TEXT, reason TEXT,"
        + " asked_at INTEGER NOT NULL, ended_at INTEGER, outcome TEXT, answered_by TEXT,"
        + " answer_reason TEXT)",
    "CREATE TABLE IF NOT EXISTS forge_tokens (hash TEXT PRIMARY KEY,"
        + " repository_ids TEXT NOT NULL, permissions TEXT NOT NULL,"
        + " expires_at INTEGER NOT NULL, revoked_at INTEGER)",
  };

  @Override
  String freshStore() {
    return tmp.resolve("pushgate.db").toString();
  }

  /**
   * SQLite's one connection keeps a statement prepared once given back (SQLite compiles one at
   * every prepare); two uses of one text at once get two, and a failed transaction forgets them.
   */
  @Test
  void statementsGivenBackAreKeptPreparedAndForgottenAfterAFailure() throws Exception {
    String sql = "SELECT count(*) FROM audit WHERE run_id = ?";
    List<PreparedStatement> lent = new ArrayList<>();
    db.inTransaction(c -> {
      try (Database.Prepared first = db.prepare(c, sql)) {
        lent.add(first.statement());
        try (Database.Prepared nested = db.prepare(c, sql)) {
          lent.add(nested.statement());
        }
      }
      try (Database.Prepared again = db.prepare(c, sql)) {
        lent.add(again.statement());
        again.statement().setString(1, "run-1");
        try (ResultSet rs = again.statement().executeQuery()) {
          assertThat(rs.next()).isTrue();
        }
      }
      return null;
    });
    assertThat(lent.get(1)).isNotSameAs(lent.get(0));
    assertThat(lent.get(2)).isIn(lent.get(0), lent.get(1));

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> db.inTransaction(c -> {
      try (Database.Prepared p = db.prepare(c, sql)) {
        lent.add(p.statement());
      }
      throw new SQLException("the work failed");
    })).hasMessage("the work failed");
    assertThat(lent.get(3).isClosed()).isTrue();
    db.with(c -> {
      try (Database.Prepared p = db.prepare(c, sql)) {
        assertThat(p.statement()).isNotSameAs(lent.get(3));
      }
      return null;
    });
  }

  @Test
  void adoptsAFileWrittenBeforeMigrationsWithItsRows() throws Exception {
    Path file = tmp.resolve("old.db");
    long cred;
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement s = c.createStatement()) {
      for (String ddl : SCHEMA_BEFORE_MIGRATIONS) {
        s.execute(ddl);
      }
      s.execute("INSERT INTO runs(id, workspace_id, mode, repository, attached, rules,"
          + " credential_hash, created_at, expires_at) VALUES ('run-old', 'ws', 'chat',"
          + " 'acme/widget', '[]', '{}', 'hash-old', " + T0.toEpochMilli() + ", "
          + T0.plusSeconds(3600).toEpochMilli() + ")");
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO credentials(run_id, kind,"
          + " repository, token, issued_at) VALUES ('run-old', 'read', 'acme/widget', ?, ?)")) {
        ps.setBytes(1, box.seal(Secret.of("ghs_oldToken")));
        ps.setLong(2, T0.toEpochMilli());
        ps.executeUpdate();
      }
      try (ResultSet rs = s.executeQuery("SELECT max(id) FROM credentials")) {
        rs.next();
        cred = rs.getLong(1);
      }
    }

    try (Database adopted = Database.open(file)) {
      assertThat(history(adopted)).containsExactly("1", "2", "3", "3.1", "4", "5");
      assertThat(historyTypes(adopted)).containsExactly("BASELINE", "SQL", "SQL", "JDBC", "SQL", "SQL");
      Ledger ledger = new Ledger(adopted, box, "host-a");
      assertThat(ledger.unendedRuns()).extracting(Ledger.RunRow::id).containsExactly("run-old");
      assertThat(ledger.liveCredentials()).extracting(Ledger.LiveCredential::id)
          .containsExactly(cred);
      assertThat(ledger.liveCredentials().get(0).token().reveal()).isEqualTo("ghs_oldToken");

      ledger.insertRun(run("run-new", "hash-new"));
      assertThat(ledger.unendedRuns()).extracting(Ledger.RunRow::id)
          .containsExactly("run-old", "run-new");
    }
  }

  @Test
  void aFilePathAndAJdbcUrlOpenTheSameDatabase() throws SQLException {
    new Ledger(db, box, "host-a").insertRun(run("run-1", "hash-1"));
    try (Database byUrl = Database.open("jdbc:sqlite:" + tmp.resolve("pushgate.db"))) {
      assertThat(byUrl.dialect()).isEqualTo(Database.Dialect.SQLITE);
      assertThat(new Ledger(byUrl, box).run("run-1")).isPresent();
    }
  }

  @Test
  void aSchemaMigratedByALaterReleaseStillOpens() throws SQLException {
    db.with(c -> {
      try (Statement s = c.createStatement()) {
        s.execute("ALTER TABLE runs ADD COLUMN later TEXT");
        return s.executeUpdate("INSERT INTO flyway_schema_history(installed_rank, version,"
            + " description, type, script, checksum, installed_by, execution_time, success)"
            + " VALUES (99, '99', 'later', 'SQL', 'V99__later.sql', 1, 'test', 1, 1)");
      }
    });
    try (Database older = Database.open(tmp.resolve("pushgate.db"))) {
      new Ledger(older, box, "host-a").insertRun(run("run-1", "hash-1"));
      assertThat(history(older)).containsExactly("1", "2", "3", "3.1", "4", "5", "99");
    }
  }

  private static List<String> historyTypes(Database d) throws SQLException {
    return d.with(c -> {
      List<String> out = new ArrayList<>();
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery(
              "SELECT type FROM flyway_schema_history ORDER BY installed_rank")) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
      return out;
    });
  }
}
