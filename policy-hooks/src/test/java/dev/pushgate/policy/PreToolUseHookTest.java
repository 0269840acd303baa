package dev.pushgate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Driven by {@code claude-code-pretooluse-examples.json}, the shapes Claude Code documents. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PreToolUseHookTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private JsonNode reference;

  @BeforeAll
  void readReference() throws IOException {
    try (InputStream in =
        PreToolUseHookTest.class.getResourceAsStream("/claude-code-pretooluse-examples.json")) {
      reference = JSON.readTree(in);
    }
  }

  private JsonNode input(String example) {
    JsonNode n = reference.path("input_examples").path(example);
    assertThat(n.isObject()).as(example).isTrue();
    return n;
  }

  /** The hook's answer for a run where no boundary is in force. */
  private static JsonNode hook(JsonNode input, Mode mode, WorkspaceRules rules) {
    return PreToolUseHook.answer(input, mode, rules, Set.of());
  }

  private static JsonNode answer(String decision, String reason) throws IOException {
    return JSON.readTree("{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", "
        + "\"permissionDecision\": \"" + decision + "\", \"permissionDecisionReason\": "
        + JSON.writeValueAsString("Control Center policy: " + reason) + "}}");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "bash_git_push   | chat        | ask   | `git push` would push to a remote, which needs approval in chat mode",
      "bash_git_push   | plan        | deny  | `git push` would push to a remote, and plan mode is read-only",
      "bash_git_push   | review      | deny  | `git push` would push to a remote, and review mode is read-only",
      "bash_git_push   | orchestrate | deny  | `git push` would push to a remote, and orchestrate mode is read-only",
      "bash_git_commit | chat        | allow | `git commit` would create a commit, which this workspace's rules allow",
      "bash_git_commit | plan        | deny  | `git commit` would create a commit, and plan mode is read-only",
  })
  void answersEveryBashExampleWithADecision(String example, String mode, String decision,
      String reason) throws IOException {
    assertThat(hook(input(example), Mode.fromId(mode), WorkspaceRules.DEFAULT))
        .isEqualTo(answer(decision, reason));
  }

  @Test
  void everyInputExampleGetsAnAnswerInEveryMode() {
    List<String> names = new ArrayList<>();
    reference.path("input_examples").fieldNames().forEachRemaining(names::add);
    assertThat(names).contains("bash_git_push", "bash_git_commit", "write_file");
    for (String name : names) {
      for (Mode mode : Mode.values()) {
        JsonNode out = hook(input(name), mode, WorkspaceRules.DEFAULT);
        boolean bash = input(name).path("tool_name").asText().equals("Bash");
        assertThat(out.has("hookSpecificOutput")).as(name).isEqualTo(bash);
      }
    }
  }

  @Test
  void otherToolsPassThroughWithNoDecision() {
    for (Mode mode : Mode.values()) {
      assertThat(hook(input("write_file"), mode, WorkspaceRules.DEFAULT))
          .isEqualTo(JSON.createObjectNode());
    }
    ObjectNode mcp = input("bash_git_push").deepCopy();
    mcp.put("tool_name", "mcp__controlcenter__create_ticket");
    assertThat(hook(mcp, Mode.PLAN, WorkspaceRules.DEFAULT)).isEmpty();
  }

  @Test
  void decisionsHaveTheDocumentedOutputShape() throws IOException {
    for (String example : List.of("allow", "deny", "ask")) {
      JsonNode documented = reference.path("output_examples").path(example);
      JsonNode built = PreToolUseHook.render(Decision.fromId(example),
          documented.path("hookSpecificOutput").path("permissionDecisionReason").asText());
      assertThat(fieldNames(built)).isEqualTo(fieldNames(documented));
      assertThat(fieldNames(built.path("hookSpecificOutput")))
          .isEqualTo(fieldNames(documented.path("hookSpecificOutput")));
      assertThat(built.path("hookSpecificOutput").path("permissionDecision"))
          .isEqualTo(documented.path("hookSpecificOutput").path("permissionDecision"));
      assertThat(built.path("hookSpecificOutput").path("hookEventName").asText())
          .isEqualTo("PreToolUse");
    }
  }

  private static List<String> fieldNames(JsonNode n) {
    List<String> names = new ArrayList<>();
    Iterator<String> it = n.fieldNames();
    it.forEachRemaining(names::add);
    return names;
  }

  @Test
  void workspaceRulesGiveTheDocumentedDenyAndAskReasons() throws Exception {
    String deny = reference.at("/output_examples/deny/hookSpecificOutput/permissionDecisionReason")
        .asText();
    String ask = reference.at("/output_examples/ask/hookSpecificOutput/permissionDecisionReason")
        .asText();
    WorkspaceRules rules = WorkspaceRules.fromJson(JSON.valueToTree(Map.of("push", List.of(
        Map.of("refs", "refs/heads/main", "decision", "deny", "reason", deny),
        Map.of("refs", "refs/heads/**", "kinds", List.of("force"), "decision", "ask",
            "reason", ask)))));
    assertThat(hook(input("bash_git_push"), Mode.CHAT, rules))
        .isEqualTo(answer("deny", "`git push` to refs/heads/main: " + deny));
    ObjectNode force = input("bash_git_push").deepCopy();
    ((ObjectNode) force.path("tool_input")).put("command", "git push --force origin feature-x");
    assertThat(hook(force, Mode.CHAT, rules))
        .isEqualTo(answer("ask", "`git push` to refs/heads/feature-x: " + ask));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "null                                                       | malformed hook input: expected a JSON object",
      "[]                                                         | malformed hook input: expected a JSON object",
      "'\"git push\"'                                             | malformed hook input: expected a JSON object",
      "{}                                                         | malformed hook input: tool_name is missing or not a string",
      "{\"tool_name\": 3}                                         | malformed hook input: tool_name is missing or not a string",
      "{\"tool_name\": \"\"}                                      | malformed hook input: tool_name is missing or not a string",
      "{\"hook_event_name\": \"PostToolUse\", \"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"ls\"}} | malformed hook input: hook_event_name must be PreToolUse for this hook",
      "{\"tool_name\": \"Bash\"}                                  | malformed hook input: tool_input.command is missing or not a string",
      "{\"tool_name\": \"Bash\", \"tool_input\": \"ls\"}          | malformed hook input: tool_input.command is missing or not a string",
      "{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": 1}} | malformed hook input: tool_input.command is missing or not a string",
      "{\"tool_name\": \"Bash\", \"tool_input\": {\"cmd\": \"ls\"}} | malformed hook input: tool_input.command is missing or not a string",
  })
  void malformedInputIsDeniedWithAClearReason(String input, String reason) throws IOException {
    for (Mode mode : Mode.values()) {
      assertThat(hook(JSON.readTree(input), mode, WorkspaceRules.DEFAULT))
          .as(input).isEqualTo(answer("deny", reason));
    }
    assertThat(hook(null, Mode.CHAT, WorkspaceRules.DEFAULT))
        .isEqualTo(answer("deny", "malformed hook input: expected a JSON object"));
  }

  @Test
  void aBashCallWithoutTheEventNameIsStillJudged() throws IOException {
    JsonNode in = JSON.readTree("{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"ls\"}}");
    assertThat(hook(in, Mode.PLAN, WorkspaceRules.DEFAULT))
        .isEqualTo(answer("allow", "no rule restricts this command"));
  }

  @Test
  void renderKeepsTheReasonOnOneLine() throws IOException {
    assertThat(PreToolUseHook.render(Decision.ALLOW, "approved by alice\nat 10:02"))
        .isEqualTo(answer("allow", "approved by alice at 10:02"));
    assertThat(PreToolUseHook.passThrough()).isEmpty();
  }
}
