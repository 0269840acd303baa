package dev.pushgate.sandbox;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.pushgate.types.EnumIds;

/**
 * What runs the agent. Decides the dispatch, and whether the environment is sanitised when no
 * sandbox wraps the run: Claude Code then goes through the no-sandbox adapter and inherits the
 * host environment; ACP and the harness bash tool are sanitised on every host.
 */
public enum Runner {
  CLAUDE_CODE("claude-code", Dispatch.OVERLAY),
  ACP("acp", Dispatch.OVERLAY),
  HARNESS_BASH("harness-bash", Dispatch.HARNESS_BASH);

  private final String id;
  private final Dispatch dispatch;

  Runner(String id, Dispatch dispatch) {
    this.id = id;
    this.dispatch = dispatch;
  }

  @JsonValue
  public String id() {
    return id;
  }

  public Dispatch dispatch() {
    return dispatch;
  }

  @JsonCreator
  public static Runner fromId(String id) {
    return EnumIds.parse(Runner.class, Runner::id, id, "a runner");
  }
}
