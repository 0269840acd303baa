package dev.pushgate.appliance.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
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

  @Override
  String settlesIndexDefinition() throws SQLException {
    return db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT indexdef FROM pg_indexes"
          + " WHERE schemaname = current_schema() AND indexname = 'audit_settles'");
          ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    });
  }
}
