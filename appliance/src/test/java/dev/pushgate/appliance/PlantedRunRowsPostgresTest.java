package dev.pushgate.appliance;

import dev.pushgate.appliance.store.TestPostgres;
import java.sql.SQLException;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link PlantedRunRowsContract} on a PostgreSQL schema, as a fleet shares its ledger. */
class PlantedRunRowsPostgresTest extends PlantedRunRowsContract {
  @RegisterExtension final TestPostgres postgres = new TestPostgres();

  @Override
  String databaseUrl() throws SQLException {
    return postgres.freshStore();
  }
}
