package dev.pushgate.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;
import java.util.Set;

/**
 * Answers Claude Code's {@code PreToolUse} hook. Pure: JSON in, JSON out, no I/O.
 *
 * <p>For the {@code Bash} tool the command in {@code tool_input.command} is judged by {@link
 * CommandPolicy} and the answer is
 *
 * <pre>
 * {"hookSpecificOutput": {"hookEventName": "PreToolUse",
 *   "permissionDecision": "allow|ask|deny",
 *   "permissionDecisionReason": "Control Center policy: …"}}
 * </pre>
 *
 * Any other tool passes through untouched: the answer is an empty object, which Claude Code reads
 * as "no decision". Input that is not a well-formed {@code PreToolUse} call is denied.
 */
public final class PreToolUseHook {
  /** Put before every reason, as the gateway puts it before a refused push. */
  public static final String REASON_PREFIX = "Control Center policy: ";

  private PreToolUseHook() {}

  /**
   * The hook's answer for one tool call of a run where {@code boundaries} are in force (none:
   * {@code Set.of()}): what they judge is let through to them ({@link CommandPolicy}). Never null;
   * never throws for any input.
   */
  public static ObjectNode answer(JsonNode hookInput, Mode mode, WorkspaceRules rules,
      Set<Boundary> boundaries) {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(rules, "rules");
    Objects.requireNonNull(boundaries, "boundaries");
    if (hookInput == null || !hookInput.isObject()) {
      return render(Decision.DENY, "malformed hook input: expected a JSON object");
    }
    JsonNode event = hookInput.get("hook_event_name");
    if (event != null && !(event.isTextual() && event.textValue().equals("PreToolUse"))) {
      return render(Decision.DENY,
          "malformed hook input: hook_event_name must be PreToolUse for this hook");
    }
    JsonNode tool = hookInput.get("tool_name");
    if (tool == null || !tool.isTextual() || tool.textValue().isEmpty()) {
      return render(Decision.DENY, "malformed hook input: tool_name is missing or not a string");
    }
    if (!tool.textValue().equals("Bash")) {
      return passThrough();
    }
    JsonNode input = hookInput.get("tool_input");
    JsonNode command = input == null ? null : input.get("command");
    if (command == null || !command.isTextual()) {
      return render(Decision.DENY,
          "malformed hook input: tool_input.command is missing or not a string");
    }
    CommandJudgement j = CommandPolicy.judge(command.textValue(), mode, rules, boundaries);
    return render(j.decision(), j.reason());
  }

  /**
   * An answer with a decision, for callers that settle an {@code ask} themselves (an approver's
   * answer). The reason is one line and gets {@link #REASON_PREFIX}.
   */
  public static ObjectNode render(Decision decision, String reason) {
    Objects.requireNonNull(decision, "decision");
    Objects.requireNonNull(reason, "reason");
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    ObjectNode specific = out.putObject("hookSpecificOutput");
    specific.put("hookEventName", "PreToolUse");
    specific.put("permissionDecision", decision.id());
    specific.put("permissionDecisionReason", REASON_PREFIX + reason.replaceAll("[\\r\\n]+", " "));
    return out;
  }

  /** The answer that leaves a tool call to Claude Code: an empty object, no decision. */
  public static ObjectNode passThrough() {
    return JsonNodeFactory.instance.objectNode();
  }
}
