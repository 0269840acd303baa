package dev.pushgate.appliance.cli;

import dev.pushgate.appliance.DataDirectory;
import dev.pushgate.appliance.store.Database;
import java.nio.file.Files;
import java.nio.file.Path;

/** The database the audit commands read: {@code --database-url}, its variable, or the data dir's. */
final class AuditDatabase {
  private AuditDatabase() {}

  static String url(String databaseUrl) {
    return databaseUrl != null ? databaseUrl : System.getenv("PUSHGATE_DATABASE_URL");
  }

  static Database open(Path dataDir, String databaseUrl) throws Exception {
    String url = url(databaseUrl);
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
