package dev.pushgate.sandbox;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.pushgate.types.EnumIds;

/** How a run's process is dispatched; it decides which paths are mounted. */
public enum Dispatch {
  /** Claude Code and ACP: the overlay workdir, config dir, shared repos/ and attachments. */
  OVERLAY("overlay"),
  /** The harness bash tool: the run's workdir only. */
  HARNESS_BASH("harness-bash");

  private final String id;

  Dispatch(String id) {
    this.id = id;
  }

  @JsonValue
  public String id() {
    return id;
  }

  @JsonCreator
  public static Dispatch fromId(String id) {
    return EnumIds.parse(Dispatch.class, Dispatch::id, id, "a dispatch");
  }
}
