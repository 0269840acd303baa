package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A refusal as git prints it: the policy prefix, then the reason as one printable line. */
class RefusalsTest {
  static Stream<Arguments> reasons() {
    return Stream.of(
        Arguments.of("renders a reason after the policy prefix", "push to main is denied",
            "Control Center policy: push to main is denied"),
        Arguments.of("folds newlines into one line", "first line\nsecond line\r\nthird line",
            "Control Center policy: first line second line third line"),
        Arguments.of("folds runs of control characters into one space",
            "a\t\u0000b\u001b[31mc\u007f", "Control Center policy: a b [31mc"),
        Arguments.of("strips surrounding whitespace", "  \n denied \n ",
            "Control Center policy: denied"),
        Arguments.of("an empty reason still says refused", "", "Control Center policy: refused"),
        Arguments.of("a reason of only control characters says refused", "\r\n\t\u0000 ",
            "Control Center policy: refused"),
        // Issue 31: git's terminal honours C1 controls and bidi overrides as it does C0 ones.
        Arguments.of("folds C1 controls, bidi overrides and line separators too",
            "push to \u202eniam\u202c is denied\u009b2J\u2028fake: ok\u0085",
            "Control Center policy: push to niam is denied 2J fake: ok"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("reasons")
  void rendersTheReasonAsOnePrintableLine(String behaviour, String reason, String shown) {
    assertThat(Refusals.render(reason)).isEqualTo(shown);
  }
}
