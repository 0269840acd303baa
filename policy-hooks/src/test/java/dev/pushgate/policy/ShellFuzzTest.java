package dev.pushgate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Coverage-guided fuzzing of the shell reader and the command policy (docs/fuzzing.md). The input
 * is the command line, as UTF-8. {@code mvn test} runs the seeds under {@code
 * ShellFuzzTestInputs/}; {@code JAZZER_FUZZ=1} fuzzes.
 */
class ShellFuzzTest {
  private static final List<WorkspaceRules> RULES = rules();
  // review and orchestrate are read-only as plan is, and judged the same way
  private static final Mode[] MODES = {Mode.CHAT, Mode.PLAN};

  /**
   * The parser refuses only with {@link ShellSyntaxException} (anything else would surface as
   * "could not be classified"); {@link CommandPolicy#judge} never throws, gives one line, never
   * allows a line it cannot parse, is never looser in a read-only mode than in chat, and never
   * looser under stricter workspace rules.
   */
  @FuzzTest(maxDuration = "2m")
  void judgeNeverThrowsAndNeverAllowsWhatItCannotParse(byte[] input) {
    String line = new String(input, StandardCharsets.UTF_8);
    boolean parses;
    try {
      CommandClassifier.classify(ShellParser.parse(line));
      parses = true;
    } catch (ShellSyntaxException e) {
      parses = false;
    }
    Decision[] looser = new Decision[MODES.length];
    for (WorkspaceRules rules : RULES) {
      Decision[] now = new Decision[MODES.length];
      for (int m = 0; m < MODES.length; m++) {
        CommandJudgement j = CommandPolicy.judge(line, MODES[m], rules);
        assertThat(j.reason()).doesNotContain("could not be classified");
        if (!parses) {
          assertThat(j.decision()).isNotEqualTo(Decision.ALLOW);
        }
        now[m] = j.decision();
      }
      assertThat(now[1]).as("plan against chat under %s", rules).isGreaterThanOrEqualTo(now[0]);
      for (int m = 0; m < MODES.length; m++) {
        if (looser[m] != null) {
          assertThat(now[m]).as("under %s", rules).isGreaterThanOrEqualTo(looser[m]);
        }
      }
      looser = now;
    }
  }

  // from loosest to strictest: each allows nothing the one before denies
  private static List<WorkspaceRules> rules() {
    PushRules scoped = PushRules.of(List.of(
        PushRule.of("refs/heads/main", Decision.ASK, "main needs a human"),
        new PushRule(RefPattern.parse("refs/heads/**"), java.util.Set.of(UpdateKind.FORCE,
            UpdateKind.DELETE), Decision.DENY, null)));
    WorkspaceRules asks = WorkspaceRules.of(Map.of(ActionClass.COMMIT, Decision.ASK,
        ActionClass.INSTALL_PACKAGE, Decision.ASK), scoped, null);
    Map<ActionClass, Decision> denyAll = new java.util.EnumMap<>(ActionClass.class);
    for (ActionClass a : ActionClass.values()) {
      if (a != ActionClass.PUSH) {
        denyAll.put(a, Decision.DENY);
      }
    }
    WorkspaceRules denies = WorkspaceRules.of(denyAll, PushRules.of(Decision.DENY, List.of()),
        null);
    return List.of(WorkspaceRules.DEFAULT, asks, denies);
  }
}
