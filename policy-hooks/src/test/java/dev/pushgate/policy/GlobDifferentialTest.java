package dev.pushgate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.types.Glob;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The ref pattern and content glob dialects of {@link Glob} against the compilers they replaced
 * (kept below, verbatim but for their names): on random and hostile globs, with no parser in front,
 * and random and hostile strings, the same answer, and for refs the same specificity counts.
 *
 * <p>One difference is deliberate: the old ref compiler quoted a pattern char by char, so a
 * character outside the BMP (two chars) never matched itself, and a rule naming such a ref did not
 * apply to it; those patterns are left out here and tested in {@link RefPatternTest}.
 */
class GlobDifferentialTest {
  /** Wildcards, separators, regex and quoting syntax, case pairs Unicode folds, odd code points. */
  static final String[] ALPHABET = {
    "*", "*", "**", "?", "/", "/", ".", "a", "A", "b", "k", "K", "\u212a", "s", "S", "\u017f",
    "\u0130", "\u0131", "i", "I", "\u00df", "\u1e9e", "\u03c3", "\u03c2", "\u03a3", "\n", "\r",
    "\u0085", "\u2028", "\u2029", "\0", "\u007f", " ", "\t", "\\", "\\E", "\\Q", "E", "Q", "[", "]",
    "^", "$", "(", ")", "|", "+", "{", "}", "-", "&", "#", "%", "\"", "'", ":", "~", "1", "0",
    "\ud83d\ude00", "\ud83d", "\ude00", "\u00e9", "e\u0301", "\ufeff", "\u200d", "\uff0f"
  };

  @Test
  void theRefPatternDialectMatchesAsTheOldRefCompilerDid() {
    Random random = new Random(31);
    int compared = 0;
    for (int p = 0; p < 3000; p++) {
      String glob = p % 2 == 0 ? randomString(random, 1 + random.nextInt(8))
          : "refs/" + randomString(random, random.nextInt(6));
      if (glob.codePoints().anyMatch(Character::isSupplementaryCodePoint)) {
        continue; // A deliberate change: RefPatternTest.aCharacterOutsideTheBmpMatchesItself.
      }
      OldRefPattern old = new OldRefPattern(glob);
      Glob now = Glob.compile(glob, RefPattern.DIALECT);
      java.util.regex.Pattern compiled = java.util.regex.Pattern.compile(now.regex());
      assertThat(now.literals()).as("literals of %s", glob).isEqualTo(old.literalChars);
      assertThat(now.spanning()).as("spanning of %s", glob).isEqualTo(old.spanningWildcards);
      for (String input : inputs(random, glob)) {
        assertThat(compiled.matcher(input).matches())
            .as("%s on %s", glob, input)
            .isEqualTo(old.regex.matcher(input).matches());
        compared++;
      }
    }
    assertThat(compared).isGreaterThan(50_000);
  }

  @Test
  void theContentGlobDialectMatchesAsTheOldContentCompilerDid() {
    Random random = new Random(3131);
    int matched = 0;
    for (int p = 0; p < 3000; p++) {
      String glob = randomString(random, 1 + random.nextInt(8));
      com.google.re2j.Pattern old = oldContentCompile(glob);
      com.google.re2j.Pattern now =
          com.google.re2j.Pattern.compile(Glob.compile(glob, ContentGlob.DIALECT).regex());
      for (String input : inputs(random, glob)) {
        boolean answer = old.matcher(input).matches();
        assertThat(now.matcher(input).matches()).as("%s on %s", glob, input).isEqualTo(answer);
        matched += answer ? 1 : 0;
      }
    }
    assertThat(matched).as("inputs that match, so that a match is compared too").isGreaterThan(5000);
  }

  /** Random strings, and the glob with each wildcard replaced by random text, so that many match. */
  static List<String> inputs(Random random, String glob) {
    List<String> out = new ArrayList<>();
    out.add(glob);
    out.add("");
    for (int i = 0; i < 10; i++) {
      out.add(randomString(random, random.nextInt(10)));
      StringBuilder filled = new StringBuilder();
      for (int c = 0; c < glob.length(); c++) {
        char ch = glob.charAt(c);
        if (ch == '*' || ch == '?') {
          filled.append(randomString(random, random.nextInt(3)).replace("*", "").replace("?", ""));
        } else {
          filled.append(random.nextInt(12) == 0 ? Character.toUpperCase(ch) : ch);
        }
      }
      out.add(filled.toString());
    }
    return out;
  }

  static String randomString(Random random, int parts) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < parts; i++) {
      s.append(ALPHABET[random.nextInt(ALPHABET.length)]);
    }
    return s.toString();
  }

  /** RefPattern's compiler before issue 31. */
  static final class OldRefPattern {
    final java.util.regex.Pattern regex;
    final int literalChars;
    final int spanningWildcards;

    OldRefPattern(String text) {
      StringBuilder re = new StringBuilder();
      int literal = 0;
      int spanning = 0;
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (c == '*') {
          if (i + 1 < text.length() && text.charAt(i + 1) == '*') {
            re.append(".+");
            spanning++;
            i++;
          } else {
            re.append("[^/]+");
          }
        } else {
          re.append(java.util.regex.Pattern.quote(String.valueOf(c)));
          literal++;
        }
      }
      this.regex = java.util.regex.Pattern.compile(re.toString(), java.util.regex.Pattern.DOTALL);
      this.literalChars = literal;
      this.spanningWildcards = spanning;
    }
  }

  /** ContentGlob's compiler before issue 31. */
  static com.google.re2j.Pattern oldContentCompile(String glob) {
    StringBuilder re = new StringBuilder();
    String[] segments = glob.split("/", -1);
    for (int s = 0; s < segments.length; s++) {
      String seg = segments[s];
      boolean last = s == segments.length - 1;
      if (seg.equals("**")) {
        re.append(last ? ".*" : "(?:[^/]*/)*");
        continue;
      }
      for (int i = 0; i < seg.length(); i++) {
        char c = seg.charAt(i);
        re.append(switch (c) {
          case '*' -> "[^/]*";
          case '?' -> "[^/]";
          default -> com.google.re2j.Pattern.quote(String.valueOf(c));
        });
      }
      if (!last) {
        re.append('/');
      }
    }
    return com.google.re2j.Pattern.compile(re.toString(),
        com.google.re2j.Pattern.CASE_INSENSITIVE | com.google.re2j.Pattern.DOTALL);
  }
}
