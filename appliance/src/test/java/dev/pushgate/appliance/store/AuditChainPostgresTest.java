package dev.pushgate.appliance.store;

import java.sql.SQLException;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The audit chain tests on PostgreSQL, as {@link PostgresStorageTest} runs the storage tests:
 * a schema of {@code PUSHGATE_TEST_POSTGRES_URL}'s database per store; skipped without it,
 * failed without it under {@code CI=true}.
 */
class AuditChainPostgresTest extends AuditChainContract {
  @RegisterExtension final TestPostgres postgres = new TestPostgres();

  @Override
  String freshStore() throws SQLException {
    return postgres.freshStore();
  }
}
