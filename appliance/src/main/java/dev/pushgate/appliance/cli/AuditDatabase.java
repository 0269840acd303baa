package dev.pushgate.appliance.cli;

import dev.pushgate.appliance.DataDirectory;
import dev.pushgate.appliance.store.Database;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The database the audit commands read, their two options ({@code pushgate audit} and {@code
 * audit verify} mix them in): {@code --database-url}, its variable, or the data directory's.
 */
final class AuditDatabase {
  @Option(names = "--data-dir", defaultValue = "pushgate-data",
      description = "The appliance's data directory. Default: ${DEFAULT-VALUE}")
  Path dataDir;

  @Option(names = "--database-url", paramLabel = "URL",
      description = "Read this database instead (as serve's --database-url). Also"
          + " PUSHGATE_DATABASE_URL.")
  String databaseUrl;

  /** The database named by {@code --database-url} or its variable; null for the data dir's. */
  String url() {
    return databaseUrl != null ? databaseUrl : System.getenv("PUSHGATE_DATABASE_URL");
  }

  Database open() throws Exception {
    String url = url();
    if (url != null) {
      return Database.open(url);
    }
    Path file = DataDirectory.existing(dataDir).resolve("pushgate.db");
    if (!Files.exists(file)) {
      throw new IllegalStateException("no audit here: " + file + " does not exist; give the"
          + " appliance's --data-dir or --database-url");
    }
    return Database.open(file);
  }
}
