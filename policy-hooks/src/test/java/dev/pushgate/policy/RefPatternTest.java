package dev.pushgate.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RefPatternTest {
  @Test
  void exactPatternMatchesOnlyThatRef() {
    RefPattern p = RefPattern.parse("refs/heads/main");
    assertThat(p.matches("refs/heads/main")).isTrue();
    assertThat(p.matches("refs/heads/main2")).isFalse();
    assertThat(p.matches("refs/heads/mai")).isFalse();
    assertThat(p.matches("refs/heads/main/x")).isFalse();
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
    RefPattern p = RefPattern.parse("refs/heads/*");
    assertThat(p.matches("refs/heads/feature")).isTrue();
    assertThat(p.matches("refs/heads/feature/x")).isFalse();
    assertThat(p.matches("refs/heads/")).isFalse();
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
    RefPattern p = RefPattern.parse("refs/heads/**");
    assertThat(p.matches("refs/heads/feature")).isTrue();
    assertThat(p.matches("refs/heads/agent/run-1/x")).isTrue();
    assertThat(p.matches("refs/tags/v1")).isFalse();
  }

  @Test
  void starInsideASegmentMatchesTheRestOfIt() {
    RefPattern p = RefPattern.parse("refs/heads/release-*");
    assertThat(p.matches("refs/heads/release-1.2")).isTrue();
    assertThat(p.matches("refs/heads/release-")).isFalse();
    assertThat(p.matches("refs/heads/release-1/x")).isFalse();
  }

  @Test
  void regexCharactersAreLiteral() {
    RefPattern p = RefPattern.parse("refs/heads/a.b+c");
    assertThat(p.matches("refs/heads/a.b+c")).isTrue();
    assertThat(p.matches("refs/heads/axbbc")).isFalse();
  }

  @Test
  void exactRefIsMoreSpecificThanAnyWildcard() {
    RefPattern exact = RefPattern.parse("refs/heads/x");
    RefPattern wild = RefPattern.parse("refs/heads/very/long/literal/prefix/*");
    assertThat(exact.compareSpecificity(wild)).isPositive();
    assertThat(wild.compareSpecificity(exact)).isNegative();
  }

  @Test
  void moreLiteralCharactersAreMoreSpecific() {
    RefPattern longer = RefPattern.parse("refs/heads/agent/**");
    RefPattern shorter = RefPattern.parse("refs/heads/**");
    assertThat(longer.compareSpecificity(shorter)).isPositive();
    assertThat(shorter.compareSpecificity(longer)).isNegative();
  }

  @Test
  void singleStarIsMoreSpecificThanDoubleStarWithTheSameLiterals() {
    RefPattern one = RefPattern.parse("refs/heads/*");
    RefPattern any = RefPattern.parse("refs/heads/**");
    assertThat(one.compareSpecificity(any)).isPositive();
    assertThat(any.compareSpecificity(one)).isNegative();
    assertThat(one.compareSpecificity(RefPattern.parse("refs/heads/*"))).isZero();
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
