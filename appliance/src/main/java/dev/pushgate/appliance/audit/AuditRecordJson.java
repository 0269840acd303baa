package dev.pushgate.appliance.audit;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.appliance.store.AuditHash;
import dev.pushgate.appliance.store.ChainedRecord;
import java.util.Map;

/**
 * A chained audit record as one JSON object: every hashed column under its column name, in hash
 * order, with its value as stored ({@code at} in epoch milliseconds), then {@code hash} and a
 * readable {@code time}. A line of the file sink, of syslog, and of {@code pushgate audit --run ID
 * --timeline --json}: enough to recompute the hash without the database.
 */
public final class AuditRecordJson {
  private AuditRecordJson() {}

  public static ObjectNode of(ChainedRecord r) {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, Object> f : AuditHash.fields(r).entrySet()) {
      Object v = f.getValue();
      if (v == null) {
        n.putNull(f.getKey());
      } else if (v instanceof Long l) {
        n.put(f.getKey(), l);
      } else {
        n.put(f.getKey(), v.toString());
      }
    }
    n.put("hash", r.hash());
    n.put("time", r.entry().at().toString());
    return n;
  }
}
