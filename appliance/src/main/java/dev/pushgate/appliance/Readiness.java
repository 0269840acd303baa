package dev.pushgate.appliance;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.types.Redaction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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
  private final Map<String, Supplier<String>> notes = new LinkedHashMap<>();
  private final ObjectMapper json = new ObjectMapper();

  /** Adds a check, answered in the order added. */
  Readiness check(String name, Supplier<String> problem) {
    checks.put(name, problem);
    return this;
  }

  /**
   * Adds a note: what the appliance found of something optional (the microvm backend), in every
   * answer, ready or not; it never makes the answer 503.
   */
  Readiness note(String name, Supplier<String> found) {
    notes.put(name, found);
    return this;
  }

  /** The status and JSON body of one answer. */
  record Answer(int status, String body) {}

  Answer answer() {
    ArrayNode failing = json.createArrayNode();
    failing().forEach((name, why) -> failing.addObject().put("check", name).put("reason", why));
    ObjectNode body = json.createObjectNode();
    body.put("status", failing.isEmpty() ? "ready" : "not ready");
    notes.forEach((name, found) -> body.put(name, clean(found.get())));
    if (failing.isEmpty()) {
      return new Answer(200, body + "\n");
    }
    body.set("failing", failing);
    return new Answer(503, body + "\n");
  }

  /** The failing checks as one line ("github-app: …; database: …"), or null when ready. */
  String problems() {
    Map<String, String> failing = failing();
    if (failing.isEmpty()) {
      return null;
    }
    List<String> lines = new ArrayList<>();
    failing.forEach((name, why) -> lines.add(name + ": " + why));
    return String.join("; ", lines);
  }

  /** Each failing check's name and reason, in the order added. */
  private Map<String, String> failing() {
    Map<String, String> failing = new LinkedHashMap<>();
    checks.forEach((name, check) -> {
      String why;
      try {
        why = check.get();
      } catch (RuntimeException e) {
        why = "the check failed: " + e;
      }
      if (why != null) {
        failing.put(name, clean(why));
      }
    });
    return failing;
  }

  private static String clean(String why) {
    String line = Redaction.redact(why).replaceAll("\\s+", " ").strip();
    return line.length() <= MAX_REASON ? line : line.substring(0, MAX_REASON) + "…";
  }
}
