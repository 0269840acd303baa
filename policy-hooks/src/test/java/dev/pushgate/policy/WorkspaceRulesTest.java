package dev.pushgate.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class WorkspaceRulesTest {
  static final String EXAMPLE = """
      commit: allow
      open-pull-request: ask
      access-network: allow
      push:
        - refs: refs/heads/main
          decision: ask
          reason: main needs a human
        - refs: "refs/heads/**"
          kinds: [force, delete]
          decision: deny
          reason: history is not rewritten here
        - refs: "refs/heads/**"
          decision: allow
      """;

  static final String EXAMPLE_JSON = """
      {"commit": "allow", "open-pull-request": "ask", "access-network": "allow",
       "push": [
         {"refs": "refs/heads/main", "decision": "ask", "reason": "main needs a human"},
         {"refs": "refs/heads/**", "kinds": ["force", "delete"], "decision": "deny",
          "reason": "history is not rewritten here"},
         {"refs": "refs/heads/**", "decision": "allow"}]}
      """;

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void readsTheExampleDocument() throws RulesException {
    WorkspaceRules rules = WorkspaceRules.parse(EXAMPLE);
    assertThat(rules.decisionFor(ActionClass.COMMIT)).isEqualTo(Decision.ALLOW);
    assertThat(rules.decisionFor(ActionClass.OPEN_PULL_REQUEST)).isEqualTo(Decision.ASK);
    assertThat(rules.decisionFor(ActionClass.ACCESS_NETWORK)).isEqualTo(Decision.ALLOW);
    assertThat(rules.push().judge("refs/heads/main", UpdateKind.UPDATE))
        .isEqualTo(new Judgement(Decision.ASK, "push refs/heads/main -> ask", "main needs a human"));
    assertThat(rules.push().judge("refs/heads/main", UpdateKind.FORCE).decision())
        .as("the exact rule is more specific than the kind-scoped wildcard")
        .isEqualTo(Decision.ASK);
    assertThat(rules.push().judge("refs/heads/feature", UpdateKind.FORCE))
        .isEqualTo(new Judgement(Decision.DENY, "push refs/heads/** [delete, force] -> deny",
            "history is not rewritten here"));
    assertThat(rules.push().judge("refs/heads/feature", UpdateKind.CREATE))
        .isEqualTo(new Judgement(Decision.ALLOW, "push refs/heads/** -> allow",
            "push to refs/heads/** is allowed"));
    assertThat(rules.push().judge("refs/tags/v1", UpdateKind.CREATE).rule()).isEqualTo("push -> allow");
    assertThat(rules.strictest()).isEqualTo(Decision.DENY);
  }

  @Test
  void absentActionKeysAreAllowedAndGlobsDefault() throws RulesException {
    WorkspaceRules rules = WorkspaceRules.parse(EXAMPLE);
    for (ActionClass a : List.of(ActionClass.PUSH, ActionClass.PUBLISH_REVIEW_OR_MERGE,
        ActionClass.WRITE_TRACKER, ActionClass.INSTALL_PACKAGE)) {
      assertThat(rules.decisionFor(a)).as(a.id()).isEqualTo(Decision.ALLOW);
    }
    assertThat(rules.denyWriteGlobs()).isEqualTo(SecretFiles.GLOBS);
    assertThat(rules.denyWriteGlobsExplicit()).isFalse();
  }

  @Test
  void defaultAllowsEverythingButChangingWorkflows() {
    for (ActionClass a : ActionClass.values()) {
      assertThat(WorkspaceRules.DEFAULT.decisionFor(a)).as(a.id())
          .isEqualTo(a == ActionClass.PUSH_WORKFLOWS ? Decision.DENY : Decision.ALLOW);
    }
    assertThat(WorkspaceRules.DEFAULT.pushWorkflows()).isEqualTo(Decision.DENY);
    assertThat(WorkspaceRules.DEFAULT.push()).isEqualTo(PushRules.ALLOW_ALL);
    assertThat(WorkspaceRules.DEFAULT.strictest()).isEqualTo(Decision.ALLOW);
    assertThat(WorkspaceRules.DEFAULT.denyWriteGlobs()).isEqualTo(SecretFiles.GLOBS);
  }

  @Test
  void emptyDocumentsAreTheDefault() throws RulesException {
    assertThat(WorkspaceRules.parse("")).isEqualTo(WorkspaceRules.DEFAULT);
    assertThat(WorkspaceRules.parse("# no rules yet\n")).isEqualTo(WorkspaceRules.DEFAULT);
    assertThat(WorkspaceRules.parse("{}")).isEqualTo(WorkspaceRules.DEFAULT);
    assertThat(WorkspaceRules.parse("~\n")).isEqualTo(WorkspaceRules.DEFAULT);
    assertThat(WorkspaceRules.fromJson(null)).isEqualTo(WorkspaceRules.DEFAULT);
    assertThat(WorkspaceRules.fromJson(NullNode.instance)).isEqualTo(WorkspaceRules.DEFAULT);
  }

  @Test
  void pushWorkflowsIsDeniedUnlessTheDocumentAllowsOrAsks() throws RulesException {
    assertThat(WorkspaceRules.parse("commit: ask\n").pushWorkflows()).isEqualTo(Decision.DENY);
    assertThat(WorkspaceRules.parse("push-workflows: ask\n").pushWorkflows())
        .isEqualTo(Decision.ASK);
    WorkspaceRules allowed = WorkspaceRules.parse("{\"push-workflows\": \"allow\"}");
    assertThat(allowed.pushWorkflows()).isEqualTo(Decision.ALLOW);
    assertThat(WorkspaceRules.fromJson(allowed.toJson())).isEqualTo(allowed);
    assertThat(WorkspaceRules.DEFAULT.toJson().get("push-workflows").asText()).isEqualTo("deny");
    assertThatThrownBy(() -> WorkspaceRules.parse("push-workflows: maybe\n"))
        .isInstanceOf(RulesException.class)
        .hasMessage("line 1, column 17: bad decision 'maybe' (expected allow, ask or deny)");
  }

  @Test
  void theDefaultDenyOfWorkflowsDoesNotMakeUnclassifiableCommandsDenied() throws RulesException {
    assertThat(WorkspaceRules.parse("commit: ask\n").strictest()).isEqualTo(Decision.ASK);
    assertThat(WorkspaceRules.parse("push-workflows: deny\n").strictest())
        .isEqualTo(Decision.ALLOW);
  }

  @Test
  void pushMayBeOneDecision() throws RulesException {
    WorkspaceRules rules = WorkspaceRules.parse("push: deny\n");
    assertThat(rules.decisionFor(ActionClass.PUSH)).isEqualTo(Decision.DENY);
    assertThat(rules.push().rules()).isEmpty();
    assertThat(rules.push().judge("refs/heads/x", UpdateKind.CREATE))
        .isEqualTo(new Judgement(Decision.DENY, "push -> deny", "push to a remote is denied"));
  }

  @Test
  void pushRuleListWithoutRulesAllows() throws RulesException {
    assertThat(WorkspaceRules.parse("push: []\n").push()).isEqualTo(PushRules.ALLOW_ALL);
  }

  @Test
  void denyWriteGlobsAreKeptAsGivenEvenWhenEmpty() throws RulesException {
    WorkspaceRules given = WorkspaceRules.parse("denyWriteGlobs: [\"id_*\", \"*.p12\"]\n");
    assertThat(given.denyWriteGlobs()).containsExactly("id_*", "*.p12");
    assertThat(given.denyWriteGlobsExplicit()).isTrue();
    WorkspaceRules none = WorkspaceRules.parse("denyWriteGlobs: []\n");
    assertThat(none.denyWriteGlobs()).isEmpty();
    assertThat(none.denyWriteGlobsExplicit()).isTrue();
  }

  @Test
  void jsonTextJsonTreeAndYamlReadTheSame() throws Exception {
    WorkspaceRules yaml = WorkspaceRules.parse(EXAMPLE);
    assertThat(WorkspaceRules.parse(EXAMPLE_JSON)).isEqualTo(yaml);
    assertThat(WorkspaceRules.fromJson(JSON.readTree(EXAMPLE_JSON))).isEqualTo(yaml);
  }

  @Test
  void toJsonReadsBackToEqualRules() throws Exception {
    for (String doc : List.of(EXAMPLE, "push: ask\ndenyWriteGlobs: []\n", "")) {
      WorkspaceRules rules = WorkspaceRules.parse(doc);
      JsonNode json = rules.toJson();
      assertThat(WorkspaceRules.fromJson(json)).as(json.toString()).isEqualTo(rules);
      assertThat(WorkspaceRules.parse(json.toString())).isEqualTo(rules);
    }
    assertThat(WorkspaceRules.parse("push: ask\n").toJson().toString()).isEqualTo(
        "{\"push\":\"ask\",\"commit\":\"allow\",\"open-pull-request\":\"allow\","
            + "\"publish-review-or-merge\":\"allow\",\"write-tracker\":\"allow\","
            + "\"install-package\":\"allow\",\"access-network\":\"allow\",\"push-workflows\":\"deny\"}");
  }

  /** Found by RulesFuzzTest: the default reason names the pattern and may pass 200 characters. */
  @Test
  void theDefaultReasonOfALongPatternReadsBackFromJson() throws Exception {
    String refs = "refs/heads/" + "x".repeat(190);
    WorkspaceRules rules =
        WorkspaceRules.parse("push:\n  - refs: " + refs + "\n    decision: deny\n");
    assertThat(rules.push().rules().get(0).reason())
        .isEqualTo("push to " + refs + " is denied")
        .hasSizeGreaterThan(RulesReader.MAX_REASON);
    assertThat(rules.toJson().get("push").get(0).has("reason")).isFalse();
    assertThat(WorkspaceRules.fromJson(rules.toJson())).isEqualTo(rules);
    assertThat(WorkspaceRules.parse(rules.toJson().toString())).isEqualTo(rules);
  }

  /** Found by RulesFuzzTest: a pattern or key quoted in the message kept its line break. */
  @Test
  void aLineBreakInAQuotedPatternOrKeyStaysOutOfTheMessage() throws Exception {
    String doc = "push:\n  - refs: \"x\\ny\"\n    decision: deny\n";
    assertThatThrownBy(() -> WorkspaceRules.parse(doc))
        .hasMessage("line 2, column 11: bad pattern: ref pattern must start with refs/"
            + " (for example refs/heads/main): x y");
    assertThatThrownBy(() -> WorkspaceRules.parse("\"a\\nb\": deny\n"))
        .hasMessageStartingWith("line 1, column 1: unknown key 'a b' (expected push, ");
    assertThatThrownBy(() -> WorkspaceRules.fromJson(JSON.readTree("{\"a\\nb\": \"deny\"}")))
        .hasMessageStartingWith("rules.a b: unknown key 'a b' (expected push, ")
        .isInstanceOfSatisfying(RulesException.class,
            e -> assertThat(e.path()).isEqualTo("rules.a b"));
  }

  static Stream<Arguments> badDocuments() {
    return Stream.of(
        Arguments.of("commit: allow\nopen-pull-request: maybe\n",
            "line 2, column 20: bad decision 'maybe' (expected allow, ask or deny)", "open-pull-request"),
        Arguments.of("commit: allow\ncomit: deny\n",
            "line 2, column 1: unknown key 'comit' (expected push, commit, open-pull-request, "
                + "publish-review-or-merge, write-tracker, install-package, access-network, push-workflows, content or "
                + "denyWriteGlobs)", "comit"),
        Arguments.of("commit: allow\ncommit: deny\n", "line 2, column 1: duplicate key 'commit'",
            "commit"),
        Arguments.of("commit: [allow]\n",
            "line 1, column 9: wrong type: 'commit' must be a decision (allow, ask or deny), not a list",
            "commit"),
        Arguments.of("commit:\n",
            "line 1, column 8: missing decision for 'commit' (expected allow, ask or deny)", "commit"),
        Arguments.of("commit: true\n",
            "line 1, column 9: bad decision 'true' (expected allow, ask or deny)", "commit"),
        Arguments.of("push:\n  - refs: heads/main\n    decision: deny\n",
            "line 2, column 11: bad pattern: ref pattern must start with refs/ (for example "
                + "refs/heads/main): heads/main", "push[0].refs"),
        Arguments.of("push:\n  - refs: refs/heads/main\n    decision: ask\n  - refs: \"refs/heads/**\"\n"
                + "    kinds: [force, rewrite]\n    decision: deny\n",
            "line 5, column 20: bad kind 'rewrite' (expected create, update, force or delete)",
            "push[1].kinds[1]"),
        Arguments.of("push:\n  - refs: refs/heads/main\n    decision: ask\n    reason: |\n"
                + "      main needs\n      a human\n",
            "line 4, column 13: multi-line reason (a reason is shown on one line of git's output)",
            "push[0].reason"),
        Arguments.of("push:\n  - refs: refs/heads/main\n    refs: refs/heads/dev\n    decision: deny\n",
            "line 3, column 5: duplicate key 'refs'", "push[0].refs"),
        Arguments.of("push:\n  - ref: refs/heads/main\n    decision: deny\n",
            "line 2, column 5: unknown key 'ref' in a push rule (expected refs, kinds, decision or "
                + "reason)", "push[0].ref"),
        Arguments.of("push:\n  - decision: deny\n", "line 2, column 5: a push rule is missing 'refs'",
            "push[0]"),
        Arguments.of("push:\n  - refs: refs/heads/main\n",
            "line 2, column 5: a push rule is missing 'decision'", "push[0]"),
        Arguments.of("push: {refs: x}\n", "line 1, column 7: wrong type: 'push' must be a decision "
            + "(allow, ask or deny) or a list of rules, not a mapping", "push"),
        Arguments.of("push:\n  - refs/heads/main\n", "line 2, column 5: wrong type: a push rule must "
            + "be a mapping with refs and decision, not the string 'refs/heads/main'", "push[0]"),
        Arguments.of("push:\n  - refs: refs/heads/**\n    kinds: []\n    decision: deny\n",
            "line 3, column 12: 'kinds' is empty (leave it out to cover every kind of update)",
            "push[0].kinds"),
        Arguments.of("push:\n  - refs: refs/heads/**\n    kinds: [force, force]\n    decision: deny\n",
            "line 3, column 20: duplicate kind 'force'", "push[0].kinds[1]"),
        Arguments.of("push:\n  - refs: refs/heads/**\n    kinds: force\n    decision: deny\n",
            "line 3, column 12: wrong type: 'kinds' must be a list of create, update, force or "
                + "delete, not the string 'force'", "push[0].kinds"),
        Arguments.of("push:\n  - refs: refs/heads/main\n    decision: deny\n    reason: [x]\n",
            "line 4, column 13: wrong type: 'reason' must be a string, not a list", "push[0].reason"),
        Arguments.of("push:\n  - refs: refs/heads/main\n    decision: deny\n    reason: \""
                + "x".repeat(201) + "\"\n",
            "line 4, column 13: reason is longer than 200 characters", "push[0].reason"),
        Arguments.of("denyWriteGlobs: .env\n", "line 1, column 17: wrong type: 'denyWriteGlobs' "
            + "must be a list of strings, not the string '.env'", "denyWriteGlobs"),
        Arguments.of("denyWriteGlobs: ['']\n", "line 1, column 18: empty glob", "denyWriteGlobs[0]"),
        Arguments.of("denyWriteGlobs: [1]\n",
            "line 1, column 18: wrong type: a glob must be a string, not the number 1",
            "denyWriteGlobs[0]"),
        Arguments.of("- commit\n", "line 1, column 1: the rules document must be a mapping of "
            + "action ids to decisions, not a list", ""),
        Arguments.of("allow\n", "line 1, column 1: the rules document must be a mapping of action "
            + "ids to decisions, not the string 'allow'", ""),
        Arguments.of("commit: 'allow\n", "line 1, column 9: not valid YAML: while scanning a quoted "
            + "scalar: found unexpected end of stream", ""),
        Arguments.of("commit: allow\n  push: deny\n",
            "line 2, column 7: not valid YAML: mapping values are not allowed here", ""),
        Arguments.of("\tcommit: allow\n", "line 1, column 1: not valid YAML: while scanning for the "
            + "next token: found character '\\t(TAB)' that cannot start any token. (Do not use "
            + "\\t(TAB) for indentation)", ""),
        Arguments.of("commit: &a allow\nopen-pull-request: *a\n",
            "line 2, column 20: YAML anchors and aliases are not supported in rules",
            "open-pull-request"),
        Arguments.of("commit: allow\n---\ncommit: deny\n",
            "line 3, column 1: unexpected content after the rules document", ""),
        Arguments.of("commit: !!binary aGVsbG8=\n", "line 1, column 9: unsupported value (only "
            + "mappings, lists, strings, numbers, booleans and null)", "commit"),
        Arguments.of("commit: " + "[".repeat(20) + "]".repeat(20) + "\n",
            "line 1, column 25: the document is nested too deeply", "commit" + "[0]".repeat(16)),
        Arguments.of("{\"commit\": \"allow\",, }", "line 1, column 20: not valid JSON: Unexpected "
            + "character (',' (code 44)): was expecting double-quote to start field name", ""),
        Arguments.of("{\"commit\": \"allow\",\n \"push\": [{\"refs\": \"refs/heads/main\", "
                + "\"decision\": \"maybe\"}]}",
            "line 2, column 51: bad decision 'maybe' (expected allow, ask or deny)",
            "push[0].decision"),
        Arguments.of("{\"commit\": \"allow\", \"commit\": \"deny\"}",
            "line 1, column 21: duplicate key 'commit'", "commit"),
        Arguments.of("{\"commit\": \"allow\"} {}",
            "line 1, column 21: unexpected content after the rules document", ""),
        Arguments.of("{\"push\": [{\"refs\": \"refs/heads/main\", \"decision\": \"deny\", "
                + "\"reason\": \"a\\u0007b\"}]}",
            "line 1, column 69: reason has a control character 0x07", "push[0].reason"));
  }

  @ParameterizedTest
  @MethodSource("badDocuments")
  void refusesABadDocumentNamingLineColumnAndProblem(String doc, String message, String path) {
    assertThatThrownBy(() -> WorkspaceRules.parse(doc))
        .isInstanceOfSatisfying(RulesException.class, e -> {
          assertThat(e.getMessage()).isEqualTo(message);
          assertThat(e.path()).isEqualTo(path);
          assertThat(message).startsWith("line " + e.line() + ", column " + e.column() + ": ");
          assertThat(message).endsWith(": " + e.problem());
          assertThat(e.line()).isPositive();
        });
  }

  @Test
  void refusesAnOversizedDocument() {
    String doc = "# " + "x".repeat(RulesReader.MAX_CHARS) + "\n";
    assertThatThrownBy(() -> WorkspaceRules.parse(doc))
        .hasMessage("line 1, column 1: the rules document is longer than 262144 characters");
  }

  @Test
  void aDocumentWithOneBadRuleIsRefusedWhole() {
    String doc = EXAMPLE + "write-tracker: never\n";
    assertThatThrownBy(() -> WorkspaceRules.parse(doc))
        .isInstanceOf(RulesException.class)
        .hasMessage("line 14, column 16: bad decision 'never' (expected allow, ask or deny)");
  }

  @Test
  void inlineJsonErrorsNameTheJsonPath() throws Exception {
    JsonNode bad = JSON.readTree("{\"push\": [{\"refs\": \"refs/heads/main\", \"decision\": \"ask\"},"
        + " {\"refs\": \"refs/heads/**\", \"decision\": \"maybe\"}]}");
    assertThatThrownBy(() -> WorkspaceRules.fromJson(bad))
        .isInstanceOfSatisfying(RulesException.class, e -> {
          assertThat(e.getMessage())
              .isEqualTo("rules.push[1].decision: bad decision 'maybe' (expected allow, ask or deny)");
          assertThat(e.line()).isZero();
          assertThat(e.column()).isZero();
          assertThat(e.path()).isEqualTo("rules.push[1].decision");
          assertThat(e.problem()).isEqualTo("bad decision 'maybe' (expected allow, ask or deny)");
        });
    assertThatThrownBy(() -> WorkspaceRules.fromJson(bad, ""))
        .hasMessage("push[1].decision: bad decision 'maybe' (expected allow, ask or deny)");
    assertThatThrownBy(() -> WorkspaceRules.fromJson(JSON.readTree("{\"comit\": \"deny\"}")))
        .hasMessageStartingWith("rules.comit: unknown key 'comit' (expected push, commit, ");
    assertThatThrownBy(() -> WorkspaceRules.fromJson(JSON.readTree("[\"allow\"]")))
        .hasMessage("rules: the rules document must be a mapping of action ids to decisions, not a list");
    assertThatThrownBy(() -> WorkspaceRules.fromJson(
            JSON.readTree("{\"push\": [{\"refs\": \"refs/heads/main\", \"decision\": \"deny\","
                + " \"reason\": \"one\\ntwo\"}]}"), "workspace.rules"))
        .hasMessage("workspace.rules.push[0].reason: multi-line reason (a reason is shown on one line"
            + " of git's output)");
    assertThatThrownBy(() -> WorkspaceRules.fromJson(JSON.readTree("{\"commit\": null}")))
        .hasMessage("rules.commit: missing decision for 'commit' (expected allow, ask or deny)");
  }

  @Test
  void buildsRulesInCode() {
    WorkspaceRules rules = WorkspaceRules.of(Map.of(ActionClass.COMMIT, Decision.ASK),
        PushRules.of(List.of(PushRule.of("refs/heads/main", Decision.DENY, null))), null);
    assertThat(rules.decisionFor(ActionClass.COMMIT)).isEqualTo(Decision.ASK);
    assertThat(rules.decisionFor(ActionClass.PUSH)).isEqualTo(Decision.ALLOW);
    assertThat(rules.denyWriteGlobsExplicit()).isFalse();
    assertThatThrownBy(() -> WorkspaceRules.of(Map.of(ActionClass.PUSH, Decision.DENY),
            PushRules.ALLOW_ALL, null))
        .hasMessage("give the push decision through push, not decisions");
    assertThatThrownBy(() -> WorkspaceRules.of(Map.of(), PushRules.of(Decision.DENY,
            List.of(PushRule.of("refs/heads/x", Decision.ALLOW, null))), null))
        .hasMessage("scoped push rules fall back to allow; add a refs/** rule for another default");
    assertThatThrownBy(() -> WorkspaceRules.of(Map.of(), PushRules.ALLOW_ALL, List.of("")))
        .hasMessage("empty glob in denyWriteGlobs");
  }
}
