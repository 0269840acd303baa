package dev.pushgate.appliance.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks every host's audit chain (docs/audit.md): sequence numbers without gaps (a deleted
 * record), each record's previous hash equal to its predecessor's hash (reordered or replaced
 * records), each hash recomputed from the record's columns (an edited record), and the chain's
 * end against the host's head (records cut off the end, unless the head was rewritten too).
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

  /** A host's last record as the appends left it. */
  private record Head(long seq, String hash) {}

  private final Database db;

  public AuditVerifier(Database db) {
    this.db = db;
  }

  public Result verify() throws SQLException {
    Map<String, Head> heads = heads();
    return db.inTransaction(c -> {
      // One transaction: one snapshot of the table on PostgreSQL, and a cursor that streams.
      try (PreparedStatement ps = c.prepareStatement("SELECT " + AuditRows.COLUMNS
          + " FROM audit ORDER BY host IS NULL, host, seq, id")) {
        ps.setFetchSize(1000);
        try (ResultSet rs = ps.executeQuery()) {
          return walk(rs, heads);
        }
      }
    });
  }

  private Result walk(ResultSet rs, Map<String, Head> heads) throws SQLException {
    List<String> hosts = new ArrayList<>();
    long count = 0;
    String host = null;
    long expected = 0;
    String prev = null;
    ChainedRecord last = null;
    while (rs.next()) {
      if (rs.getString(2) == null || rs.getString(5) == null) {
        return new Result(count, hosts, new Break(rs.getLong(1), rs.getString(2),
            rs.getLong(3), "not chained (no host or no hash)"));
      }
      ChainedRecord r = AuditRows.read(rs);
      if (!r.host().equals(host)) {
        Break end = checkEnd(host, last, heads);
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
    Break end = checkEnd(host, last, heads);
    if (end == null) {
      for (Map.Entry<String, Head> h : heads.entrySet()) {
        if (h.getValue().seq() > 0 && !hosts.contains(h.getKey())) {
          end = new Break(null, h.getKey(), h.getValue().seq(),
              "every record missing (the head says seq " + h.getValue().seq() + ")");
          break;
        }
      }
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

  /** A chain's last record against its head: records cut off the end show here. */
  private static Break checkEnd(String host, ChainedRecord last, Map<String, Head> heads) {
    if (host == null) {
      return null;
    }
    Head head = heads.get(host);
    if (head == null) {
      return null;
    }
    if (head.seq() > last.seq()) {
      return new Break(last.id(), host, last.seq(), "missing seq " + (last.seq() + 1)
          + (head.seq() > last.seq() + 1 ? ".." + head.seq() : "")
          + " at the end (the head says seq " + head.seq() + ")");
    }
    if (head.seq() == last.seq() && !head.hash().equals(last.hash())) {
      return new Break(last.id(), host, last.seq(), "head mismatch (the head's hash is not the"
          + " last record's)");
    }
    return null;
  }

  /** Each host's head sequence number. */
  private Map<String, Head> heads() throws SQLException {
    return db.with(c -> {
      Map<String, Head> out = new LinkedHashMap<>();
      try (PreparedStatement ps = c.prepareStatement("SELECT host, seq, hash FROM audit_heads");
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1), new Head(rs.getLong(2), rs.getString(3)));
        }
      }
      return out;
    });
  }
}
