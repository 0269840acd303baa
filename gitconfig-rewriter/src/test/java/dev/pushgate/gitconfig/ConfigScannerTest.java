package dev.pushgate.gitconfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.types.UntrustedText;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConfigScannerTest {
  private static final Pattern BAD_LINE = Pattern.compile("bad config line (\\d+) in file");

  @TempDir Path dir;

  @Test
  void readsSectionsSubsectionsAndValuesAsGitDoes() throws Exception {
    List<ConfigEntry> entries = ConfigScanner.scan("""
        # comment
        [Remote "Origin"]
        \tPushURL = "https://github.com/a/b.git" ; trailing comment
        \tbare
        [remote.Old] k = a \\
          b
        """);
    assertThat(entries).extracting(ConfigEntry::variable, ConfigEntry::value).containsExactly(
        org.assertj.core.groups.Tuple.tuple("remote.Origin.pushurl", "https://github.com/a/b.git"),
        org.assertj.core.groups.Tuple.tuple("remote.Origin.bare", null),
        // git emits the pending space before a continuation, then counts the indent
        org.assertj.core.groups.Tuple.tuple("remote.old.k", "a   b"));
    ConfigEntry first = entries.get(0);
    assertThat(first.section()).isEqualTo("remote");
    assertThat(first.subsection()).isEqualTo("Origin");
    assertThat(first.key()).isEqualTo("pushurl");
    assertThat(first.line()).isEqualTo(3);
  }

  @Test
  void recordsTheValueSpanFromAfterTheEqualsSignToTheClosingQuote() throws Exception {
    String text = "[a]\n\tk = \"x y\"  # c\n";
    ConfigEntry e = ConfigScanner.scan(text).get(0);
    assertThat(text.substring(e.valueStart(), e.valueEnd())).isEqualTo(" \"x y\"");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      [a]\\n\\tk = "open\\n                  | 2
      [a]\\n\\tk = bad\\\\q\\n               | 2
      [a\\n                                | 1
      [a "sub]\\n                          | 1
      [a]\\n1k = v\\n                      | 2
      [a]\\nk v\\n                         | 2
      [a]\\n\\n\\nk = ok\\nk: x\\n         | 5
      """)
  void refusesWhatGitRefusesOnTheSameLine(String escaped, int line) throws IOException {
    String text = escaped.replace("\\n", "\n").replace("\\t", "\t").replace("\\\\", "\\");
    assertThatThrownBy(() -> ConfigScanner.scan(text))
        .isInstanceOf(ConfigSyntaxException.class)
        .hasMessage("bad config line " + line);
    assertThat(gitOutcome(text)).isEqualTo("error at line " + line);
  }

  @Test
  void skipsAByteOrderMarkAndRefusesAPartialOne() throws Exception {
    assertThat(ConfigScanner.scan("\u00ef\u00bb\u00bf[a]\nk = v\n"))
        .extracting(ConfigEntry::variable).containsExactly("a.k");
    assertThatThrownBy(() -> ConfigScanner.scan("\u00ef\u00bb[a]\n"))
        .isInstanceOf(ConfigSyntaxException.class).hasMessage("bad config line 1");
  }

  /**
   * Random, mostly config-shaped files: the scanner must accept exactly what git accepts, report
   * the same line when both refuse, and read the same entries; and replacing every value at its
   * recorded span must read back, in git, as the new values with everything else unchanged.
   */
  @Test
  void agreesWithGitOnRandomFiles() throws Exception {
    Fuzz fuzz = new Fuzz(7L);
    int accepted = 0;
    int refused = 0;
    for (int i = 0; i < 250; i++) {
      String text = randomConfig(fuzz);
      String ours;
      List<ConfigEntry> entries = null;
      try {
        entries = ConfigScanner.scan(text);
        ours = render(entries);
        accepted++;
      } catch (ConfigSyntaxException e) {
        ours = "error at line " + e.line();
        refused++;
      }
      assertThat(ours).as("scanning %s", UntrustedText.printable(text)).isEqualTo(gitOutcome(text));
      if (entries != null) {
        checkSpans(text, entries);
      }
    }
    assertThat(accepted).isGreaterThan(50);
    assertThat(refused).isGreaterThan(50);
  }

  private void checkSpans(String text, List<ConfigEntry> entries) throws IOException {
    StringBuilder updated = new StringBuilder(text);
    List<ConfigEntry> expected = new ArrayList<>();
    for (int j = entries.size() - 1; j >= 0; j--) {
      ConfigEntry e = entries.get(j);
      if (e.value() == null) {
        expected.add(0, e);
        continue;
      }
      String replacement = "new " + j + "#\"";
      updated.replace(e.valueStart(), e.valueEnd(), " " + ConfigSyntax.value(replacement));
      expected.add(0, new ConfigEntry(e.variable(), replacement, 0, 0, 0));
    }
    assertThat(gitOutcome(updated.toString()))
        .as("values replaced in %s", UntrustedText.printable(text)).isEqualTo(render(expected));
  }

  private static String render(List<ConfigEntry> entries) {
    StringBuilder out = new StringBuilder();
    for (ConfigEntry e : entries) {
      out.append(e.variable());
      if (e.value() != null) {
        out.append('\n').append(e.value());
      }
      out.append('\0');
    }
    return out.toString();
  }

  /** git's reading of {@code text} (bytes as ISO-8859-1) in the form {@link #render} gives. */
  private String gitOutcome(String text) throws IOException {
    Path file = dir.resolve("config");
    Files.write(file, text.getBytes(StandardCharsets.ISO_8859_1));
    RealGit.Result r = new RealGit(dir).run(dir, "config", "--file", file.toString(), "--list",
        "-z");
    if (r.exit() == 0) {
      return new String(r.stdout(), StandardCharsets.ISO_8859_1);
    }
    Matcher m = BAD_LINE.matcher(r.stderr());
    assertThat(m.find()).as("git said: %s", r.stderr()).isTrue();
    return "error at line " + m.group(1);
  }

  private static final String[] HEADERS = {"[remote \"origin\"]", "[Remote \"O r\\\"i\\\\g\"]",
      "[remote.Old]", "[a.b.c]", "[ \"x\"]", "[core]", "[x \"a\" ]", "[x \"a\"", "[x \"a\nb\"]",
      "[]", "[a b]", "[a\t\"t\"]", "[url \"https://h/\"] insteadOf = y", "[a-1]", "[a_b]"};
  private static final String[] KEYS = {"pushurl", "PushURL", "url", "k", "k-1", "k_1", "1k", "é",
      "-k"};
  private static final String[] GOOD_HEADERS = {"[remote \"origin\"]", "[remote.up]",
      "[s \"\\\"q\\\\b\"]", "[credential \"https://h\"]"};
  private static final String[] GOOD_KEYS = {"pushurl", "PushUrl", "url", "k-2"};
  private static final String VALUE_CHARS = "ab \t\"\\#;=ntbqx]\r\u00e9";

  /** UTF-8 bytes as ISO-8859-1 characters, the form the scanner reads. */
  private static String latin1(String s) {
    return new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
  }

  private static String randomConfig(Fuzz fuzz) {
    StringBuilder text = new StringBuilder();
    int kind = fuzz.nextInt(20);
    if (kind == 0) {
      text.append("\u00ef\u00bb\u00bf");
    } else if (kind == 1) {
      text.append("\u00ef\u00bb");
    }
    int lines = 1 + fuzz.nextInt(8);
    for (int l = 0; l < lines; l++) {
      switch (fuzz.nextInt(8)) {
        case 0 -> text.append(fuzz.nextInt(2) == 0 ? HEADERS[fuzz.nextInt(HEADERS.length)]
            : GOOD_HEADERS[fuzz.nextInt(GOOD_HEADERS.length)]);
        case 1 -> text.append(fuzz.nextInt(2) == 0 ? "# " : "; ")
            .append(fuzz.from(VALUE_CHARS, 0, 6));
        case 2 -> text.append(fuzz.from(" \t", 0, 2)).append(KEYS[fuzz.nextInt(KEYS.length)]);
        case 3 -> text.append(fuzz.from(" \t", 0, 2)).append(KEYS[fuzz.nextInt(KEYS.length)])
            .append(fuzz.from(" \t", 0, 1)).append(fuzz.nextInt(15) == 0 ? ":" : "=")
            .append(fuzz.from(VALUE_CHARS, 0, 12))
            .append(fuzz.nextInt(8) == 0 ? "\\" : "");
        default -> {
          // well-formed more often than not, in the many spellings git accepts
          String value = fuzz.string(10).replace("\0", "").replace("\n", "");
          text.append(fuzz.from(" \t", 0, 2)).append(GOOD_KEYS[fuzz.nextInt(GOOD_KEYS.length)])
              .append(fuzz.from(" \t", 0, 2)).append('=').append(fuzz.from(" \t", 0, 2));
          if (!Fuzz.hasUnpairedSurrogate(value)) {
            text.append(latin1(ConfigSyntax.value(value)));
          }
          text.append(fuzz.from(" \t", 0, 2)).append(fuzz.nextInt(3) == 0 ? "# c\"" : "")
              .append(fuzz.nextInt(6) == 0 ? "\\\n  x" : "");
        }
      }
      int end = fuzz.nextInt(12);
      text.append(end == 0 ? "\r\n" : end == 1 ? "" : "\n");
    }
    return text.toString();
  }
}
