package dev.pushgate.appliance.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQLite's transactions as {@link Database#inTransaction} runs them, begun and ended by its own
 * statements kept prepared: all of a transaction or nothing, seen by another connection only once
 * committed, one begun inside another's work a part of it, and the connection usable after a
 * failed one.
 */
class SqliteTransactionTest {
  @TempDir Path tmp;

  @Test
  void aTransactionIsWholeOrNothingAndOthersSeeItOnlyOnceCommitted() throws Exception {
    Path file = tmp.resolve("pushgate.db");
    try (Database db = Database.open(file);
        Connection other = DriverManager.getConnection("jdbc:sqlite:" + file)) {
      db.with(c -> update(c, "CREATE TABLE t (v TEXT PRIMARY KEY)"));

      List<List<String>> seenMeanwhile = new ArrayList<>();
      db.inTransaction(c -> {
        update(c, "INSERT INTO t VALUES ('a')");
        seenMeanwhile.add(values(other));
        return update(c, "INSERT INTO t VALUES ('b')");
      });
      assertThat(seenMeanwhile).containsExactly(List.of());
      assertThat(values(other)).containsExactly("a", "b");

      // A failure half-way, SQLite's own (a key taken) or the work's: nothing of it stays.
      assertThatThrownBy(() -> db.inTransaction(c -> {
        update(c, "INSERT INTO t VALUES ('c')");
        return update(c, "INSERT INTO t VALUES ('a')");
      })).isInstanceOf(SQLException.class);
      assertThatThrownBy(() -> db.inTransaction(c -> {
        update(c, "INSERT INTO t VALUES ('d')");
        throw new IllegalStateException("the work failed");
      })).hasMessage("the work failed");
      assertThat(values(other)).containsExactly("a", "b");

      // A transaction begun inside another's work is part of it: committed with it, or not.
      db.inTransaction(c -> {
        update(c, "INSERT INTO t VALUES ('g')");
        return db.inTransaction(inner -> update(inner, "INSERT INTO t VALUES ('h')"));
      });
      assertThatThrownBy(() -> db.inTransaction(c -> {
        db.inTransaction(inner -> update(inner, "INSERT INTO t VALUES ('i')"));
        throw new IllegalStateException("the outer work failed");
      })).hasMessage("the outer work failed");
      assertThat(values(other)).containsExactly("a", "b", "g", "h");

      // The connection goes on: a transaction after them, and a write outside any, commit.
      db.inTransaction(c -> update(c, "INSERT INTO t VALUES ('e')"));
      db.with(c -> update(c, "INSERT INTO t VALUES ('f')"));
      assertThat(values(other)).containsExactly("a", "b", "e", "f", "g", "h");
    }
  }

  private static int update(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      return s.executeUpdate(sql);
    }
  }

  private static List<String> values(Connection c) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
        "SELECT v FROM t ORDER BY v")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
