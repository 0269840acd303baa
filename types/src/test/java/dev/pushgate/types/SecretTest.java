package dev.pushgate.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SecretTest {
  @Test
  void neverPrintsItsValue() {
    Secret s = Secret.of("ghs_live_value");

    assertThat(s.toString()).doesNotContain("ghs_live_value");
    assertThat(String.valueOf(s)).isEqualTo("Secret[***]");
    assertThat(s.reveal()).isEqualTo("ghs_live_value");
  }

  @Test
  void equalSecretsAreEqualAndHashAlike() {
    assertThat(Secret.of("a-token")).isEqualTo(Secret.of("a-token"))
        .hasSameHashCodeAs(Secret.of("another"));
    assertThat(Secret.of("a-token")).isNotEqualTo(Secret.of("a-token2"));
    assertThat(Secret.of("a-token").matches(null)).isFalse();
  }

  @Test
  void refusesAnEmptyOrMissingValue() {
    assertThatThrownBy(() -> Secret.of("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Secret.of(null)).isInstanceOf(NullPointerException.class);
  }
}
