package dev.pushgate.appliance.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.approvals.Answer;
import dev.pushgate.appliance.store.AuditStore;
import dev.pushgate.gateway.AuditLog;
import dev.pushgate.gateway.RefusalCode;
import dev.pushgate.gateway.RunContext;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.PreToolUseHook;
import dev.pushgate.types.AuditEntry;
import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes every decision of the {@code PreToolUse} hook (allow, ask, deny) to the audit log,
 * beside the push decisions, before the answer leaves: a decision that cannot be recorded becomes
 * a deny, as an unrecorded push is refused. A row of kind {@value #KIND} holds the command line
 * where a push's row holds its ref.
 */
final class HookDecisions {
  /** The audit row kind of a hook decision. */
  static final String KIND = AuditStore.COMMAND_KIND;
  /** The longest command line kept in a row; a longer one is cut and the row says by how much. */
  static final int MAX_RECORDED = 8192;

  private static final Logger log = LoggerFactory.getLogger(HookDecisions.class);

  private final AuditLog audit;
  private final Clock clock;

  /** Told every decision recorded ({@code allow}, {@code ask}, {@code deny}): the metrics. */
  private volatile java.util.function.Consumer<String> counter = decision -> { };

  void countingWith(java.util.function.Consumer<String> counter) {
    this.counter = counter;
  }

  HookDecisions(AuditLog audit, Clock clock) {
    this.audit = audit;
    this.clock = clock;
  }

  /**
   * Records {@code answer} and returns it, or a deny when it could not be recorded. An answer
   * without a decision (a tool the hook leaves alone) is not a decision and is not recorded.
   *
   * @param approval how an approver settled an "ask", or null when none was asked
   */
  ObjectNode record(RunContext run, JsonNode input, ObjectNode answer, Answer approval) {
    JsonNode specific = answer.path("hookSpecificOutput");
    String decision = specific.path("permissionDecision").asText(null);
    if (decision == null) {
      return answer;
    }
    String reason = specific.path("permissionDecisionReason").asText("");
    if (reason.startsWith(PreToolUseHook.REASON_PREFIX)) {
      reason = reason.substring(PreToolUseHook.REASON_PREFIX.length());
    }
    RefusalCode code = switch (decision) {
      case "deny" -> approval != null ? approval.refusalCode() : RefusalCode.RULE_DENIED;
      default -> null;
    };
    AuditEntry row = AuditEntry.builder(AuditEntry.Type.COMMAND).at(clock.instant())
        .runId(run.runId()).workspaceId(run.workspaceId())
        .repository(run.repository().toString())
        .ref(recorded(commandOf(input))).kind(KIND)
        .decision(switch (decision) {
          case "allow" -> AuditEntry.Decision.ALLOWED;
          case "ask" -> AuditEntry.Decision.ASKED;
          default -> AuditEntry.Decision.DENIED;
        })
        .rule(approval != null ? "command policy, asked an approver" : "command policy")
        .code(code == null ? null : code.name()).reason(reason)
        .outcome(decision.equals("deny") ? AuditEntry.Outcome.NOT_RUN : null)
        .durationMillis(0L).build();
    // the command line stays out of the log (it may carry anything); the audit row has it
    log.atInfo().addKeyValue("run", run.runId()).addKeyValue("repository", run.repository())
        .addKeyValue("decision", decision).addKeyValue("code", code)
        .log("hook run={} repo={} decision={} code={}", run.runId(), run.repository(), decision,
            code == null ? "none" : code);
    try {
      audit.record(List.of(row));
      counter.accept(decision);
      return answer;
    } catch (AuditLog.AuditException e) {
      log.error("run {}: audit log unavailable, hook call denied", run.runId(), e);
      return PreToolUseHook.render(Decision.DENY,
          "the audit log is unavailable, so no command can be allowed; try again later");
    }
  }

  /** The Bash command line of a hook call, or null when the input carries none. */
  static String commandOf(JsonNode input) {
    JsonNode command = input == null ? null : input.path("tool_input").path("command");
    return command != null && command.isTextual() ? command.textValue() : null;
  }

  private static String recorded(String command) {
    if (command == null || command.length() <= MAX_RECORDED) {
      return command;
    }
    int cut = Character.isHighSurrogate(command.charAt(MAX_RECORDED - 1))
        ? MAX_RECORDED - 1 : MAX_RECORDED;
    return command.substring(0, cut) + "… (" + (command.length() - cut)
        + " more characters, not recorded)";
  }
}
