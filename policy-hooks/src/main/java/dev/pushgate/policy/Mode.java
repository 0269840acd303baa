package dev.pushgate.policy;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * The mode of a conversation. {@code plan}, {@code review} and {@code orchestrate} are read-only:
 * their command policy denies every state-changing command outright, and their sandbox mounts
 * everything read-only.
 */
public enum Mode {
  CHAT,
  PLAN,
  REVIEW,
  ORCHESTRATE;

  /** The lower-case id used by the control API and the run spec: {@code chat}, {@code plan}, … */
  @JsonValue
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  public boolean isReadOnly() {
    return this != CHAT;
  }

  @JsonCreator
  public static Mode fromId(String id) {
    for (Mode m : values()) {
      if (m.id().equals(id)) {
        return m;
      }
    }
    throw new IllegalArgumentException(
        "not a mode: " + printable(id) + " (expected chat, plan, review or orchestrate)");
  }

  /** The id is untrusted input (a run spec): control characters escaped, length bounded. */
  private static String printable(String s) {
    if (s == null) {
      return "(none)";
    }
    if (s.isEmpty()) {
      return "\"\"";
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length() && b.length() <= 200; i++) {
      char c = s.charAt(i);
      b.append(c < 0x20 || c == 0x7f ? String.format("\\x%02x", (int) c) : String.valueOf(c));
    }
    return b.length() > 200 ? b.substring(0, 200) + "…" : b.toString();
  }
}
