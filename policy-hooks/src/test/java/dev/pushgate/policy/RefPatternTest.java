package dev.pushgate.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RefPatternTest {
  private static void assertMatches(String pattern, List<String> matched, List<String> unmatched) {
    RefPattern p = RefPattern.parse(pattern);
    assertThat(matched).as("refs %s matches", pattern).allMatch(p::matches);
    assertThat(unmatched).as("refs %s does not match", pattern).noneMatch(p::matches);
  }

  /** Checks that {@code more} is more specific than {@code less}, compared either way round. */
  private static void assertMoreSpecific(String more, String less) {
    assertThat(RefPattern.parse(more).compareSpecificity(RefPattern.parse(less))).isPositive();
    assertThat(RefPattern.parse(less).compareSpecificity(RefPattern.parse(more))).isNegative();
  }

  @Test
  void exactPatternMatchesOnlyThatRef() {
    assertMatches("refs/heads/main", List.of("refs/heads/main"),
        List.of("refs/heads/main2", "refs/heads/mai", "refs/heads/main/x"));
  }

  /**
   * A character outside the BMP is two chars; the pattern was once quoted char by char, so such a
   * rule never matched its own ref and a deny of it did not apply.
   */
  @Test
  void aCharacterOutsideTheBmpMatchesItself() {
    assertThat(RefPattern.parse("refs/heads/\ud83d\ude00").matches("refs/heads/\ud83d\ude00")).isTrue();
    assertThat(RefPattern.parse("refs/heads/\ud83d\ude00*").matches("refs/heads/\ud83d\ude00x"))
        .isTrue();
    assertThat(PushRules.of(List.of(PushRule.of("refs/heads/\ud83d\ude00", Decision.DENY, null)))
        .judge("refs/heads/\ud83d\ude00", UpdateKind.UPDATE).decision())
        .isEqualTo(Decision.DENY);
  }

  @Test
  void singleStarStaysWithinOneSegment() {
    assertMatches("refs/heads/*", List.of("refs/heads/feature"),
        List.of("refs/heads/feature/x", "refs/heads/"));
  }

  /** Java's "." stops at line terminators; a ref holding one must not slip past a wildcard. */
  @Test
  void wildcardsMatchRefsHoldingLineSeparators() {
    for (String odd : new String[] {"\u2028", "\u2029", "\u0085"}) {
      assertThat(RefPattern.parse("refs/heads/**").matches("refs/heads/ma" + odd + "in")).isTrue();
      assertThat(RefPattern.parse("refs/heads/*").matches("refs/heads/x" + odd)).isTrue();
      assertThat(RefPattern.parse("refs/heads/main").matches("refs/heads/main" + odd)).isFalse();
    }
  }

  @Test
  void doubleStarSpansSegments() {
    assertMatches("refs/heads/**", List.of("refs/heads/feature", "refs/heads/agent/run-1/x"),
        List.of("refs/tags/v1"));
  }

  @Test
  void starInsideASegmentMatchesTheRestOfIt() {
    assertMatches("refs/heads/release-*", List.of("refs/heads/release-1.2"),
        List.of("refs/heads/release-", "refs/heads/release-1/x"));
  }

  @Test
  void regexCharactersAreLiteral() {
    assertMatches("refs/heads/a.b+c", List.of("refs/heads/a.b+c"), List.of("refs/heads/axbbc"));
  }

  @Test
  void exactRefIsMoreSpecificThanAnyWildcard() {
    assertMoreSpecific("refs/heads/x", "refs/heads/very/long/literal/prefix/*");
  }

  @Test
  void moreLiteralCharactersAreMoreSpecific() {
    assertMoreSpecific("refs/heads/agent/**", "refs/heads/**");
  }

  @Test
  void singleStarIsMoreSpecificThanDoubleStarWithTheSameLiterals() {
    assertMoreSpecific("refs/heads/*", "refs/heads/**");
    assertThat(RefPattern.parse("refs/heads/*").compareSpecificity(RefPattern.parse("refs/heads/*")))
        .isZero();
  }

  @Test
  void equalityIsByText() {
    assertThat(RefPattern.parse("refs/heads/*")).isEqualTo(RefPattern.parse("refs/heads/*"))
        .hasSameHashCodeAs(RefPattern.parse("refs/heads/*"))
        .hasToString("refs/heads/*")
        .isNotEqualTo(RefPattern.parse("refs/heads/**"));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "\"\"                  | a ref pattern is empty",
      "heads/main          | ref pattern must start with refs/ (for example refs/heads/main): heads/main",
      "refs/heads/a b      | ref pattern has a forbidden character 0x20 at 12: refs/heads/a b",
      "refs/heads/a~1      | ref pattern has a forbidden character 0x7e at 12: refs/heads/a~1",
      "refs/heads/a:b      | ref pattern has a forbidden character 0x3a at 12: refs/heads/a:b",
      "refs/heads/[ab]     | ref pattern has a forbidden character 0x5b at 11: refs/heads/[ab]",
      "refs//x             | ref pattern has an empty, . or .. segment: refs//x",
      "refs/heads/         | ref pattern has an empty, . or .. segment: refs/heads/",
      "refs/heads/../x     | ref pattern has an empty, . or .. segment: refs/heads/../x",
      "refs/heads/a**      | ** must be a whole path segment: refs/heads/a**",
      "refs/heads/***      | ** must be a whole path segment: refs/heads/***",
  })
  void refusesMalformedPatterns(String text, String message) {
    assertThatThrownBy(() -> RefPattern.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Test
  void refusesNullAndControlCharacters() {
    assertThatThrownBy(() -> RefPattern.parse(null)).hasMessage("a ref pattern is empty");
    assertThatThrownBy(() -> RefPattern.parse("refs/heads/a\nb"))
        .hasMessage("ref pattern has a forbidden character 0x0a at 12: refs/heads/a\nb");
  }
}
