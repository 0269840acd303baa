package dev.pushgate.sandbox;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.pushgate.types.EnumIds;
import java.util.Locale;

/** Lifecycle state of a sandbox. */
public enum SandboxState {
  /** Spec created, nothing started yet. */
  CREATED,
  /** Running and ready to execute commands. */
  WARM,
  /** Executing a command. */
  ACTIVE,
  /** Paused or checkpointed to disk. */
  SUSPENDED,
  /** Torn down; the handle is no longer valid. */
  DESTROYED,
  /** Start failed; see {@link SandboxHandle#error()}. */
  ERROR;

  @JsonValue
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  @JsonCreator
  public static SandboxState fromId(String id) {
    return EnumIds.parse(SandboxState.class, SandboxState::id, id, "a sandbox state");
  }
}
