package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The egress host and protected-path dialects of {@code types.Glob} against the matchers they
 * replaced (kept below, verbatim but for their names): on random and hostile entries and names,
 * the same answer.
 */
class GlobDifferentialTest {
  private static final String[] LABEL = {
    "a", "b", "z", "0", "9", "-", "xn--", "A", "\u00e9", "\u212a", "*", "_", "\n", "\u2028",
    "\ud83d\ude00", "\\", "[", "]", ":", "+", "$"
  };
  private static final String[] NAME = {
    "*", "*", "?", "a", "A", "b", ".", "-", " ", "\n", "\u0085", "\u2028", "\\", "\\E", "\\Q",
    "[", "]", "(", ")", "^", "$", "|", "+", "{", "}", "\ud83d\ude00", "\ud83d", "\ude00", "\u00e9",
    "\0", "\u007f", "1"
  };

  @Test
  void theHostDialectMatchesAsTheOldHostMatcherDid() {
    Random random = new Random(31);
    int parsed = 0;
    int matched = 0;
    for (int p = 0; p < 20_000; p++) {
      String entry = randomEntry(random);
      HostPattern pattern;
      try {
        pattern = HostPattern.parse(entry);
      } catch (IllegalArgumentException refused) {
        continue;
      }
      parsed++;
      String text = pattern.toString();
      for (String host : hosts(random, text)) {
        boolean old = oldHostMatches(text, host);
        assertThat(pattern.matches(host)).as("%s on %s", text, host).isEqualTo(old);
        matched += old ? 1 : 0;
      }
    }
    assertThat(parsed).isGreaterThan(1000);
    assertThat(matched).isGreaterThan(1000);
  }

  @Test
  void theProtectedPathDialectMatchesAsTheOldComponentMatcherDid() throws Exception {
    Random random = new Random(3131);
    var componentMatches = PathGlob.class.getDeclaredMethod(
        "componentMatches", String.class, String.class);
    componentMatches.setAccessible(true);
    int matched = 0;
    for (int p = 0; p < 5000; p++) {
      String glob = random(random, NAME, 1 + random.nextInt(6));
      List<String> names = new ArrayList<>(List.of(glob, ""));
      for (int i = 0; i < 10; i++) {
        names.add(random(random, NAME, random.nextInt(6)));
        names.add(glob.replace("*", random(random, NAME, random.nextInt(3)).replace("*", ""))
            .replace("?", "a"));
      }
      for (String name : names) {
        boolean old = oldComponentMatches(glob, name);
        assertThat((boolean) componentMatches.invoke(null, glob, name))
            .as("%s on %s", glob, name).isEqualTo(old);
        matched += old ? 1 : 0;
      }
    }
    assertThat(matched).isGreaterThan(5000);
  }

  private static String randomEntry(Random random) {
    List<String> labels = new ArrayList<>();
    int n = 1 + random.nextInt(5);
    for (int i = 0; i < n; i++) {
      labels.add(random.nextInt(4) == 0 ? "*" : random(random, LABEL, 1 + random.nextInt(3)));
    }
    return String.join(".", labels);
  }

  /** Hosts around a pattern: its labels kept, a wildcard label filled in, labels added or cut. */
  private static List<String> hosts(Random random, String text) {
    List<String> out = new ArrayList<>(List.of(text, "", text.replace("*", ""), "." + text));
    for (int i = 0; i < 12; i++) {
      String fill = random(random, LABEL, random.nextInt(3)).replace("*", "");
      if (random.nextBoolean()) {
        fill = fill + "." + random(random, LABEL, 1);
      }
      out.add(text.replace("*", fill));
      out.add(random(random, LABEL, 1) + "." + text.replace("*", "x"));
      out.add(random(random, LABEL, random.nextInt(4)) + "." + random(random, LABEL, 2));
    }
    return out;
  }

  private static String random(Random random, String[] alphabet, int parts) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < parts; i++) {
      s.append(alphabet[random.nextInt(alphabet.length)]);
    }
    return s.toString();
  }

  /** HostPattern.matches before issue 31, its kind read off the canonical text. */
  private static boolean oldHostMatches(String text, String canonicalHost) {
    List<String> labels = List.of(text.split("\\.", -1));
    int star = labels.indexOf("*");
    if (star < 0) {
      return text.equals(canonicalHost);
    }
    if (star == 0) {
      String suffix = text.substring(1);
      return canonicalHost.length() > suffix.length() && canonicalHost.endsWith(suffix);
    }
    String[] host = canonicalHost.split("\\.", -1);
    if (host.length != labels.size()) {
      return false;
    }
    for (int i = 0; i < host.length; i++) {
      if (i == star ? host[i].isEmpty() : !host[i].equals(labels.get(i))) {
        return false;
      }
    }
    return true;
  }

  /** PathGlob.componentMatches before issue 31. */
  private static boolean oldComponentMatches(String pattern, String name) {
    StringBuilder regex = new StringBuilder();
    StringBuilder literal = new StringBuilder();
    for (char c : pattern.toCharArray()) {
      if (c == '*' || c == '?') {
        regex.append(Pattern.quote(literal.toString()));
        literal.setLength(0);
        regex.append(c == '*' ? "[^/]*" : "[^/]");
      } else {
        literal.append(c);
      }
    }
    regex.append(Pattern.quote(literal.toString()));
    return Pattern.compile(regex.toString(), Pattern.DOTALL).matcher(name).matches();
  }
}
