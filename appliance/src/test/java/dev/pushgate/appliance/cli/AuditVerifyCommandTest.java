package dev.pushgate.appliance.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.appliance.store.AuditChain;
import dev.pushgate.appliance.store.AuditSink;
import dev.pushgate.appliance.store.AuditStore;
import dev.pushgate.appliance.store.Database;
import dev.pushgate.appliance.store.TestPostgres;
import dev.pushgate.types.AuditEntry;
import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pushgate audit verify --database-url} on both databases: a chain's tail cut off is a
 * break (exit 3) whether or not its head row went with it (issue 29: without the head it said
 * intact).
 */
class AuditVerifyCommandTest {
  private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

  @TempDir Path tmp;
  private TestPostgres postgres;

  @AfterEach
  void dropSchemas() throws SQLException {
    if (postgres != null) {
      postgres.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"sqlite", "postgresql"})
  void aTailCutWithOrWithoutItsHeadIsABreak(String database) throws Exception {
    String url = store(database);
    List<Long> ids = writeFive(url);
    assertVerify(url, 0, "audit chain intact: 5 records (hosts: host-a)\n");

    sql(url, "DELETE FROM audit WHERE id = " + ids.get(4));
    assertVerify(url, AuditVerifyCommand.BROKEN, "audit chain broken at record " + ids.get(3)
        + " (host host-a, seq 4): missing seq 5 at the end (the head says seq 5)\n");

    sql(url, "DELETE FROM audit_heads WHERE host = 'host-a'");
    assertVerify(url, AuditVerifyCommand.BROKEN, "audit chain broken at record " + ids.get(3)
        + " (host host-a, seq 4): no head (the host has records up to seq 4 but no row in"
        + " audit_heads, so records cut off the end would not show)\n");
  }

  @ParameterizedTest
  @ValueSource(strings = {"sqlite", "postgresql"})
  void aHeadBehindItsRecordsIsABreak(String database) throws Exception {
    String url = store(database);
    List<Long> ids = writeFive(url);
    sql(url, "UPDATE audit_heads SET seq = 4 WHERE host = 'host-a'");
    assertVerify(url, AuditVerifyCommand.BROKEN, "audit chain broken at record " + ids.get(4)
        + " (host host-a, seq 5): head behind (the head says seq 4, the records go on to"
        + " seq 5)\n");
  }

  @Test
  void aRunIdReStoredAsABlobIsABreak() throws Exception {
    // SQLite only: PostgreSQL's column types refuse the re-typing.
    String url = store("sqlite");
    List<Long> ids = writeFive(url);
    sql(url, "UPDATE audit SET run_id = CAST(run_id AS BLOB) WHERE id = " + ids.get(1));
    assertVerify(url, AuditVerifyCommand.BROKEN, "audit chain broken at record " + ids.get(1)
        + " (host host-a, seq 2): run_id stored as blob, not text (a value of another type"
        + " hashes alike but escapes the appliance's own lookups, such as the run's"
        + " timeline)\n");
  }

  private static void assertVerify(String url, int status, String out) {
    CliRun verify = CliRun.of("audit", "verify", "--database-url", url);
    assertThat(verify.out()).isEqualTo(out);
    assertThat(verify.status()).isEqualTo(status);
  }

  private String store(String database) throws SQLException {
    if (database.equals("postgresql")) {
      postgres = TestPostgres.require();
      return postgres.freshStore();
    }
    return tmp.resolve("pushgate.db").toString();
  }

  private static List<Long> writeFive(String url) throws Exception {
    List<Long> ids = new ArrayList<>();
    try (Database db = Database.open(url)) {
      AuditStore audit = new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE));
      for (int i = 0; i < 5; i++) {
        ids.add(audit.record(List.of(AuditEntry.builder(AuditEntry.Type.PUSH).at(T0.plusSeconds(i))
            .runId("run-1").workspaceId("ws").repository("acme/widget").ref("refs/heads/b" + i)
            .kind("update").decision(AuditEntry.Decision.ALLOWED).rule("r")
            .outcome(AuditEntry.Outcome.PENDING).durationMillis(0L).build()))
            .get(0).id());
      }
    }
    return ids;
  }

  private static void sql(String url, String statement) throws SQLException {
    try (Database db = Database.open(url)) {
      db.with(c -> {
        try (Statement s = c.createStatement()) {
          return s.executeUpdate(statement);
        }
      });
    }
  }
}
