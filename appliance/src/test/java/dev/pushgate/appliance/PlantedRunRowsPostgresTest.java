package dev.pushgate.appliance;

import dev.pushgate.appliance.store.TestPostgres;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** {@link PlantedRunRowsContract} on a PostgreSQL schema, as a fleet shares its ledger. */
class PlantedRunRowsPostgresTest extends PlantedRunRowsContract {
  private TestPostgres postgres;

  @BeforeEach
  void requirePostgres() {
    postgres = TestPostgres.require();
  }

  @Override
  String databaseUrl() throws SQLException {
    return postgres.freshStore();
  }

  @AfterEach
  void dropSchemas() throws SQLException {
    if (postgres != null) { // null when require() skipped the test: no PostgreSQL configured
      postgres.close();
    }
  }
}
