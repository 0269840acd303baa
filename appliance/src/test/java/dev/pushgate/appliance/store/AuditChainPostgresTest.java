package dev.pushgate.appliance.store;

import java.sql.SQLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * The audit chain tests on PostgreSQL, as {@link PostgresStorageTest} runs the storage tests:
 * a schema of {@code PUSHGATE_TEST_POSTGRES_URL}'s database per store; skipped without it,
 * failed without it under {@code CI=true}.
 */
class AuditChainPostgresTest extends AuditChainContract {
  private static TestPostgres postgres;

  @BeforeAll
  static void requirePostgres() {
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
