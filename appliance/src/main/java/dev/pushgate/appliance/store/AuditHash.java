package dev.pushgate.appliance.store;

import dev.pushgate.types.AuditEntry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The hash of an audit record: SHA-256, lowercase hex, over its canonical form. The form is
 * length-prefixed so that no two records encode alike whatever their text holds (a field's value
 * cannot pass for the next field); docs/audit.md specifies it for anyone who re-verifies a chain
 * without pushgate:
 *
 * <pre>
 * "pushgate-audit-v1\n", then for each field in {@link #FIELDS} order:
 *   NAME "=" ( "-" when null | BYTES ":" VALUE ) "\n"
 * </pre>
 *
 * where VALUE is the UTF-8 text of the column (numbers in decimal, times in epoch milliseconds)
 * and BYTES its length in bytes, in decimal.
 */
public final class AuditHash {
  /** The previous hash of a chain's first record. */
  public static final String GENESIS = "0".repeat(64);

  static final String VERSION = "pushgate-audit-v1";

  /** Every column of a record, in the order they are hashed. */
  public static final List<String> FIELDS = List.of("seq", "host", "prev_hash", "id", "chained",
      "record_type", "at", "run_id", "workspace_id", "repository", "ref", "old_id", "new_id",
      "kind", "decision", "rule", "code", "reason", "outcome", "duration_ms", "settles",
      "subject", "actor");

  private AuditHash() {}

  public static String of(ChainedRecord r) {
    // Fed to the digest piece by piece, the names' bytes made once: every audited call hashes
    // its record before it is sent, and building the form as text first was most of the
    // append's own Java (issue 33, docs/benchmarks.md). The bytes hashed are the form above.
    MessageDigest sha = sha256();
    sha.update(VERSION_LINE);
    List<Object> values = values(r);
    for (int i = 0; i < FIELD_PREFIXES.length; i++) {
      sha.update(FIELD_PREFIXES[i]);
      Object v = values.get(i);
      if (v == null) {
        sha.update(NULL_VALUE);
      } else {
        byte[] bytes = v.toString().getBytes(StandardCharsets.UTF_8);
        sha.update(Integer.toString(bytes.length).getBytes(StandardCharsets.US_ASCII));
        sha.update((byte) ':');
        sha.update(bytes);
      }
      sha.update((byte) '\n');
    }
    return HexFormat.of().formatHex(sha.digest());
  }

  private static final byte[] VERSION_LINE = (VERSION + "\n").getBytes(StandardCharsets.UTF_8);
  /** {@code NAME=} of each of {@link #FIELDS}, in order. */
  private static final byte[][] FIELD_PREFIXES = FIELDS.stream()
      .map(f -> (f + "=").getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
  private static final byte[] NULL_VALUE = "-".getBytes(StandardCharsets.UTF_8);
  /** A SHA-256 digest to copy: a copy skips the providers' lookup {@code getInstance} makes. */
  private static final MessageDigest SHA256 = sha256Instance();

  private static MessageDigest sha256() {
    try {
      return (MessageDigest) SHA256.clone();
    } catch (CloneNotSupportedException e) {
      return sha256Instance();
    }
  }

  private static MessageDigest sha256Instance() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java has SHA-256", e);
    }
  }

  /** The values of {@link #FIELDS}, in order: what is hashed, and what a sink line carries. */
  public static List<Object> values(ChainedRecord r) {
    AuditEntry e = r.entry();
    List<Object> v = new ArrayList<>(FIELDS.size());
    v.add(r.seq());
    v.add(r.host());
    v.add(r.prevHash());
    v.add(r.id());
    v.add(r.chained());
    v.add(e.type().id());
    v.add(e.at().toEpochMilli());
    v.add(e.runId());
    v.add(e.workspaceId());
    v.add(e.repository());
    v.add(e.ref());
    v.add(e.oldId());
    v.add(e.newId());
    v.add(e.kind());
    v.add(e.decision());
    v.add(e.rule());
    v.add(e.code());
    v.add(e.reason());
    v.add(e.outcome());
    v.add(e.durationMillis());
    v.add(e.settles());
    v.add(e.subject());
    v.add(e.actor());
    return v;
  }

  /** The fields by name, in hash order. */
  public static Map<String, Object> fields(ChainedRecord r) {
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    List<Object> v = values(r);
    for (int i = 0; i < FIELDS.size(); i++) {
      m.put(FIELDS.get(i), v.get(i));
    }
    return m;
  }
}
