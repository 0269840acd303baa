package dev.pushgate.appliance.cli;

import dev.pushgate.appliance.store.AuditVerifier;
import dev.pushgate.appliance.store.Database;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code pushgate audit verify}: walks every host's audit chain in the database, holds its end
 * against the host's head, and names the first broken record (docs/audit.md). Reads the database directly, whether or not the appliance runs.
 */
@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    description = "Check the audit chain of every host: no record edited, deleted or reordered,"
        + " none cut off the end, and the host's head where its chain ends."
        + " Exit status: 0 intact, " + AuditVerifyCommand.BROKEN + " broken, 1 could not check.",
    footer = {"", "Examples:", "  pushgate audit verify --data-dir /var/lib/pushgate",
        "  PUSHGATE_DATABASE_URL=postgresql://… pushgate audit verify"})
final class AuditVerifyCommand implements Callable<Integer> {
  /** The exit status of a broken chain: apart from 1 (an error) and 2 (a usage error). */
  static final int BROKEN = 3;

  @Mixin AuditDatabase database;

  @Override
  public Integer call() throws Exception {
    try (Database db = database.open()) {
      AuditVerifier.Result r = new AuditVerifier(db).verify();
      if (r.intact()) {
        System.out.println("audit chain intact: " + r.records() + " records (hosts: "
            + (r.hosts().isEmpty() ? "none" : String.join(", ", r.hosts())) + ")");
        return 0;
      }
      System.out.println("audit chain broken at " + r.broken());
      return BROKEN;
    }
  }
}
