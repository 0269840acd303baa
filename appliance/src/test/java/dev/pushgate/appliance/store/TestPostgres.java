package dev.pushgate.appliance.store;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Fresh PostgreSQL schemas for tests outside this package, as {@link PostgresStorageTest} makes
 * them: one schema of {@code PUSHGATE_TEST_POSTGRES_URL}'s database per store; without that
 * variable the test is skipped, or failed under {@code CI=true}.
 */
public final class TestPostgres implements AutoCloseable {
  private final Database.Target server;
  private final List<String> schemas = new ArrayList<>();

  private TestPostgres(Database.Target server) {
    this.server = server;
  }

  /** The test database, or the test skipped (failed under CI) without one. */
  public static TestPostgres require() {
    String url = System.getenv(PostgresStorageTest.ENV);
    if (url == null || url.isBlank()) {
      if ("true".equals(System.getenv("CI"))) {
        fail(PostgresStorageTest.ENV + " is not set under CI=true");
      }
      assumeTrue(false, PostgresStorageTest.ENV + " is not set; skipped");
    }
    return new TestPostgres(Database.parse(url));
  }

  /** The URL of a new, empty schema, dropped by the next {@link #close}. */
  public String freshStore() throws SQLException {
    String schema = "pushgate_test_" + UUID.randomUUID().toString().replace("-", "");
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    }
    schemas.add(schema);
    String url = System.getenv(PostgresStorageTest.ENV).strip();
    return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
  }

  @Override
  public void close() throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement()) {
      for (String schema : schemas) {
        s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      }
    }
    schemas.clear();
  }
}
