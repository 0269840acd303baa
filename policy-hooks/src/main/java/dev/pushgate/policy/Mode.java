package dev.pushgate.policy;

import java.util.Locale;

/**
 * The mode of a conversation. {@code plan}, {@code review} and {@code orchestrate} are read-only:
 * their command policy denies every state-changing command outright.
 */
public enum Mode {
  CHAT,
  PLAN,
  REVIEW,
  ORCHESTRATE;

  /** The lower-case id used by the control API: {@code chat}, {@code plan}, … */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  public boolean isReadOnly() {
    return this != CHAT;
  }

  public static Mode fromId(String id) {
    for (Mode m : values()) {
      if (m.id().equals(id)) {
        return m;
      }
    }
    throw new IllegalArgumentException(
        "not a mode: " + id + " (expected chat, plan, review or orchestrate)");
  }
}
