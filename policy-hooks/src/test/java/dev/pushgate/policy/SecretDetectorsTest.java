package dev.pushgate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SecretDetectorsTest {
  private final SecretDetectors detectors = SecretDetectors.standard();

  /**
   * Every gitleaks rule of the shipped file compiles in Java today. A new gitleaks version whose
   * rules Java cannot compile shows here: fix the translation, or raise this knowingly.
   */
  @Test
  void everyShippedRuleIsLoadedAndNoneIsSkipped() {
    assertThat(detectors.skipped()).isEmpty();
    assertThat(detectors.all()).hasSize(222);
  }

  @Test
  void theProvidersTheIssueNamesAreAllLoaded() {
    assertThat(detectors.ids()).contains("github-pat", "github-fine-grained-pat", "github-oauth",
        "aws-access-token", "gcp-api-key", "slack-bot-token", "slack-user-token",
        "stripe-access-token", "npm-access-token", "pypi-upload-token", "private-key",
        "generic-api-key");
  }

  @Test
  void translatesWhatGoAndJavaRegexesSpellApart() {
    assertThat(SecretDetectors.compile("(?P<key_ops>a)\\${x}[[:alnum:]]{2}").matcher("a${x}b1")
        .matches()).isTrue();
  }

  @Test
  void entropyIsShannonsInBitsPerCharacter() {
    assertThat(SecretDetector.shannonEntropy("aaaa")).isZero();
    assertThat(SecretDetector.shannonEntropy("abcd")).isEqualTo(2.0);
  }
}
