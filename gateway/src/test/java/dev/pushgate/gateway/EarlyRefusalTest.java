package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.policy.Decision;
import dev.pushgate.policy.PushRule;
import dev.pushgate.policy.PushRules;
import dev.pushgate.policy.RefPattern;
import dev.pushgate.policy.UpdateKind;
import java.io.ByteArrayInputStream;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which pushes are refused from their command list alone, and which go on to JGit. */
class EarlyRefusalTest {
  private static final String ZERO = "0".repeat(40);
  private static final String A = "a".repeat(40);
  private static final String B = "b".repeat(40);
  private static final PushRules RULES = PushRules.of(List.of(
      PushRule.of("refs/heads/main", Decision.DENY, "push to main is denied"),
      PushRule.of("refs/heads/release/*", Decision.ASK, "a person decides releases"),
      new PushRule(RefPattern.parse("refs/heads/feature/**"), Set.of(UpdateKind.FORCE),
          Decision.DENY, "no force pushes"),
      new PushRule(RefPattern.parse("refs/tags/**"), Set.of(UpdateKind.DELETE), Decision.DENY,
          "tags stay")));

  private static Optional<EarlyRefusal.Request> judge(String... lines) {
    return JudgedCommands.read(RULES, List.of(lines)).flatMap(EarlyRefusal::judge);
  }

  private static Optional<EarlyRefusal.Request> duplicatedRefs(List<String> lines) {
    return CommandList.parse(lines).flatMap(EarlyRefusal::duplicatedRefs);
  }

  @Test
  void anUpdateOfADeniedRefIsRefusedWhateverItsHistory() {
    EarlyRefusal.Request r = judge(A + " " + B + " refs/heads/main\0report-status side-band-64k"
        + " atomic agent=git/2.39.5\n").orElseThrow();

    assertThat(r.refused()).singleElement().satisfies(x -> {
      assertThat(x.ref()).isEqualTo("refs/heads/main");
      assertThat(x.kind()).isEqualTo(Verdict.UPDATE_OR_FORCE);
      assertThat(x.judgement().reason()).isEqualTo("push to main is denied");
    });
    assertThat(r.capabilities()).contains("report-status", "side-band-64k", "atomic");
    assertThat(r.reportStatus()).isTrue();
    assertThat(r.sideBand()).isTrue();
  }

  @Test
  void aPushNamingOneRefTwiceIsRefusedWholeWithGitsWordsWhateverTheRules() {
    EarlyRefusal.Request r = duplicatedRefs(List.of(
        ZERO + " " + B + " refs/heads/ok\0report-status\n", ZERO + " " + A + " refs/heads/x\n",
        A + " " + ZERO + " refs/heads/x\n")).orElseThrow();

    assertThat(r.code()).isEqualTo(RefusalCode.INVALID_COMMAND);
    assertThat(r.refused()).extracting(EarlyRefusal.Refused::ref, EarlyRefusal.Refused::kind)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("refs/heads/ok", "create"),
            org.assertj.core.groups.Tuple.tuple("refs/heads/x", "create"),
            org.assertj.core.groups.Tuple.tuple("refs/heads/x", "delete"));
    assertThat(r.refused()).allSatisfy(x -> assertThat(x.judgement().reason())
        .isEqualTo("multiple updates for ref 'refs/heads/x' not allowed; nothing was pushed"));
    assertThat(r.reportStatus()).isTrue();
  }

  @Test
  void distinctRefsAreNoDuplicate() {
    assertThat(duplicatedRefs(List.of(
        ZERO + " " + B + " refs/heads/a\0report-status\n", ZERO + " " + B + " refs/heads/A\n",
        ZERO + " " + B + " refs/tags/a\n"))).isEmpty();
    assertThat(judge(ZERO + " " + B + " refs/heads/main\0report-status\n").orElseThrow().code())
        .isEqualTo(RefusalCode.RULE_DENIED);
  }

  @Test
  void createsAndDeletesHaveTheirKindFromTheIds() {
    EarlyRefusal.Request r = judge(ZERO + " " + B + " refs/heads/main\0report-status\n",
        A + " " + ZERO + " refs/tags/v1\n").orElseThrow();

    assertThat(r.refused()).extracting(EarlyRefusal.Refused::kind)
        .containsExactly("create", "delete");
    assertThat(r.sideBand()).isFalse();
  }

  @Test
  void aRuleThatDependsOnFastForwardOrForceWaitsForThePack() {
    assertThat(judge(A + " " + B + " refs/heads/feature/x\0report-status\n")).isEmpty();
  }

  @Test
  void oneCommandNotDeniedOutrightSendsTheWholePushToJGit() {
    assertThat(judge(A + " " + B + " refs/heads/main\0report-status\n",
        ZERO + " " + B + " refs/heads/feature\n")).as("an allowed create").isEmpty();
    assertThat(judge(A + " " + B + " refs/heads/main\0report-status\n",
        A + " " + B + " refs/heads/release/1\n")).as("an ask").isEmpty();
  }

  @Test
  void malformedCommandsAreLeftToJGitToRefuse() {
    for (String line : new String[] {
        "", "\n", A + " " + B, A + " " + B + " refs/heads/main extra", "g".repeat(40) + " " + B
            + " refs/heads/main", A + " " + B + " main", A + " " + B + " refs/heads/ma..in",
        ZERO + " " + ZERO + " refs/heads/main", A + "  " + B + " refs/heads/main",
        A.substring(1) + " " + B + " refs/heads/main"}) {
      assertThat(judge(line)).as(line).isEmpty();
    }
    assertThat(judge()).isEmpty();
    assertThat(judge(A + " " + B + " refs/heads/main\n", B + " " + A + " refs/heads/main\0x\n"))
        .as("capabilities after the first line").isEmpty();
  }

  @Test
  void theBodyIsDiscardedUpToItsLimit() throws Exception {
    assertThat(EarlyRefusal.discard(new ByteArrayInputStream(new byte[100_000]), 100_000)).isTrue();
    assertThat(EarlyRefusal.discard(new ByteArrayInputStream(new byte[100_001]), 100_000))
        .isFalse();
  }
}
