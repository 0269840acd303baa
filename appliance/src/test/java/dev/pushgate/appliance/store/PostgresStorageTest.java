package dev.pushgate.appliance.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The storage tests on PostgreSQL, as a fleet uses it. {@code PUSHGATE_TEST_POSTGRES_URL} names
 * a database the tests may create schemas in (each test gets its own); without it these tests
 * are skipped, except under {@code CI=true}, where they fail.
 */
class PostgresStorageTest extends StorageContract {
  static final String ENV = "PUSHGATE_TEST_POSTGRES_URL";

  @RegisterExtension final TestPostgres postgres = new TestPostgres();

  @Override
  String freshStore() throws SQLException {
    return postgres.freshStore();
  }

  @Test
  void opensOnPostgresWithThePasswordRedacted() {
    assertThat(db.dialect()).isEqualTo(Database.Dialect.POSTGRESQL);
    if (postgres.server().password() != null) {
      String shown = ":" + postgres.server().password() + "@";
      assertThat(db.describe()).contains(":***@").doesNotContain(shown);
      assertThat(db.toString()).contains(":***@").doesNotContain(shown);
    }
  }

  @Test
  void refusesToAdoptANonEmptySchemaWithoutHistory() throws SQLException {
    String name = postgres.freshSchema();
    postgres.execute("CREATE TABLE " + name + ".something_else (id INTEGER)");
    assertThatThrownBy(() -> Database.open(postgres.urlOf(name)))
        .isInstanceOf(SQLException.class)
        .hasMessageStartingWith("cannot migrate the database postgresql://")
        .hasMessageContaining("no schema history table");
  }

  @Test
  void aWrongPasswordIsReportedWithoutIt() {
    String url = System.getenv(ENV).strip();
    assumeTrue(postgres.server().password() != null, "the test URL has no password");
    String wrong = url.replace(":" + postgres.server().password() + "@", ":Wr0ngSecret@");
    assertThatThrownBy(() -> Database.open(wrong))
        .isInstanceOf(SQLException.class)
        .hasMessageStartingWith("cannot migrate the database postgresql://")
        .hasMessageNotContaining("Wr0ngSecret");
  }
}
