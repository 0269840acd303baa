package dev.pushgate.appliance.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.gateway.RefusalCode;
import dev.pushgate.types.AuditEntry;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the store contracts ({@link StorageContract}, {@link AuditChainContract}) share: a fresh,
 * empty store for each test, which a subclass says where to find (a SQLite file, a PostgreSQL
 * schema), opened as {@link #db}; every handle {@link #open} gave is closed after the test.
 */
abstract class StoreContract {
  static final Instant T0 = Instant.ofEpochMilli(1_767_225_600_123L);

  @TempDir Path tmp;

  private final List<Database> opened = new ArrayList<>();
  String url;
  Database db;

  /** The URL of a fresh, empty store for one test. */
  abstract String freshStore() throws Exception;

  @BeforeEach
  void openStore() throws Exception {
    url = freshStore();
    db = open();
  }

  @AfterEach
  void closeStores() throws SQLException {
    for (Database d : opened) {
      d.close();
    }
  }

  /** Another appliance's handle on the same store. */
  Database open() throws SQLException {
    Database d = Database.open(url);
    opened.add(d);
    return d;
  }

  /** What one of {@link #concurrently}'s writers does; writer {@code n} of them. */
  interface Writer {
    void write(int n) throws Exception;
  }

  /**
   * Runs {@code writers} writers at once, each on a thread of its own, until all are done; fails
   * with what any of them threw.
   */
  static void concurrently(int writers, Writer work) throws InterruptedException {
    List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
    List<Thread> threads = new ArrayList<>();
    for (int n = 0; n < writers; n++) {
      int writer = n;
      threads.add(new Thread(() -> {
        try {
          work.write(writer);
        } catch (Throwable e) {
          errors.add(e);
        }
      }));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join();
    }
    assertThat(errors).isEmpty();
  }

  /** A push decision on {@code ref} of acme/widget as the gateway audits it. */
  static AuditEntry push(Instant at, String runId, String ref, String decision,
      RefusalCode code, String outcome) {
    return push(at, runId, "acme/widget", ref, decision, code, outcome);
  }

  /** A push decision on {@code ref} of {@code repository} as the gateway audits it. */
  static AuditEntry push(Instant at, String runId, String repository, String ref,
      String decision, RefusalCode code, String outcome) {
    return AuditEntry.builder(AuditEntry.Type.PUSH).at(at).runId(runId).workspaceId("ws-1")
        .repository(repository).ref(ref).oldId("0".repeat(40)).newId("1".repeat(40))
        .kind("update").decision(decision).rule("push refs/heads/*")
        .code(code == null ? null : code.name()).reason(code == null ? null : "because " + ref)
        .outcome(outcome).durationMillis(0L).build();
  }
}
