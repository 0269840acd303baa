package dev.pushgate.appliance.store;

import dev.pushgate.types.AuditEntry;
import java.io.ByteArrayOutputStream;
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
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    write(out, VERSION + "\n");
    List<Object> values = values(r);
    for (int i = 0; i < FIELDS.size(); i++) {
      write(out, FIELDS.get(i) + "=");
      Object v = values.get(i);
      if (v == null) {
        write(out, "-");
      } else {
        byte[] bytes = v.toString().getBytes(StandardCharsets.UTF_8);
        write(out, bytes.length + ":");
        out.writeBytes(bytes);
      }
      write(out, "\n");
    }
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(out.toByteArray()));
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

  private static void write(ByteArrayOutputStream out, String ascii) {
    out.writeBytes(ascii.getBytes(StandardCharsets.UTF_8));
  }
}
