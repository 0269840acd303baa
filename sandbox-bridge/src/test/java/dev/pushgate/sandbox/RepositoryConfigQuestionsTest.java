package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The launcher's answers to the name-deny daemon's questions about a repository's config. */
class RepositoryConfigQuestionsTest {
  private static final String WAS = "[remote \"origin\"]\n\turl = https://github.com/a/b.git\n";
  private final List<SandboxViolation> reported = new ArrayList<>();

  private static String hex(String s) {
    return s.isEmpty() ? "-" : HexFormat.of().formatHex(s.getBytes(StandardCharsets.ISO_8859_1));
  }

  private String ask(String id, String was, String now, String path) {
    return RepositoryConfigQuestions.answer("judge-config " + id + " " + hex(was) + " " + hex(now)
        + " " + path, "/work/w", reported::add);
  }

  @Test
  void anUpstreamIsAnsweredYesAndNothingIsReported() {
    assertThat(ask("7", WAS, WAS + "[branch \"x\"]\n\tremote = origin\n", "/.git/config"))
        .isEqualTo("7 yes\n");
    assertThat(reported).isEmpty();
  }

  @Test
  void anyOtherEditIsAnsweredNoAndReportedWithItsReasonTheNameQuoted() {
    assertThat(ask("8", WAS, WAS + "[core]\n\tfsmonitor = x\n", "/sub dir/.git/config"))
        .isEqualTo("8 no\n");
    assertThat(reported).singleElement().satisfies(v -> {
      assertThat(v.target()).isEqualTo("/work/w/sub dir/.git/config");
      assertThat(RefusalReason.of(v)).startsWith(RefusalReason.CONFIG_EDIT)
          .contains("other than an upstream: \"core.fsmonitor\"");
    });
    // a config git would create from nothing is judged the same: no remote to name
    assertThat(ask("9", "", "[branch \"x\"]\n\tremote = origin\n", "/.git/config"))
        .isEqualTo("9 no\n");
  }

  @Test
  void aNameInTheReasonIsReadAsUtf8SoThatItsBidiControlIsEscaped() {
    // Attack 30c: read a byte a char, U+202E showed as three Latin-1 characters (mojibake).
    String now = WAS + "[branch \"a\u202eb\"]\n\tpushRemote = origin\n";
    String line = "judge-config 3 " + hex(WAS) + " "
        + HexFormat.of().formatHex(now.getBytes(StandardCharsets.UTF_8)) + " /.git/config";
    assertThat(RepositoryConfigQuestions.answer(line, "/work/w", reported::add))
        .isEqualTo("3 no\n");
    assertThat(reported).singleElement().satisfies(v -> assertThat(RefusalReason.of(v))
        .contains(": \"branch.a\\u202eb.pushremote\""));
  }

  @Test
  void aQuestionThatCannotBeReadIsRefusedOrLeftToTheDaemonsDeadline() {
    assertThat(RepositoryConfigQuestions.answer("judge-config x - - /.git/config", "/w",
        reported::add)).isNull();
    assertThat(RepositoryConfigQuestions.answer("judge-config 1 zz - /.git/config", "/w",
        reported::add)).isEqualTo("1 no\n");
    String huge = "judge-config 2 " + "61".repeat(RepositoryConfigQuestions.MAX_LINE) + " - /c";
    assertThat(RepositoryConfigQuestions.answer(huge, "/w", reported::add)).isEqualTo("2 no\n");
    assertThat(reported).hasSize(2);
  }
}
