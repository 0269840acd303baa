package dev.pushgate.sandbox;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** A conversation's mode; it decides whether bind mounts are writable. */
public enum Mode {
  CHAT,
  REVIEW,
  PLAN,
  ORCHESTRATE;

  @JsonValue
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** {@code review}, {@code plan} and {@code orchestrate} mount everything read-only. */
  public boolean readOnly() {
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
        "not a mode: " + Text.printable(id) + " (expected chat, review, plan or orchestrate)");
  }
}
