package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RefusalsTest {
  @Test
  void rendersAReasonAfterThePolicyPrefix() {
    assertThat(Refusals.render("push to main is denied"))
        .isEqualTo("Control Center policy: push to main is denied");
  }

  @Test
  void foldsNewlinesIntoOneLine() {
    assertThat(Refusals.render("first line\nsecond line\r\nthird line"))
        .isEqualTo("Control Center policy: first line second line third line");
  }

  @Test
  void foldsRunsOfControlCharactersIntoOneSpace() {
    assertThat(Refusals.render("a\t\u0000b\u001b[31mc\u007f"))
        .isEqualTo("Control Center policy: a b [31mc");
  }

  @Test
  void stripsSurroundingWhitespace() {
    assertThat(Refusals.render("  \n denied \n "))
        .isEqualTo("Control Center policy: denied");
  }

  @Test
  void anEmptyReasonStillSaysRefused() {
    assertThat(Refusals.render("")).isEqualTo("Control Center policy: refused");
  }

  @Test
  void aReasonOfOnlyControlCharactersSaysRefused() {
    assertThat(Refusals.render("\r\n\t\u0000 ")).isEqualTo("Control Center policy: refused");
  }

  /** Issue 31: git's terminal honours C1 controls and bidi overrides as it does C0 ones. */
  @Test
  void foldsC1ControlsBidiOverridesAndLineSeparatorsToo() {
    assertThat(Refusals.render("push to \u202eniam\u202c is denied\u009b2J\u2028fake: ok\u0085"))
        .isEqualTo("Control Center policy: push to niam is denied 2J fake: ok");
  }
}
