package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.policy.Decision;
import dev.pushgate.policy.PushRule;
import dev.pushgate.policy.PushRules;
import dev.pushgate.policy.RefPattern;
import dev.pushgate.policy.UpdateKind;
import java.util.List;
import java.util.Set;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.junit.jupiter.api.Test;

/** One verdict per command, read alike by the early refusal, the mint, streaming and the hook. */
class VerdictTest {
  private static final ObjectId ZERO = ObjectId.zeroId();
  private static final ObjectId A = ObjectId.fromString("a".repeat(40));
  private static final ObjectId B = ObjectId.fromString("b".repeat(40));
  private static final PushRules RULES = PushRules.of(List.of(
      PushRule.of("refs/heads/main", Decision.DENY, "push to main is denied"),
      PushRule.of("refs/heads/release/*", Decision.ASK, "a person decides releases"),
      new PushRule(RefPattern.parse("refs/heads/feature/**"), Set.of(UpdateKind.FORCE),
          Decision.DENY, "no force pushes"),
      new PushRule(RefPattern.parse("refs/heads/wip/**"), Set.of(UpdateKind.FORCE),
          Decision.ASK, "ask before forcing")));

  private static Verdict verdict(String ref, ObjectId oldId, ObjectId newId) {
    return Verdict.of(RULES, ref, oldId, newId);
  }

  @Test
  void aDeniedRefIsDeniedWhateverThePackWithOneJudgement() {
    Verdict v = verdict("refs/heads/main", A, B);

    assertThat(v.verdict()).isEqualTo(Verdict.Case.DENIED);
    assertThat(v.kindBeforeThePack()).isEqualTo(Verdict.UPDATE_OR_FORCE);
    assertThat(v.judgementWhateverThePack().reason()).isEqualTo("push to main is denied");
    assertThat(v.mayBeAllowedOutright()).isFalse();
  }

  @Test
  void anUpdateTheRulesJudgeDifferentlyAsForceIsDecidedByThePack() {
    Verdict v = verdict("refs/heads/feature/x", A, B);

    assertThat(v.verdict()).isEqualTo(Verdict.Case.BY_THE_PACK);
    assertThat(v.mayBeAllowedOutright()).as("a fast-forward would be allowed").isTrue();
    assertThat(v.allowedWhateverThePack()).isFalse();
    assertThat(v.judgement(new ReceiveCommand(A, B, "refs/heads/feature/x")).decision())
        .isEqualTo(Decision.ALLOW);
    assertThat(v.judgement(new ReceiveCommand(A, B, "refs/heads/feature/x",
        ReceiveCommand.Type.UPDATE_NONFASTFORWARD)).reason()).isEqualTo("no force pushes");
    // an update that is allowed or asked about depending on the pack: no token before the pack
    assertThat(verdict("refs/heads/wip/x", A, B).verdict()).isEqualTo(Verdict.Case.BY_THE_PACK);
  }

  @Test
  void aCreateIsKnownFromItsIdsAndCannotBeAForce() {
    Verdict v = verdict("refs/heads/feature/x", ZERO, B);

    assertThat(v.verdict()).isEqualTo(Verdict.Case.ALLOWED);
    assertThat(v.kindBeforeThePack()).isEqualTo("create");
    assertThat(v.mayBeAllowedOutright()).isTrue();
    assertThat(verdict("refs/heads/release/1", ZERO, B).verdict()).isEqualTo(Verdict.Case.ASK);
    assertThat(verdict("refs/heads/main", A, ZERO).kindBeforeThePack()).isEqualTo("delete");
  }

  @Test
  void aCommandThatChangesNothingIsLeftToJgitUnlessItIsDenied() {
    assertThat(verdict("refs/heads/x", A, A).verdict()).isEqualTo(Verdict.Case.BY_THE_PACK);
    assertThat(verdict("refs/heads/x", A, A).mayBeAllowedOutright()).isFalse();
    assertThat(verdict("refs/heads/x", ZERO, ZERO).verdict()).isEqualTo(Verdict.Case.BY_THE_PACK);
    assertThat(verdict("refs/heads/main", A, A).verdict()).isEqualTo(Verdict.Case.DENIED);
  }

  @Test
  void theListIsJudgedOnceAndReadByEveryEarlyDecision() {
    JudgedCommands denied = JudgedCommands.read(RULES, List.of(
        A.name() + " " + B.name() + " refs/heads/main\0report-status")).orElseThrow();
    JudgedCommands mixed = JudgedCommands.read(RULES, List.of(
        ZERO.name() + " " + B.name() + " refs/heads/ok\0report-status",
        ZERO.name() + " " + B.name() + " refs/heads/release/1")).orElseThrow();

    assertThat(denied.everyCommandDenied()).isTrue();
    assertThat(denied.anyAllowedOutright()).isFalse();
    assertThat(mixed.everyCommandDenied()).isFalse();
    assertThat(mixed.everyCommandAllowed()).isFalse();
    assertThat(mixed.anyAllowedOutright()).isTrue();
    assertThat(mixed.verdictOf("refs/heads/release/1", ZERO, B))
        .hasValueSatisfying(v -> assertThat(v.verdict()).isEqualTo(Verdict.Case.ASK));
    assertThat(mixed.verdictOf("refs/heads/release/1", A, B)).isEmpty();
  }
}
