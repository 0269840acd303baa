package dev.pushgate.appliance.control;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.approvals.Answer;
import dev.pushgate.gateway.AuditLog;
import dev.pushgate.gateway.RunContext;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.PreToolUseHook;
import dev.pushgate.policy.PushRules;
import dev.pushgate.types.AuditEntry;
import dev.pushgate.types.RepoSlug;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HookDecisionsTest {
  private static final Instant NOW = Instant.parse("2026-12-03T12:00:00Z");
  private static final RunContext RUN = new RunContext("run_1", "ws-1",
      RepoSlug.parse("acme/widget"), List.of(), PushRules.ALLOW_ALL);

  /** An audit log that keeps what it is given, or cannot be written. */
  private static final class Audit implements AuditLog {
    final List<AuditEntry> records = new ArrayList<>();
    boolean down;

    @Override
    public List<Handle> record(List<AuditEntry> r) throws AuditException {
      if (down) {
        throw new AuditException("database is locked", null);
      }
      records.addAll(r);
      return r.stream().map(x -> (Handle) new Handle() {}).toList();
    }

    @Override
    public void settle(Handle record, AuditEntry.Outcome outcome, long durationMillis) {}
  }

  private final Audit audit = new Audit();
  private final HookDecisions decisions =
      new HookDecisions(audit, Clock.fixed(NOW, ZoneOffset.UTC));

  @Test
  void aDenyIsRecordedWithTheCommandAndTheRulesReason() throws Exception {
    ObjectNode answer = PreToolUseHook.render(Decision.DENY, "push to main is denied");

    assertThat(decisions.record(RUN, bash("git push origin main"), answer, null)).isSameAs(answer);

    assertThat(audit.records)
        .containsExactly(AuditEntry.builder(AuditEntry.Type.COMMAND).at(NOW).runId("run_1")
            .workspaceId("ws-1").repository("acme/widget").ref("git push origin main")
            .kind("command").decision(AuditEntry.Decision.DENIED).rule("command policy")
            .code("RULE_DENIED").reason("push to main is denied")
            .outcome(AuditEntry.Outcome.NOT_RUN).durationMillis(0L).build());
  }

  @Test
  void anApproversAnswerIsRecordedWithItsCode() throws Exception {
    Answer approval = new Answer(Answer.Outcome.TIMED_OUT, null, "x (nobody answered within 5 s)");
    decisions.record(RUN, bash("gh pr create"),
        PreToolUseHook.render(Decision.DENY, approval.reason()), approval);

    assertThat(audit.records).singleElement().satisfies(r -> {
      assertThat(r.code()).isEqualTo("APPROVAL_TIMEOUT");
      assertThat(r.rule()).isEqualTo("command policy, asked an approver");
    });
  }

  @Test
  void anAskLeftToClaudeCodeIsRecordedAsAskedAndNotAsRefused() throws Exception {
    decisions.record(RUN, bash("git push"), PreToolUseHook.render(Decision.ASK, "needs approval"),
        null);

    assertThat(audit.records).singleElement().satisfies(r -> {
      assertThat(r.decision()).isEqualTo("asked");
      assertThat(r.code()).isNull();
      assertThat(r.outcome()).isNull();
    });
  }

  @Test
  void aToolTheHookLeavesAloneIsNoDecisionAndIsNotRecorded() throws Exception {
    decisions.record(RUN, bash("x"), PreToolUseHook.passThrough(), null);

    assertThat(audit.records).isEmpty();
  }

  @Test
  void anAllowThatCannotBeRecordedBecomesADeny() throws Exception {
    audit.down = true;

    JsonNode out = decisions.record(RUN, bash("git status"),
        PreToolUseHook.render(Decision.ALLOW, "fine"), null).get("hookSpecificOutput");

    assertThat(out.get("permissionDecision").asText()).isEqualTo("deny");
    assertThat(out.get("permissionDecisionReason").asText()).isEqualTo("Control Center policy:"
        + " the audit log is unavailable, so no command can be allowed; try again later");
  }

  @Test
  void aVeryLongCommandIsRecordedCutAndSaysSo() throws Exception {
    String command = "echo " + "x".repeat(HookDecisions.MAX_RECORDED);
    decisions.record(RUN, bash(command), PreToolUseHook.render(Decision.ALLOW, "fine"), null);

    assertThat(audit.records.get(0).ref()).isEqualTo(
        command.substring(0, HookDecisions.MAX_RECORDED) + "… (5 more characters, not recorded)");
  }

  private static JsonNode bash(String command) throws Exception {
    ObjectNode input = new ObjectMapper().createObjectNode();
    input.put("hook_event_name", "PreToolUse");
    input.put("tool_name", "Bash");
    input.putObject("tool_input").put("command", command);
    return input;
  }
}
