package dev.pushgate.types;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UntrustedTextTest {
  @Test
  void escapesControlCharactersAndBoundsTheLength() {
    assertThat(UntrustedText.printable("a\nb\u0000c\u007f")).isEqualTo("a\\x0ab\\x00c\\x7f");
    assertThat(UntrustedText.printable("x".repeat(500))).hasSize(201).endsWith("…");
    assertThat(UntrustedText.printable(null)).isEqualTo("(none)");
    assertThat(UntrustedText.printable("")).isEqualTo("\"\"");
  }

  @Test
  void tellsTextWithAControlCharacter() {
    assertThat(UntrustedText.hasControl("main\r")).isTrue();
    assertThat(UntrustedText.hasControl("refs/heads/main")).isFalse();
  }
}
