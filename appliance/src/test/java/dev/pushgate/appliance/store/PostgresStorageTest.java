package dev.pushgate.appliance.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.fail;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The storage tests on PostgreSQL, as a fleet uses it. {@code PUSHGATE_TEST_POSTGRES_URL} names
 * a database the tests may create schemas in (each test gets its own); without it these tests
 * are skipped, except under {@code CI=true}, where they fail.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresStorageTest extends StorageContract {
  static final String ENV = "PUSHGATE_TEST_POSTGRES_URL";

  private Database.Target server;
  private final List<String> schemas = new ArrayList<>();

  @BeforeAll
  void requirePostgres() {
    String url = System.getenv(ENV);
    boolean ci = "true".equals(System.getenv("CI"));
    if (url == null || url.isBlank()) {
      if (ci) {
        fail(ENV + " is not set under CI=true: .ci/run starts PostgreSQL and sets it");
      }
      assumeTrue(false, ENV + " is not set; the PostgreSQL storage tests are skipped");
    }
    server = Database.parse(url);
    try (Connection c = connect()) {
      assertThat(c.isValid(5)).isTrue();
    } catch (SQLException e) {
      fail("cannot reach PostgreSQL at " + server + " (" + ENV + "): " + e.getMessage());
    }
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
  }

  @Override
  String freshStore() throws SQLException {
    String schema = "pushgate_test_" + UUID.randomUUID().toString().replace("-", "");
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    }
    schemas.add(schema);
    return inSchema(schema);
  }

  private static String inSchema(String schema) {
    String url = System.getenv(ENV).strip();
    return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
  }

  @AfterEach
  void dropSchemas() throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement()) {
      for (String schema : schemas) {
        s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      }
    }
  }

  @Test
  void opensOnPostgresWithThePasswordRedacted() {
    assertThat(db.dialect()).isEqualTo(Database.Dialect.POSTGRESQL);
    if (server.password() != null) {
      String shown = ":" + server.password() + "@";
      assertThat(db.describe()).contains(":***@").doesNotContain(shown);
      assertThat(db.toString()).contains(":***@").doesNotContain(shown);
    }
  }

  @Test
  void refusesToAdoptANonEmptySchemaWithoutHistory() throws SQLException {
    String schema = freshStore();
    String name = schema.substring(schema.lastIndexOf('=') + 1);
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE " + name + ".something_else (id INTEGER)");
    }
    assertThatThrownBy(() -> Database.open(schema))
        .isInstanceOf(SQLException.class)
        .hasMessageStartingWith("cannot migrate the database postgresql://")
        .hasMessageContaining("no schema history table");
  }

  @Test
  void aWrongPasswordIsReportedWithoutIt() {
    String url = System.getenv(ENV).strip();
    assumeTrue(server.password() != null, "the test URL has no password");
    String wrong = url.replace(":" + server.password() + "@", ":Wr0ngSecret@");
    assertThatThrownBy(() -> Database.open(wrong))
        .isInstanceOf(SQLException.class)
        .hasMessageStartingWith("cannot migrate the database postgresql://")
        .hasMessageNotContaining("Wr0ngSecret");
  }
}
