package dev.pushgate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LeadingLiteralsTest {
  @Test
  void readsTheLiteralsEveryMatchStartsWith() {
    assertThat(LeadingLiterals.of("ghp_[0-9a-zA-Z]{36}")).contains(Set.of("ghp_"));
    assertThat(LeadingLiterals.of("\\b((?:A3T[A-Z0-9]|AKIA|ASIA))"))
        .contains(Set.of("a3t", "akia", "asia"));
    assertThat(LeadingLiterals.of("(?i)(?:access|auth|(?-i:[Aa]pi|API)|passw(?:or)?d)x"))
        .contains(Set.of("access", "auth", "api", "passw"));
    assertThat(LeadingLiterals.of("abc|def")).contains(Set.of("abc", "def"));
    assertThat(LeadingLiterals.of("abcd?e")).contains(Set.of("abc"));
  }

  /** A {@code |} inside a class that starts with {@code ]} separates no alternatives. */
  @Test
  void aClassStartingWithItsClosingBracketIsOneClassWhenSplittingAlternatives() {
    assertThat(LeadingLiterals.of("ab[]|cd]ef")).contains(Set.of("ab"));
    assertThat(LeadingLiterals.of("(?:ab[]|cd]|xy)z")).contains(Set.of("ab", "xy"));
  }

  @Test
  void givesNoAnswerWhenAMatchMayStartOtherwise() {
    assertThat(LeadingLiterals.of("[a-z]{3}token")).isEqualTo(Optional.empty());
    assertThat(LeadingLiterals.of("(?:abc)?def")).isEqualTo(Optional.empty());
    assertThat(LeadingLiterals.of("abc|[0-9]+")).isEqualTo(Optional.empty());
    assertThat(LeadingLiterals.of("(?=abc)abc")).isEqualTo(Optional.empty());
    assertThat(LeadingLiterals.of("a.*")).isEqualTo(Optional.empty());
  }
}
