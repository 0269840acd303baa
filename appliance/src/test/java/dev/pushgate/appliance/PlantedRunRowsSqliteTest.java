package dev.pushgate.appliance;

/** {@link PlantedRunRowsContract} on the data directory's SQLite file. */
class PlantedRunRowsSqliteTest extends PlantedRunRowsContract {
  @Override
  String databaseUrl() {
    return null;
  }
}
