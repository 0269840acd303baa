package dev.pushgate.appliance.store;

import dev.pushgate.types.AuditEntry;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends records to one host's audit chain (docs/audit.md): each record gets the next sequence
 * number, the previous record's hash, and its own hash, in the transaction that writes it; rows
 * are never updated once chained. Every audit writer of an appliance (push and hook decisions,
 * outcomes, approvals, tokens) shares one chain object.
 *
 * <p>Appends that arrive while another is being written wait for it and are then written
 * together, in one transaction and one sink write (group commit): the chain's database and file
 * sync once for all of them, and each append returns only once its own records are committed
 * (and handed to the sink), as it did alone.
 *
 * <p>Appends are serialised twice: by a lock here, so that the sink sees records in chain order,
 * and by the host's row in {@code audit_heads}, locked by each transaction, so that writers in
 * other processes (or other chain objects) wait rather than fork the chain. Should two processes
 * share a host id anyway, the unique (host, seq) index refuses the second record at a number.
 *
 * <p>On SQLite an append does not read the head it left last time: the chain remembers it, and
 * the next record's insert checks in the same statement that it still holds ({@link
 * #INSERT_AFTER_KNOWN}). That read, and the update that set a record's hash once its id was
 * known, were a tenth of an append's work, and every push and API call appends.
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

  private static final String CLAIM_HEAD = "INSERT INTO audit_heads(host, seq, hash)"
      + " VALUES (?, 0, ?) ON CONFLICT (host) DO NOTHING";
  private static final String SAVE_HEAD = "UPDATE audit_heads SET seq = ?, hash = ? WHERE host = ?";
  private static final String INSERT = "INSERT INTO audit(" + AuditRows.ENTRY_COLUMNS
      + ", host, seq, prev_hash, chained) VALUES ("
      + "?,".repeat(AuditRows.ENTRY_COLUMN_COUNT) + "?,?,?,?) RETURNING id";
  private static final String SET_HASH = "UPDATE audit SET hash = ? WHERE id = ?";
  /**
   * SQLite: inserts a record after the end the chain knows of, hash and id included, only if that
   * is still the end. Two checks in the statement say so: the id is the one {@code AUTOINCREMENT}
   * would give (one past the larger of the table's counter and its largest id), which is the
   * known end's id plus one only while no record has been inserted since, by anyone; and the
   * host's head row is as the known end left it, so neither was that append rolled back with a
   * transaction around it, nor the head moved by another writer or by hand. Otherwise it inserts
   * nothing, and the append reads the head instead, as every append on PostgreSQL does.
   */
  private static final String INSERT_AFTER_KNOWN = "INSERT INTO audit(id, "
      + AuditRows.ENTRY_COLUMNS + ", host, seq, prev_hash, chained, hash) SELECT ?, "
      + "?,".repeat(AuditRows.ENTRY_COLUMN_COUNT) + "?,?,?,?,?"
      + " WHERE ? = max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'audit'), 0),"
      + " coalesce((SELECT max(id) FROM audit), 0)) + 1"
      + " AND EXISTS (SELECT 1 FROM audit_heads WHERE host = ? AND seq = ? AND hash = ?)";

  private final Database db;
  private final boolean sqlite;
  /** The head's read, which locks its row on PostgreSQL. */
  private final String readHead;
  private final String host;
  private final AuditSink sink;
  private final ReentrantLock lock = new ReentrantLock();
  /** Appends asked for and not yet written: the holder of {@link #lock} writes them together. */
  private final ConcurrentLinkedQueue<Pending<?>> waiting = new ConcurrentLinkedQueue<>();
  /**
   * SQLite: the chain's end as the last append committed by this object left it, with the id
   * the next record gets; null before the first, after a failed one, and on PostgreSQL (where
   * the head's read is also its lock). Guarded by {@link #lock}.
   */
  private Head known;

  public AuditChain(Database db, String host, AuditSink sink) {
    this.db = db;
    this.sqlite = db.dialect() == Database.Dialect.SQLITE;
    this.readHead = "SELECT seq, hash FROM audit_heads WHERE host = ?"
        + (db.dialect() == Database.Dialect.POSTGRESQL ? " FOR UPDATE" : "");
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
    Pending<T> mine = new Pending<>(work, refuse);
    waiting.add(mine);
    lock.lock();
    try {
      // Unless the writer before us took ours into its transaction, we write every append
      // waiting now, ours among them (it was queued before we asked for the lock).
      if (!mine.done) {
        List<Pending<?>> batch = new ArrayList<>();
        for (Pending<?> p = waiting.poll(); p != null; p = waiting.poll()) {
          batch.add(p);
        }
        if (!batch.isEmpty()) {
          commit(batch);
        }
      }
      if (!mine.done) {
        // Only when the writer that took ours died of an Error before it could say.
        mine.failed(new IllegalStateException("the audit append was lost to a failed writer"));
      }
    } finally {
      lock.unlock();
    }
    return mine.outcome();
  }

  /**
   * Writes the appends of {@code batch} in one transaction (group commit), then hands their
   * records to the sink in chain order; each append learns its own outcome only after that, so
   * none returns before its records are committed. Should the transaction fail, each append is
   * written again in a transaction of its own: one append's failure is never another's.
   */
  private void commit(List<Pending<?>> batch) {
    List<ChainedRecord> written = new ArrayList<>();
    Head end;
    try {
      end = db.inWriteTransaction(c -> {
        written.clear(); // a retried transaction starts over
        Head head = known != null ? known.copy() : lockHead(c);
        for (Pending<?> p : batch) {
          p.run(c, entry -> {
            ChainedRecord rec = insert(c, head, entry);
            written.add(rec);
            return rec;
          });
        }
        if (!written.isEmpty()) {
          saveHead(c, head);
        }
        return head;
      });
    } catch (SQLException | RuntimeException e) {
      known = null;
      if (batch.size() == 1) {
        batch.get(0).failed(e);
      } else {
        for (Pending<?> p : batch) {
          commit(List.of(p));
        }
      }
      return;
    } catch (Error e) {
      known = null;
      batch.forEach(p -> p.failed(e));
      throw e;
    }
    known = end.nextId > 0 ? end : null;
    AuditSink.SinkException unsunk = null;
    if (!written.isEmpty()) {
      try {
        sink.write(written);
      } catch (IOException | RuntimeException e) {
        String which = "audit records " + written.get(0).id() + ".."
            + written.get(written.size() - 1).id() + " (host " + host + ")";
        unsunk = new AuditSink.SinkException(which + " are in the database but the audit sink"
            + " cannot write them: " + e.getMessage(), e);
        if (batch.stream().anyMatch(p -> !p.refuse)) {
          log.error("{} are in the database but the audit sink cannot write them: {}", which,
              e.getMessage());
        }
      }
    }
    for (Pending<?> p : batch) {
      p.committed(p.refuse ? unsunk : null);
    }
  }

  /**
   * One append waiting for the lock: its work, and once written, its result or its failure. Read
   * and written under the lock alone.
   */
  private static final class Pending<T> {
    final Work<T> work;
    /** A sink failure refuses this append (a decision) rather than being logged. */
    final boolean refuse;
    boolean done;
    private T result;
    private Throwable failure;

    Pending(Work<T> work, boolean refuse) {
      this.work = work;
      this.refuse = refuse;
    }

    void run(Connection c, Appender chain) throws SQLException {
      result = work.run(c, chain);
    }

    void committed(AuditSink.SinkException unsunk) {
      failure = unsunk;
      done = true;
    }

    void failed(Throwable e) {
      result = null;
      failure = e;
      done = true;
    }

    T outcome() throws SQLException, AuditSink.SinkException {
      if (failure instanceof SQLException e) {
        throw e;
      } else if (failure instanceof AuditSink.SinkException e) {
        throw e;
      } else if (failure instanceof RuntimeException e) {
        throw e;
      } else if (failure instanceof Error e) {
        throw e;
      }
      return result;
    }
  }

  /**
   * The host's last record, its row locked until the transaction ends: on SQLite by the write
   * lock its transaction took as it began ({@link Database#inWriteTransaction}), so that another
   * connection's append cannot slip in between read and write; on PostgreSQL by the read ({@code
   * FOR UPDATE}) of the row the claim made sure of. A host's first append makes its row.
   */
  private Head lockHead(Connection c) throws SQLException {
    if (db.dialect() == Database.Dialect.POSTGRESQL) {
      claimHead(c);
    }
    Head head = readHead(c);
    if (head == null) {
      claimHead(c);
      head = readHead(c);
    }
    return head;
  }

  private void claimHead(Connection c) throws SQLException {
    try (Database.Prepared p = db.prepare(c, CLAIM_HEAD)) {
      PreparedStatement ps = p.statement();
      ps.setString(1, host);
      ps.setString(2, AuditHash.GENESIS);
      ps.executeUpdate();
    }
  }

  private Head readHead(Connection c) throws SQLException {
    try (Database.Prepared p = db.prepare(c, readHead)) {
      PreparedStatement ps = p.statement();
      ps.setString(1, host);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new Head(rs.getLong(1), rs.getString(2)) : null;
      }
    }
  }

  private void saveHead(Connection c, Head head) throws SQLException {
    try (Database.Prepared p = db.prepare(c, SAVE_HEAD)) {
      PreparedStatement ps = p.statement();
      ps.setLong(1, head.seq);
      ps.setString(2, head.hash);
      ps.setString(3, host);
      changed(ps.executeUpdate(), "the audit chain's head was not moved (host " + host + ")");
    }
  }

  /**
   * Fails the append when a write changed no row, as when a trigger or rule of the database drops
   * it: a record not written, or a head not moved, must not let what it records go ahead.
   */
  private static void changed(int rows, String what) throws SQLException {
    if (rows != 1) {
      throw new SQLException(what + ": a trigger or rule of the database dropped the write");
    }
  }

  /**
   * Inserts the record, then sets its hash: the hash covers the row's id, which the database
   * assigns. Both happen in the append's transaction, so no reader sees the row unchained.
   */
  private ChainedRecord insert(Connection c, Head head, AuditEntry given) throws SQLException {
    AuditEntry entry = given.storable();
    if (head.nextId > 0) {
      ChainedRecord rec = insertAfterKnown(c, head, entry);
      if (rec != null) {
        return rec;
      }
      head.readFrom(lockHead(c));
    }
    long seq = head.seq + 1;
    long id;
    try (Database.Prepared p = db.prepare(c, INSERT)) {
      PreparedStatement ps = p.statement();
      AuditRows.bind(ps, 1, entry);
      int n = AuditRows.ENTRY_COLUMN_COUNT;
      ps.setString(n + 1, host);
      ps.setLong(n + 2, seq);
      ps.setString(n + 3, head.hash);
      ps.setString(n + 4, ChainedRecord.AT_WRITE);
      try (ResultSet rs = ps.executeQuery()) {
        changed(rs.next() ? 1 : 0, "the audit record was not inserted (host " + host
            + ", seq " + seq + ")");
        id = rs.getLong(1);
      }
    }
    ChainedRecord unhashed =
        new ChainedRecord(id, host, seq, head.hash, null, ChainedRecord.AT_WRITE, entry);
    String hash = AuditHash.of(unhashed);
    try (Database.Prepared p = db.prepare(c, SET_HASH)) {
      PreparedStatement ps = p.statement();
      ps.setString(1, hash);
      ps.setLong(2, id);
      changed(ps.executeUpdate(), "the audit record's hash was not set (id " + id + ")");
    }
    head.seq = seq;
    head.hash = hash;
    head.nextId = sqlite ? id + 1 : 0;
    return new ChainedRecord(id, host, seq, unhashed.prevHash(), hash, unhashed.chained(), entry);
  }

  /**
   * The record after the end {@code head} was left at by this chain's last append, with the id
   * and hash worked out here, in one statement that inserts it only if that end still holds
   * ({@link #INSERT_AFTER_KNOWN}); null when it inserted nothing.
   */
  private ChainedRecord insertAfterKnown(Connection c, Head head, AuditEntry entry)
      throws SQLException {
    ChainedRecord rec = new ChainedRecord(head.nextId, host, head.seq + 1, head.hash, null,
        ChainedRecord.AT_WRITE, entry);
    String hash = AuditHash.of(rec);
    try (Database.Prepared p = db.prepare(c, INSERT_AFTER_KNOWN)) {
      PreparedStatement ps = p.statement();
      ps.setLong(1, rec.id());
      AuditRows.bind(ps, 2, entry);
      int n = 1 + AuditRows.ENTRY_COLUMN_COUNT;
      ps.setString(n + 1, host);
      ps.setLong(n + 2, rec.seq());
      ps.setString(n + 3, rec.prevHash());
      ps.setString(n + 4, rec.chained());
      ps.setString(n + 5, hash);
      ps.setLong(n + 6, rec.id());
      ps.setString(n + 7, host);
      ps.setLong(n + 8, head.rowSeq);
      ps.setString(n + 9, head.rowHash);
      if (ps.executeUpdate() != 1) {
        return null;
      }
    }
    head.seq = rec.seq();
    head.hash = hash;
    head.nextId = rec.id() + 1;
    return new ChainedRecord(rec.id(), host, rec.seq(), rec.prevHash(), hash, rec.chained(),
        entry);
  }

  /**
   * The chain's end as a transaction moves it, and once a record is written in it the id the next
   * one gets ({@code AUTOINCREMENT}'s: one past the last), 0 while unknown; with the host's head
   * row as the transaction found it (or, for the end a chain remembers, as its last append left
   * it), which the transaction moves only as it ends.
   */
  private static final class Head {
    long seq;
    String hash;
    long nextId;
    long rowSeq;
    String rowHash;

    Head(long seq, String hash) {
      this.seq = seq;
      this.hash = hash;
      this.rowSeq = seq;
      this.rowHash = hash;
    }

    /** The end this chain's last append left, as the start of another transaction. */
    Head copy() {
      Head h = new Head(seq, hash);
      h.nextId = nextId;
      return h;
    }

    /** The head as read from its row: the remembered end did not hold. */
    void readFrom(Head read) {
      seq = rowSeq = read.seq;
      hash = rowHash = read.hash;
      nextId = 0;
    }
  }
}
