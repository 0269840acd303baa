package dev.pushgate.appliance.store;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends records to one host's audit chain (docs/audit.md): each record gets the next sequence
 * number, the previous record's hash, and its own hash, in the transaction that writes it; rows
 * are never updated once chained. Every audit writer of an appliance (push and hook decisions,
 * outcomes, approvals, tokens) shares one chain object.
 *
 * <p>Appends are serialised twice: by a lock here, so that the sink sees records in chain order,
 * and by the host's row in {@code audit_heads}, locked by each transaction, so that writers in
 * other processes (or other chain objects) wait rather than fork the chain. Should two processes
 * share a host id anyway, the unique (host, seq) index refuses the second record at a number.
 */
public final class AuditChain {
  /** The host of a chain written by tools and tests, which name none. */
  public static final String UNNAMED_HOST = "local";

  private static final Logger log = LoggerFactory.getLogger(AuditChain.class);

  /** Work done in the transaction of an append, with the means to append. */
  @FunctionalInterface
  public interface Work<T> {
    T run(Connection c, Appender chain) throws SQLException;
  }

  /** Appends one record in the current transaction. */
  @FunctionalInterface
  public interface Appender {
    ChainedRecord append(AuditEntry entry) throws SQLException;
  }

  private final Database db;
  private final String host;
  private final AuditSink sink;
  private final ReentrantLock lock = new ReentrantLock();

  public AuditChain(Database db, String host, AuditSink sink) {
    this.db = db;
    this.host = host;
    this.sink = sink;
  }

  public Database database() {
    return db;
  }

  public String host() {
    return host;
  }

  /**
   * Runs {@code work} and chains what it appends, in one transaction. When the sink cannot take
   * the records they stay in the database and the failure is logged: for records of what has
   * already happened (an outcome, a token issued), which refusing would not undo.
   */
  public <T> T append(Work<T> work) throws SQLException {
    try {
      return write(work, false);
    } catch (AuditSink.SinkException e) {
      throw new AssertionError("write(work, false) logs sink failures", e);
    }
  }

  /**
   * As {@link #append}, but a sink failure is thrown once the transaction is committed: for
   * decisions, which are refused when their record cannot leave the machine (fail closed).
   */
  public <T> T appendReachingSink(Work<T> work) throws SQLException, AuditSink.SinkException {
    return write(work, true);
  }

  private <T> T write(Work<T> work, boolean refuse)
      throws SQLException, AuditSink.SinkException {
    lock.lock();
    try {
      List<ChainedRecord> written = new ArrayList<>();
      T result = db.inTransaction(c -> {
        written.clear(); // a retried transaction starts over
        Head head = lockHead(c);
        long before = head.seq;
        T r = work.run(c, entry -> {
          ChainedRecord rec = insert(c, head, entry);
          written.add(rec);
          return rec;
        });
        if (head.seq != before) {
          saveHead(c, head);
        }
        return r;
      });
      if (!written.isEmpty()) {
        try {
          sink.write(written);
        } catch (IOException | RuntimeException e) {
          String which = "audit records " + written.get(0).id() + ".."
              + written.get(written.size() - 1).id() + " (host " + host + ")";
          if (refuse) {
            throw new AuditSink.SinkException(which + " are in the database but the audit sink"
                + " cannot write them: " + e.getMessage(), e);
          }
          log.error("{} are in the database but the audit sink cannot write them: {}", which,
              e.getMessage());
        }
      }
      return result;
    } finally {
      lock.unlock();
    }
  }

  /** The host's last record, its row locked until the transaction ends. */
  private Head lockHead(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO audit_heads(host, seq, hash)"
        + " VALUES (?, 0, ?) ON CONFLICT (host) DO NOTHING")) {
      // On SQLite this write also takes the database's write lock before anything is read, so
      // that another connection's append cannot slip in between read and write.
      ps.setString(1, host);
      ps.setString(2, AuditHash.GENESIS);
      ps.executeUpdate();
    }
    String forUpdate = db.dialect() == Database.Dialect.POSTGRESQL ? " FOR UPDATE" : "";
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT seq, hash FROM audit_heads WHERE host = ?" + forUpdate)) {
      ps.setString(1, host);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new Head(rs.getLong(1), rs.getString(2));
      }
    }
  }

  private void saveHead(Connection c, Head head) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("UPDATE audit_heads SET seq = ?, hash = ? WHERE host = ?")) {
      ps.setLong(1, head.seq);
      ps.setString(2, head.hash);
      ps.setString(3, host);
      ps.executeUpdate();
    }
  }

  /**
   * Inserts the record, then sets its hash: the hash covers the row's id, which the database
   * assigns. Both happen in the append's transaction, so no reader sees the row unchained.
   */
  private ChainedRecord insert(Connection c, Head head, AuditEntry entry) throws SQLException {
    long seq = head.seq + 1;
    long id;
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO audit("
        + AuditRows.ENTRY_COLUMNS + ", host, seq, prev_hash, chained) VALUES ("
        + "?,".repeat(AuditRows.ENTRY_COLUMN_COUNT) + "?,?,?,?)", new String[] {"id"})) {
      AuditRows.bind(ps, 1, entry);
      int n = AuditRows.ENTRY_COLUMN_COUNT;
      ps.setString(n + 1, host);
      ps.setLong(n + 2, seq);
      ps.setString(n + 3, head.hash);
      ps.setString(n + 4, ChainedRecord.AT_WRITE);
      ps.executeUpdate();
      try (ResultSet keys = ps.getGeneratedKeys()) {
        keys.next();
        id = keys.getLong(1);
      }
    }
    ChainedRecord unhashed =
        new ChainedRecord(id, host, seq, head.hash, null, ChainedRecord.AT_WRITE, entry);
    String hash = AuditHash.of(unhashed);
    try (PreparedStatement ps = c.prepareStatement("UPDATE audit SET hash = ? WHERE id = ?")) {
      ps.setString(1, hash);
      ps.setLong(2, id);
      ps.executeUpdate();
    }
    head.seq = seq;
    head.hash = hash;
    return new ChainedRecord(id, host, seq, unhashed.prevHash(), hash, unhashed.chained(), entry);
  }

  /** The chain's end as this transaction moves it. */
  private static final class Head {
    long seq;
    String hash;

    Head(long seq, String hash) {
      this.seq = seq;
      this.hash = hash;
    }
  }
}
