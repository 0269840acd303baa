package dev.pushgate.appliance.store;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies SQLite's write-ahead log into the database file on a thread and a connection of its
 * own, so that no commit waits for it.
 *
 * <p>SQLite's default runs that checkpoint in whichever commit takes the log past 1,000 pages:
 * an audit append on a decision's path (a push's judgement, a GitHub API call before it goes
 * upstream) then copied some 4 MB and waited for two {@code fsync}s, a few milliseconds every
 * couple of hundred appends, which was the API boundary's p99 (docs/benchmarks.md). The
 * database's own connection checkpoints only past {@link #BACKSTOP_FRAMES}; this one checkpoints
 * {@link #PAUSE_NANOS} after a write was signalled, and passively: it does not block a writer, and
 * a writer does not wait for it. What a commit promises is unchanged: a committed transaction is
 * in the log, whether or not it has been copied yet.
 *
 * <p>SQLite starts the log over only for a writer that began once a checkpoint had copied all of
 * it; under appends that never pause, no pass ends before the next writer began, and the log
 * would grow without end. So when a pass finds more than {@link #BOUND_FRAMES} pages in the log,
 * another copies the rest (what was committed during the first: a few pages) holding the
 * database's lock, which writers then wait for, once per pass at most; the next one starts the
 * log over. This thread may not be scheduled in time on a loaded machine (CI saw the log pass
 * four times the bound): SQLite's own checkpoint in the commit stays as a backstop, at {@link
 * #BACKSTOP_FRAMES}, which a commit reaches only when this thread has fallen that far behind.
 *
 * <p>Starting the log over costs an {@code fsync}: the writer that does writes the log's new
 * header and syncs it before its first page (SQLite syncs it even at {@code synchronous=NORMAL},
 * so that no page of the old log is read as the new one's after a crash). Left to the next
 * writer, that was an audit append on a decision's path, once per pass: about one GitHub API
 * call in a hundred under a steady stream of them waited a millisecond or more for it
 * (docs/benchmarks.md, "The API boundary's p99"). So when a pass has copied the whole log, this
 * thread starts it over itself, with a write of its own that changes nothing ({@link
 * #startLogOver}), holding the database's lock so that no commit races it for the restart.
 */
final class WalCheckpointer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WalCheckpointer.class);
  /** Writes signalled within this long of the first are checkpointed together. */
  static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
  /** A log of more pages than this (16 MiB) is copied to its end, writers held meanwhile. */
  static final long BOUND_FRAMES = 4096;
  /** The database connection's {@code wal_autocheckpoint}: a commit checkpoints past this. */
  static final long BACKSTOP_FRAMES = 2 * BOUND_FRAMES;

  private final Connection connection;
  /** The database connection's lock: held, no commit comes in. */
  private final Object writers;
  /**
   * The database's connection, used under {@link #writers} to start the log over: a write of
   * this thread's connection would make the database's drop its page cache at its next commit.
   */
  private final Connection writersConnection;
  private final Thread thread;
  private volatile boolean asked;
  private volatile boolean closed;
  private boolean failing;

  private WalCheckpointer(Connection connection, Object writers, Connection writersConnection,
      String name) {
    this.connection = connection;
    this.writers = writers;
    this.writersConnection = writersConnection;
    this.thread = new Thread(this::loop, name);
    thread.setDaemon(true);
  }

  /**
   * Opens a connection of its own to the database at {@code jdbcUrl} and starts its thread;
   * {@code writers} is the lock every commit of the database's connection, {@code
   * writersConnection}, holds.
   */
  static WalCheckpointer start(String jdbcUrl, Object writers, Connection writersConnection)
      throws SQLException {
    Connection c = DriverManager.getConnection(jdbcUrl);
    WalCheckpointer checkpointer = new WalCheckpointer(c, writers, writersConnection,
        "pushgate-sqlite-checkpoint");
    checkpointer.thread.start();
    return checkpointer;
  }

  /**
   * The database's connection wrote, or may have: checkpoint soon. Cheap enough for every use: no
   * lock, and no system call unless it wakes the thread.
   */
  void written() {
    if (!asked) {
      asked = true;
      LockSupport.unpark(thread);
    }
  }

  private void loop() {
    while (!closed) {
      if (!asked) {
        LockSupport.park(this);
        continue;
      }
      long until = System.nanoTime() + PAUSE_NANOS;
      for (long left = PAUSE_NANOS; left > 0 && !closed; left = until - System.nanoTime()) {
        LockSupport.parkNanos(this, left);
      }
      asked = false;
      if (!closed) {
        checkpoint();
      }
    }
  }

  private void checkpoint() {
    try {
      Pass pass = passive();
      if (!pass.bounded() || pass.copiedAll()) {
        synchronized (writers) {
          if (!pass.bounded()) {
            pass = passive();
          }
          if (pass.copiedAll()) {
            startLogOver();
          }
        }
      }
      if (failing) {
        failing = false;
        log.info("SQLite checkpoints work again");
      }
    } catch (SQLException e) {
      // Logged once per spell of failures: the log then grows until one succeeds (or the
      // database is closed, which checkpoints), and commits go on.
      if (!failing) {
        failing = true;
        log.warn("cannot checkpoint the SQLite write-ahead log (it grows until a checkpoint"
            + " succeeds): {}", e.getMessage());
      }
    }
  }

  /**
   * What one pass found: the pages in the log when it began, and how many of them are in the
   * database file now. (A page committed during the pass is in neither count: a pass that copied
   * "all" may leave a few, and then the write of {@link #startLogOver} just adds one more.)
   */
  private record Pass(long frames, long copied) {
    boolean bounded() {
      return frames <= BOUND_FRAMES;
    }

    boolean copiedAll() {
      return frames > 0 && copied == frames;
    }
  }

  /** One passive checkpoint. */
  private Pass passive() throws SQLException {
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery("PRAGMA wal_checkpoint(PASSIVE)")) {
      rs.next();
      return new Pass(rs.getLong(2), rs.getLong(3));
    }
  }

  /**
   * Starts the log over here rather than in the next commit, on the database's connection and
   * under its lock (held by the caller): a write transaction that begins on a log copied whole is
   * the one SQLite has start it over (a new header, synced), and this one's write changes
   * nothing: it sets the file's application id (a header field pushgate does not use) to the
   * value it has, which leaves the schema and every kept statement as they were. The next commit
   * pays nothing for it: its pages follow this one page in the log.
   */
  private void startLogOver() {
    try (Statement s = writersConnection.createStatement()) {
      long id;
      try (ResultSet rs = s.executeQuery("PRAGMA application_id")) {
        rs.next();
        id = rs.getLong(1);
      }
      s.execute("PRAGMA application_id = " + id);
    } catch (SQLException e) {
      // The next commit starts the log over then, as SQLite does by itself.
      log.debug("could not start the SQLite write-ahead log over: {}", e.getMessage());
    }
  }

  /** Stops the thread and closes its connection; the database's own close checkpoints last. */
  @Override
  public void close() throws SQLException {
    closed = true;
    LockSupport.unpark(thread);
    try {
      thread.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    connection.close();
  }
}
