package dev.pushgate.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class GlobTest {
  private static final Glob.Dialect PATHS =
      new Glob.Dialect('/', true, true, Glob.DoubleStar.WHOLE_SEGMENTS, false, false);
  private static final Glob.Dialect REFS =
      new Glob.Dialect('/', false, false, Glob.DoubleStar.ANY_CHARACTERS, false, false);
  private static final Glob.Dialect HOSTS =
      new Glob.Dialect('.', false, false, Glob.DoubleStar.TWO_STARS, true, false);

  private static boolean matches(String glob, Glob.Dialect dialect, String s) {
    return Pattern.compile(Glob.compile(glob, dialect).regex()).matcher(s).matches();
  }

  @Test
  void writesOneExpressionBothEnginesRead() {
    assertThat(Glob.compile("src/**/*.p?", PATHS).regex())
        .isEqualTo("(?s)src\\/(?:[^\\/]*\\/)*[^\\/]*\\.p[^\\/]");
    assertThat(Glob.compile("*.Env", new Glob.Dialect(
        '/', true, true, Glob.DoubleStar.WHOLE_SEGMENTS, false, true)).regex())
        .isEqualTo("(?is)[^\\/]*\\.Env");
  }

  @Test
  void starMayBeEmptyOrNeedACharacter() {
    assertThat(matches("a*", PATHS, "a")).isTrue();
    assertThat(matches("refs/heads/*", REFS, "refs/heads/")).isFalse();
    assertThat(matches("refs/heads/*", REFS, "refs/heads/x/y")).isFalse();
  }

  @Test
  void doubleStarIsWholeSegmentsOrAnyCharacters() {
    assertThat(matches("a/**/b", PATHS, "a/b")).isTrue();
    assertThat(matches("a/**/b", PATHS, "a/x/y/b")).isTrue();
    assertThat(matches("refs/**", REFS, "refs/tags/v1/x")).isTrue();
    assertThat(matches("refs/**", REFS, "refs/")).isFalse();
  }

  @Test
  void aLeadingStarSpansLabelsAndAMiddleOneIsOneLabel() {
    assertThat(matches("*.example.com", HOSTS, "a.b.example.com")).isTrue();
    assertThat(matches("*.example.com", HOSTS, "example.com")).isFalse();
    assertThat(matches("bedrock.*.aws.com", HOSTS, "bedrock.x.aws.com")).isTrue();
    assertThat(matches("bedrock.*.aws.com", HOSTS, "bedrock.x.y.aws.com")).isFalse();
  }

  @Test
  void everythingElseIsItselfWildcardsMatchLineSeparatorsAndQuestionMarkIsAnOption() {
    assertThat(matches("a.b(c)[d]\\E$", PATHS, "a.b(c)[d]\\E$")).isTrue();
    assertThat(matches("a.b", PATHS, "axb")).isFalse();
    assertThat(matches("x*", PATHS, "x\u2028\n\u0085")).isTrue();
    assertThat(matches("\ud83d\ude00", PATHS, "\ud83d\ude00")).isTrue();
    assertThat(matches("a?", REFS, "ab")).isFalse();
    assertThat(matches("a?", REFS, "a?")).isTrue();
  }

  @Test
  void refusesAWildcardAsTheSeparator() {
    assertThatThrownBy(() -> new Glob.Dialect('*', true, true, Glob.DoubleStar.TWO_STARS, false,
        false)).isInstanceOf(IllegalArgumentException.class);
  }
}
