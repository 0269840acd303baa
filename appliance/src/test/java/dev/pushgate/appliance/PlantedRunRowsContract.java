package dev.pushgate.appliance;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.pushgate.appliance.runs.Runs;
import dev.pushgate.appliance.store.Database;
import dev.pushgate.appliance.store.Ledger;
import dev.pushgate.appliance.store.SecretBox;
import dev.pushgate.types.Secret;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Issue 29: whoever can write the database can plant run rows; the real appliance, started on
 * it, must remove nothing outside its runs directory for them, and still revoke what they hold.
 * A subclass says which database the appliance uses.
 */
abstract class PlantedRunRowsContract {
  @TempDir Path root;

  /** The database the appliance is started on; null for its data directory's SQLite file. */
  abstract String databaseUrl() throws Exception;

  @Test
  void aStartUpRemovesNothingOutsideTheRunsDirectoryWhateverIdsTheLedgerHolds()
      throws Exception {
    Path data = root.resolve("data");
    String url = databaseUrl();
    TestAppliance.start(data, null, url).close(); // makes the data directory and the schema
    Path runs = Files.createDirectories(data.resolve("runs"));
    Path up = precious(root.resolve("victim"));
    Path absolute = precious(root.resolve("victim-absolute"));
    Path sideways = precious(data.resolve("b"));
    Path linkedTo = precious(root.resolve("victim-linked"));
    String linked = "run_" + "1".repeat(24);
    Files.createSymbolicLink(runs.resolve(linked), linkedTo);
    String ordinary = "run_" + "2".repeat(24);
    precious(runs.resolve(ordinary));
    String liveBad = "../../victim\nrecovery: all well";

    Instant now = Instant.now();
    try (Database db = url == null ? Database.open(data.resolve("pushgate.db"))
        : Database.open(url)) {
      Ledger planted = new Ledger(db, SecretBox.openOrCreate(data.resolve("ledger.key")));
      for (String id : new String[] {"../../victim", absolute.toString(), "a/../../b", linked,
          ordinary}) {
        planted.insertRun(row(id, now.minus(Duration.ofHours(1))));
      }
      planted.insertRun(row(liveBad, now.plus(Duration.ofHours(1))));
      planted.recordCredential(liveBad, "read", "acme/widget", Secret.of("ghs_planted"), now,
          now.plus(Duration.ofHours(1)));
    }

    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    Logger logger = (Logger) LoggerFactory.getLogger(Runs.class);
    logger.addAppender(logs);
    try {
      TestAppliance.start(data, null, url).close();
    } finally {
      logger.detachAppender(logs);
    }

    for (Path victim : new Path[] {up, absolute, sideways, linkedTo}) {
      assertThat(victim.resolve("precious")).as(victim.toString()).hasContent("keep me");
    }
    assertThat(runs.resolve(linked)).as("a run directory that is a link is left in place")
        .isSymbolicLink();
    assertThat(runs.resolve(ordinary)).as("an ordinary expired run's files go").doesNotExist();
    assertThat(logs.list).extracting(ILoggingEvent::getFormattedMessage)
        .contains("ledger: run ../../victim\\x0arecovery: all well has an id pushgate never makes"
            + " (run_ and 24 hex digits), so it is not resumed and no file is touched for it;"
            + " it is ended in the ledger and its credentials revoked")
        .noneMatch(m -> m.contains("\n"));
    try (Database db = url == null ? Database.open(data.resolve("pushgate.db"))
        : Database.open(url)) {
      assertThat(endReason(db, liveBad)).isEqualTo("refused: not a run id");
      assertThat(endReason(db, "../../victim")).isEqualTo("refused: not a run id");
      assertThat(endReason(db, ordinary)).isEqualTo("expired");
      assertThat(revokeAttempts(db, liveBad)).as("the planted run's token was revoked")
          .isPositive();
    }
  }

  private static Path precious(Path dir) throws Exception {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("precious"), "keep me");
    return dir;
  }

  private static Ledger.RunRow row(String id, Instant expires) {
    return new Ledger.RunRow(id, "ws", null, null, "agent", "acme/widget", null, "[]", "{}",
        "hash-of-" + id, null, null, expires.minus(Duration.ofHours(2)), expires, null, null);
  }

  private static String endReason(Database db, String runId) throws SQLException {
    return db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT end_reason FROM runs WHERE id = ?")) {
        ps.setString(1, runId);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? rs.getString(1) : "(no row)";
        }
      }
    });
  }

  private static long revokeAttempts(Database db, String runId) throws SQLException {
    return db.with(c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT revoke_attempts FROM credentials WHERE run_id = ?")) {
        ps.setString(1, runId);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getLong(1);
        }
      }
    });
  }
}
