package dev.pushgate.appliance.store;

import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * The audit chain tests on PostgreSQL, as {@link PostgresStorageTest} runs the storage tests:
 * a schema of {@code PUSHGATE_TEST_POSTGRES_URL}'s database per store; skipped without it,
 * failed without it under {@code CI=true}.
 */
class AuditChainPostgresTest extends AuditChainContract {
  private static Database.Target server;
  private final List<String> schemas = new ArrayList<>();

  @BeforeAll
  static void requirePostgres() {
    String url = System.getenv(PostgresStorageTest.ENV);
    if (url == null || url.isBlank()) {
      if ("true".equals(System.getenv("CI"))) {
        fail(PostgresStorageTest.ENV + " is not set under CI=true");
      }
      assumeTrue(false, PostgresStorageTest.ENV + " is not set; skipped");
    }
    server = Database.parse(url);
  }

  @Override
  String freshStore() throws SQLException {
    String schema = "pushgate_audit_" + UUID.randomUUID().toString().replace("-", "");
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    }
    schemas.add(schema);
    String url = System.getenv(PostgresStorageTest.ENV).strip();
    return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
  }

  private static Connection connect() throws SQLException {
    return DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
  }

  @AfterEach
  void dropSchemas() throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement()) {
      for (String schema : schemas) {
        s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      }
    }
  }
}
