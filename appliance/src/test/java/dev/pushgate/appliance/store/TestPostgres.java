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
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fresh PostgreSQL schemas for the tests that run on PostgreSQL: one schema of {@code
 * PUSHGATE_TEST_POSTGRES_URL}'s database per store; without that variable the test is skipped,
 * or failed under {@code CI=true}; with it, a database that cannot be reached fails the test.
 * Registered as an extension ({@code @RegisterExtension}), it does so before each test and drops
 * the test's schemas after it.
 */
public final class TestPostgres implements AutoCloseable, BeforeEachCallback, AfterEachCallback {
  private Database.Target server;
  private final List<String> schemas = new ArrayList<>();

  /** The test database, or the test skipped (failed under CI) without one. */
  public static TestPostgres require() {
    TestPostgres postgres = new TestPostgres();
    postgres.reach();
    return postgres;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    reach();
  }

  @Override
  public void afterEach(ExtensionContext context) throws SQLException {
    if (server != null) { // null when the test was skipped: no PostgreSQL configured
      close();
    }
  }

  /** Where the test database is; null before the test started. */
  Database.Target server() {
    return server;
  }

  private void reach() {
    String url = System.getenv(PostgresStorageTest.ENV);
    if (url == null || url.isBlank()) {
      if ("true".equals(System.getenv("CI"))) {
        fail(PostgresStorageTest.ENV
            + " is not set under CI=true: .ci/run starts PostgreSQL and sets it");
      }
      assumeTrue(false, PostgresStorageTest.ENV + " is not set; skipped");
    }
    server = Database.parse(url);
    try {
      execute("SELECT 1");
    } catch (SQLException e) {
      fail("cannot reach PostgreSQL at " + server + " (" + PostgresStorageTest.ENV + "): "
          + e.getMessage());
    }
  }

  /** The URL of a new, empty schema, dropped by the next {@link #close}. */
  public String freshStore() throws SQLException {
    return urlOf(freshSchema());
  }

  /** The name of a new, empty schema, dropped by the next {@link #close}. */
  public String freshSchema() throws SQLException {
    String schema = "pushgate_test_" + UUID.randomUUID().toString().replace("-", "");
    execute("CREATE SCHEMA " + schema);
    schemas.add(schema);
    return schema;
  }

  /** The URL of {@code schema} of the test database, as the appliance is given it. */
  public String urlOf(String schema) {
    String url = System.getenv(PostgresStorageTest.ENV).strip();
    return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
  }

  /** Runs {@code statement} as the test's database user, past any appliance's own checks. */
  public void execute(String statement) throws SQLException {
    try (Connection c = DriverManager.getConnection(server.jdbcUrl(), server.user(),
            server.password());
        Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }

  @Override
  public void close() throws SQLException {
    for (String schema : schemas) {
      execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
    schemas.clear();
  }
}
