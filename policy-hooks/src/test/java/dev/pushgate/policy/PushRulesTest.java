package dev.pushgate.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PushRulesTest {
  private static PushRule rule(String refs, Set<UpdateKind> kinds, Decision d, String reason) {
    return new PushRule(RefPattern.parse(refs), kinds, d, reason);
  }

  @Test
  void mostSpecificRuleWins() {
    PushRules rules = PushRules.of(List.of(
        PushRule.of("refs/heads/**", Decision.ALLOW, null),
        PushRule.of("refs/heads/main", Decision.ASK, "main needs a human")));
    assertThat(rules.judge("refs/heads/main", UpdateKind.UPDATE))
        .isEqualTo(new Judgement(Decision.ASK, "push refs/heads/main -> ask", "main needs a human"));
    assertThat(rules.judge("refs/heads/feature", UpdateKind.UPDATE).decision())
        .isEqualTo(Decision.ALLOW);
  }

  @Test
  void exactRuleBeatsAStricterWildcard() {
    PushRules rules = PushRules.of(List.of(
        PushRule.of("refs/heads/**", Decision.DENY, "no pushes"),
        PushRule.of("refs/heads/agent/run-1", Decision.ALLOW, "this run's branch")));
    assertThat(rules.judge("refs/heads/agent/run-1", UpdateKind.CREATE).decision())
        .isEqualTo(Decision.ALLOW);
    assertThat(rules.judge("refs/heads/agent/run-2", UpdateKind.CREATE).decision())
        .isEqualTo(Decision.DENY);
  }

  @Test
  void atEqualSpecificityDenyBeatsAskBeatsAllowWhateverTheOrder() {
    PushRule allow = PushRule.of("refs/heads/*", Decision.ALLOW, null);
    PushRule ask = PushRule.of("refs/heads/*", Decision.ASK, null);
    PushRule deny = PushRule.of("refs/heads/*", Decision.DENY, null);
    assertThat(PushRules.of(List.of(allow, deny)).judge("refs/heads/x", UpdateKind.UPDATE).decision())
        .isEqualTo(Decision.DENY);
    assertThat(PushRules.of(List.of(deny, allow)).judge("refs/heads/x", UpdateKind.UPDATE).decision())
        .isEqualTo(Decision.DENY);
    assertThat(PushRules.of(List.of(allow, ask)).judge("refs/heads/x", UpdateKind.UPDATE).decision())
        .isEqualTo(Decision.ASK);
    assertThat(PushRules.of(List.of(ask, deny, allow)).judge("refs/heads/x", UpdateKind.UPDATE)
        .decision()).isEqualTo(Decision.DENY);
  }

  @Test
  void ruleScopedToKindsCoversOnlyThoseKindsAndBeatsAnUnscopedOne() {
    PushRules rules = PushRules.of(List.of(
        PushRule.of("refs/heads/**", Decision.ALLOW, null),
        rule("refs/heads/**", Set.of(UpdateKind.FORCE, UpdateKind.DELETE), Decision.DENY,
            "history is not rewritten here")));
    assertThat(rules.judge("refs/heads/x", UpdateKind.FORCE)).isEqualTo(new Judgement(
        Decision.DENY, "push refs/heads/** [delete, force] -> deny", "history is not rewritten here"));
    assertThat(rules.judge("refs/heads/x", UpdateKind.DELETE).decision()).isEqualTo(Decision.DENY);
    assertThat(rules.judge("refs/heads/x", UpdateKind.UPDATE).decision()).isEqualTo(Decision.ALLOW);
    assertThat(rules.judge("refs/heads/x", UpdateKind.CREATE).decision()).isEqualTo(Decision.ALLOW);
  }

  @Test
  void narrowerPatternBeatsKindScopedWiderOne() {
    PushRules rules = PushRules.of(List.of(
        rule("refs/heads/**", Set.of(UpdateKind.FORCE), Decision.DENY, null),
        PushRule.of("refs/heads/agent/*", Decision.ALLOW, null)));
    assertThat(rules.judge("refs/heads/agent/x", UpdateKind.FORCE).decision())
        .isEqualTo(Decision.ALLOW);
  }

  @Test
  void singleStarRuleBeatsDoubleStarRuleForOneSegmentRefs() {
    PushRules rules = PushRules.of(List.of(
        PushRule.of("refs/heads/**", Decision.DENY, null),
        PushRule.of("refs/heads/*", Decision.ALLOW, null)));
    assertThat(rules.judge("refs/heads/x", UpdateKind.UPDATE).decision()).isEqualTo(Decision.ALLOW);
    assertThat(rules.judge("refs/heads/x/y", UpdateKind.UPDATE).decision()).isEqualTo(Decision.DENY);
  }

  @Test
  void fallbackDecidesWhenNoRuleMatches() {
    PushRules rules = PushRules.of(List.of(PushRule.of("refs/heads/main", Decision.DENY, null)));
    assertThat(rules.judge("refs/tags/v1", UpdateKind.CREATE)).isEqualTo(new Judgement(
        Decision.ALLOW, "push -> allow", "no push rule matches; push is allowed"));
    assertThat(PushRules.of(Decision.DENY, List.of()).judge("refs/heads/x", UpdateKind.UPDATE))
        .isEqualTo(new Judgement(Decision.DENY, "push -> deny", "push to a remote is denied"));
    assertThat(PushRules.of(Decision.ASK, List.of()).judge("refs/heads/x", UpdateKind.UPDATE))
        .isEqualTo(new Judgement(Decision.ASK, "push -> ask", "push needs approval"));
  }

  @Test
  void ruleWithoutReasonGetsOneFromItsDecision() {
    assertThat(PushRule.of("refs/heads/main", Decision.DENY, null).reason())
        .isEqualTo("push to refs/heads/main is denied");
    assertThat(PushRule.of("refs/heads/main", Decision.ASK, "  ").reason())
        .isEqualTo("push to refs/heads/main needs approval");
    assertThat(PushRule.of("refs/heads/*", Decision.ALLOW, null).reason())
        .isEqualTo("push to refs/heads/* is allowed");
  }

  @Test
  void refusesAMultiLineReason() {
    assertThatThrownBy(() -> PushRule.of("refs/heads/main", Decision.DENY, "one\ntwo"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a rule's reason must be one line: one\ntwo");
  }

  @Test
  void strictestLooksAtTheFallbackAndEveryRule() {
    assertThat(PushRules.ALLOW_ALL.strictest()).isEqualTo(Decision.ALLOW);
    assertThat(PushRules.of(List.of(PushRule.of("refs/heads/main", Decision.ASK, null))).strictest())
        .isEqualTo(Decision.ASK);
    assertThat(PushRules.of(Decision.DENY, List.of()).strictest()).isEqualTo(Decision.DENY);
  }

  @Test
  void equalRulesAreEqual() {
    PushRules a = PushRules.of(List.of(PushRule.of("refs/heads/main", Decision.ASK, "x")));
    PushRules b = PushRules.of(List.of(PushRule.of("refs/heads/main", Decision.ASK, "x")));
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b).isNotEqualTo(PushRules.ALLOW_ALL);
  }
}
