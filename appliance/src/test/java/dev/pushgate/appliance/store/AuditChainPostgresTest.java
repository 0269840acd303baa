package dev.pushgate.appliance.store;

import java.sql.SQLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The audit chain tests on PostgreSQL, as {@link PostgresStorageTest} runs the storage tests:
 * a schema of {@code PUSHGATE_TEST_POSTGRES_URL}'s database per store; skipped without it,
 * failed without it under {@code CI=true}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuditChainPostgresTest extends AuditChainContract {
  private TestPostgres postgres;

  @BeforeAll
  void requirePostgres() {
    postgres = TestPostgres.require();
  }

  @Override
  String freshStore() throws SQLException {
    return postgres.freshStore();
  }

  @AfterEach
  void dropSchemas() throws SQLException {
    postgres.close();
  }
}
