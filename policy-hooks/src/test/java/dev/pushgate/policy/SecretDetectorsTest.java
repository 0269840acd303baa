package dev.pushgate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SecretDetectorsTest {
  private final SecretDetectors detectors = SecretDetectors.standard();

  /**
   * Every gitleaks rule of the shipped file compiles in RE2/J today. A new gitleaks version whose
   * rules RE2/J cannot compile shows here: the list of skipped rules is pinned (empty).
   */
  @Test
  void everyShippedRuleIsLoadedAndNoneIsSkipped() {
    assertThat(detectors.skipped()).isEmpty();
    assertThat(detectors.all()).hasSize(222 + SecretDetectors.OWN_IDS.size());
    assertThat(detectors.all().subList(222, detectors.all().size()))
        .extracting(SecretDetector::id).containsExactlyElementsOf(SecretDetectors.OWN_IDS);
  }

  @Test
  void theProvidersTheIssueNamesAreAllLoaded() {
    assertThat(detectors.ids()).contains("github-pat", "github-fine-grained-pat", "github-oauth",
        "aws-access-token", "gcp-api-key", "slack-bot-token", "slack-user-token",
        "stripe-access-token", "npm-access-token", "pypi-upload-token", "private-key",
        "generic-api-key");
  }

  /**
   * Every regex a detector runs is RE2/J's, linear in the text: none backtracks, so no file can be
   * crafted to make a push slow to judge (java.util.regex took 46 s over a 64 KiB line of "curl ";
   * the timings are in docs/benchmarks.md, not in a test).
   */
  @Test
  void everyDetectorRegexIsRe2j() {
    for (SecretDetector d : detectors.all()) {
      java.util.List<Object> patterns = new java.util.ArrayList<>();
      patterns.add(d.regex());
      patterns.add(d.fast());
      patterns.add(d.path());
      d.allowlists().forEach(a -> {
        patterns.addAll(a.regexes());
        patterns.addAll(a.paths());
      });
      patterns.addAll(detectors.globalAllowlist().regexes());
      patterns.addAll(detectors.globalAllowlist().paths());
      assertThat(patterns).as(d.id()).filteredOn(java.util.Objects::nonNull)
          .allSatisfy(p -> assertThat(p).isInstanceOf(com.google.re2j.Pattern.class));
    }
    assertThat(detectors.all()).filteredOn(d -> d.regex() != null).hasSizeGreaterThan(200);
  }

  /**
   * Every regex also has its java.util.regex prefilter, which only says quickly where no match
   * starts (RE2/J's NFA alone is some 40 times slower on ordinary code). A regex Java cannot
   * compile would run on RE2/J alone: correct, slower; this pins the list (empty).
   */
  @Test
  void everyRegexHasItsJavaPrefilter() {
    assertThat(detectors.all()).filteredOn(d -> d.regex() != null && d.prefilter() == null)
        .extracting(SecretDetector::id).isEmpty();
  }

  @Test
  void compilesGoRegexesAsWritten() {
    assertThat(SecretDetectors.compile("(?P<key_ops>a)\\${x}[[:alnum:]]{2}").matcher("a${x}b1")
        .matches()).isTrue();
  }

  @Test
  void entropyIsShannonsInBitsPerCharacter() {
    assertThat(SecretDetector.shannonEntropy("aaaa")).isZero();
    assertThat(SecretDetector.shannonEntropy("abcd")).isEqualTo(2.0);
  }
}
