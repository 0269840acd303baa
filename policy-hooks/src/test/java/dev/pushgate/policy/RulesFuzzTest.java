package dev.pushgate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Coverage-guided fuzzing of the workspace rules document reader (docs/fuzzing.md). The input is
 * the document, as UTF-8: YAML, or JSON when it starts with <code>{</code>.
 */
class RulesFuzzTest {
  /**
   * A document is either refused with a {@link RulesException} whose message is one line with a
   * location, or read into rules whose {@link WorkspaceRules#toJson()} reads back equal, as a JSON
   * tree and as JSON text. No other exception escapes.
   */
  @FuzzTest(maxDuration = "2m")
  void parseRefusesWithRulesExceptionOrRoundTrips(byte[] input) throws RulesException {
    String text = new String(input, StandardCharsets.UTF_8);
    WorkspaceRules rules;
    try {
      rules = WorkspaceRules.parse(text);
    } catch (RulesException e) {
      assertThat(e.getMessage()).doesNotContain("\n", "\r").startsWith("line ");
      assertThat(e.line()).isPositive();
      assertThat(e.column()).isPositive();
      return;
    }
    assertThat(WorkspaceRules.fromJson(rules.toJson())).isEqualTo(rules);
    assertThat(WorkspaceRules.parse(rules.toJson().toString())).isEqualTo(rules);
  }
}
