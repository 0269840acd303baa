package dev.pushgate.appliance;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.appliance.logging.Redaction;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code GET /readyz}: whether the appliance can serve runs now. Each check answers null when it
 * passes, else why not; the body names every failing check. Reasons pass through {@link
 * Redaction} and are cut to one short line: a driver's message may quote a database URL.
 */
final class Readiness {
  /** A reason is one line of at most this many characters. */
  private static final int MAX_REASON = 300;

  private final Map<String, Supplier<String>> checks = new LinkedHashMap<>();
  private final ObjectMapper json = new ObjectMapper();

  /** Adds a check, answered in the order added. */
  Readiness check(String name, Supplier<String> problem) {
    checks.put(name, problem);
    return this;
  }

  /** The status and JSON body of one answer. */
  record Answer(int status, String body) {}

  Answer answer() {
    ArrayNode failing = json.createArrayNode();
    checks.forEach((name, check) -> {
      String why;
      try {
        why = check.get();
      } catch (RuntimeException e) {
        why = "the check failed: " + e;
      }
      if (why != null) {
        failing.addObject().put("check", name).put("reason", clean(why));
      }
    });
    ObjectNode body = json.createObjectNode();
    if (failing.isEmpty()) {
      return new Answer(200, body.put("status", "ready") + "\n");
    }
    body.put("status", "not ready").set("failing", failing);
    return new Answer(503, body + "\n");
  }

  private static String clean(String why) {
    String line = Redaction.redact(why).replaceAll("\\s+", " ").strip();
    return line.length() <= MAX_REASON ? line : line.substring(0, MAX_REASON) + "…";
  }
}
