package dev.pushgate.policy;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.pushgate.types.UntrustedText;
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
    throw new IllegalArgumentException("not a mode: " + UntrustedText.printable(id)
        + " (expected chat, plan, review or orchestrate)");
  }
}
