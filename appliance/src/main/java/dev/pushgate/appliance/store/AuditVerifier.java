package dev.pushgate.appliance.store;

import dev.pushgate.types.UntrustedText;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks every host's audit chain (docs/audit.md): sequence numbers without gaps (a deleted
 * record), each record's previous hash equal to its predecessor's hash (reordered or replaced
 * records), each hash recomputed from the record's columns (an edited record), and the chain's
 * end against the host's head: records cut off the end, the head deleted or rewritten to a seq or
 * hash its chain does not end at (undetected only when the head is rewritten to match exactly).
 */
public final class AuditVerifier {
  /** What a walk found: how many records, whose chains, and the first break or null. */
  public record Result(long records, List<String> hosts, Break broken) {
    public boolean intact() {
      return broken == null;
    }
  }

  /** The first broken record: its row id (or null when none is left), host, seq, and why. */
  public record Break(Long id, String host, long seq, String what) {
    @Override
    public String toString() {
      return "record " + (id == null ? "(none)" : id) + " (host " + host + ", seq " + seq + "): "
          + what;
    }
  }

  /**
   * A host's last record as the appends left it, and why its row's values may not be trusted
   * (a column of another storage type) or null.
   */
  private record Head(long seq, String hash, String misstored) {}

  private final Database db;

  public AuditVerifier(Database db) {
    this.db = db;
  }

  public Result verify() throws SQLException {
    return db.inTransaction(c -> {
      // One transaction, one snapshot of heads and records: on PostgreSQL a repeatable read,
      // since under read committed an append between the two reads would look like a head
      // behind its chain. The records come through a cursor that streams.
      if (db.dialect() == Database.Dialect.POSTGRESQL) {
        try (Statement s = c.createStatement()) {
          s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        }
      }
      Map<String, Head> heads = heads(c, db.dialect());
      // Ordered by seq as an integer: SQLite sorts a seq re-stored as text after every number,
      // where it would be named as a gap rather than as the re-typed record it is.
      try (PreparedStatement ps = c.prepareStatement("SELECT " + AuditRows.COLUMNS + ", "
          + AuditStorage.typesOf(db.dialect(), AuditRows.COLUMN_NAMES)
          + " FROM audit ORDER BY host IS NULL, host, CAST(seq AS BIGINT), seq, id")) {
        ps.setFetchSize(1000);
        try (ResultSet rs = ps.executeQuery()) {
          return walk(c, rs, heads);
        }
      }
    });
  }

  private Result walk(Connection c, ResultSet rs, Map<String, Head> heads) throws SQLException {
    List<String> hosts = new ArrayList<>();
    long count = 0;
    String host = null;
    long expected = 0;
    String prev = null;
    ChainedRecord last = null;
    while (rs.next()) {
      String misstored = AuditStorage.misstored(rs, AuditRows.COLUMN_NAMES, "");
      if (misstored != null) {
        return new Result(count, hosts, new Break(rs.getLong(1), rs.getString(2),
            rs.getLong(3), misstored));
      }
      if (rs.getString(2) == null || rs.getString(5) == null) {
        return new Result(count, hosts, new Break(rs.getLong(1), rs.getString(2),
            rs.getLong(3), "not chained (no host or no hash)"));
      }
      ChainedRecord r = AuditRows.read(rs);
      if (!r.host().equals(host)) {
        Break end = checkEnd(c, host, last, heads);
        if (end != null) {
          return new Result(count, hosts, end);
        }
        host = r.host();
        hosts.add(host);
        expected = 1;
        prev = AuditHash.GENESIS;
      }
      Break b = check(r, expected, prev);
      if (b != null) {
        return new Result(count, hosts, b);
      }
      count++;
      expected++;
      prev = r.hash();
      last = r;
    }
    Break end = checkEnd(c, host, last, heads);
    if (end == null) {
      end = headsWithoutRecords(heads, hosts);
    }
    return new Result(count, hosts, end);
  }

  private static Break check(ChainedRecord r, long expected, String prev) {
    if (r.seq() != expected) {
      return new Break(r.id(), r.host(), r.seq(), expected == r.seq() - 1
          ? "missing seq " + expected : "missing seq " + expected + ".." + (r.seq() - 1));
    }
    if (!r.prevHash().equals(prev)) {
      return new Break(r.id(), r.host(), r.seq(), "prev mismatch");
    }
    if (!r.hashMatches()) {
      return new Break(r.id(), r.host(), r.seq(), "hash mismatch");
    }
    return null;
  }

  /**
   * A chain's last record against its head, the row every append moves in the same transaction:
   * records cut off the end, records added behind the appender's back, a head rewritten, or a
   * head deleted with the records it would have shown missing.
   */
  private static Break checkEnd(Connection c, String host, ChainedRecord last,
      Map<String, Head> heads) throws SQLException {
    if (host == null) {
      return null;
    }
    Head head = heads.get(host);
    if (head == null) {
      return new Break(last.id(), host, last.seq(), "no head (the host has records up to seq "
          + last.seq() + " but no row in audit_heads, so records cut off the end would not"
          + " show)");
    }
    if (head.misstored() != null) {
      return new Break(last.id(), host, last.seq(), head.misstored());
    }
    if (head.seq() > last.seq()) {
      return new Break(last.id(), host, last.seq(), "missing seq " + (last.seq() + 1)
          + (head.seq() > last.seq() + 1 ? ".." + head.seq() : "")
          + " at the end (the head says seq " + head.seq() + ")");
    }
    if (head.seq() < last.seq()) {
      return new Break(last.id(), host, last.seq(), "head behind (the head says seq "
          + head.seq() + ", the records go on to seq " + last.seq() + ")");
    }
    if (last.hash().equals(head.hash())) {
      return null;
    }
    Long owner = recordWithHash(c, host, head.hash());
    return new Break(last.id(), host, last.seq(), owner == null
        ? "head names a hash no record has (" + shortHash(head.hash()) + ")"
        : "head mismatch (the head's hash is record " + owner + "'s, not the last record's)");
  }

  /** A head whose host has no record left: it must still be where a chain starts. */
  private static Break headsWithoutRecords(Map<String, Head> heads, List<String> hosts) {
    for (Map.Entry<String, Head> h : heads.entrySet()) {
      Head head = h.getValue();
      if (hosts.contains(h.getKey())) {
        continue;
      }
      if (head.misstored() != null) {
        return new Break(null, h.getKey(), head.seq(), head.misstored());
      }
      if (head.seq() > 0) {
        return new Break(null, h.getKey(), head.seq(),
            "every record missing (the head says seq " + head.seq() + ")");
      }
      if (!AuditHash.GENESIS.equals(head.hash())) {
        return new Break(null, h.getKey(), 0,
            "head names a hash no record has (" + shortHash(head.hash()) + ")");
      }
    }
    return null;
  }

  private static Long recordWithHash(Connection c, String host, String hash)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT id FROM audit WHERE host = ? AND hash = ? ORDER BY id")) {
      ps.setString(1, host);
      ps.setString(2, hash);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : null;
      }
    }
  }

  /** A hash as a message shows it: its first 12 digits, printable whatever the row holds. */
  private static String shortHash(String hash) {
    return UntrustedText.printable(hash == null || hash.length() <= 12 ? hash
        : hash.substring(0, 12) + "…");
  }

  /** Each host's head. */
  private static Map<String, Head> heads(Connection c, Database.Dialect dialect)
      throws SQLException {
    List<String> names = List.of("host", "seq", "hash");
    Map<String, Head> out = new LinkedHashMap<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT " + String.join(", ", names) + ", "
            + AuditStorage.typesOf(dialect, names) + " FROM audit_heads");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.put(rs.getString(1), new Head(rs.getLong(2), rs.getString(3),
            AuditStorage.misstored(rs, names, "audit_heads.")));
      }
    }
    return out;
  }
}
