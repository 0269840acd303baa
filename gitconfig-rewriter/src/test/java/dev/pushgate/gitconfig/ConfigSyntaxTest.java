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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigSyntaxTest {
  @TempDir Path dir;

  @Test
  void writesPlainValuesAsTheyAre() {
    assertThat(ConfigSyntax.value("https://github.com/")).isEqualTo("https://github.com/");
    assertThat(ConfigSyntax.value("Authorization: Bearer a b")).isEqualTo("Authorization: Bearer a b");
    assertThat(ConfigSyntax.value("")).isEmpty();
  }

  @Test
  void escapesBackslashQuoteNewlineTabAndBackspace() {
    assertThat(ConfigSyntax.value("a\\b\"c\nd\te\bf")).isEqualTo("a\\\\b\\\"c\\nd\\te\\bf");
  }

  @Test
  void quotesWhatGitWouldOtherwiseTrimOrTakeAsAComment() {
    assertThat(ConfigSyntax.value(" lead")).isEqualTo("\" lead\"");
    assertThat(ConfigSyntax.value("trail ")).isEqualTo("\"trail \"");
    assertThat(ConfigSyntax.value("a#b")).isEqualTo("\"a#b\"");
    assertThat(ConfigSyntax.value("a;b")).isEqualTo("\"a;b\"");
    assertThat(ConfigSyntax.value("cr\r")).isEqualTo("\"cr\r\"");
  }

  @Test
  void quotesSubsectionsEscapingOnlyQuoteAndBackslash() {
    assertThat(ConfigSyntax.subsection("http://h/a\"b\\c\td#e;f"))
        .isEqualTo("\"http://h/a\\\"b\\\\c\td#e;f\"");
  }

  @Test
  void refusesNulWithoutEchoingTheValue() {
    assertThatThrownBy(() -> ConfigSyntax.value("secret\0x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a git config value cannot contain a NUL character (at index 6)");
  }

  @Test
  void refusesANewlineInASubsection() {
    assertThatThrownBy(() -> ConfigSyntax.subsection("a\nb"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a git config subsection name cannot contain a newline (at index 1)");
  }

  @Test
  void refusesAnUnpairedSurrogate() {
    assertThatThrownBy(() -> ConfigSyntax.value("x\ud800y"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a git config value has an unpaired surrogate (at index 1)");
    assertThatThrownBy(() -> ConfigSyntax.subsection("x\udc00"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a git config subsection name has an unpaired surrogate (at index 1)");
  }

  @Test
  void gitReadsBackHostileValuesAndSubsectionsExactly() throws IOException {
    List<String> hostile = List.of("", " ", "  two  ", "\t", "a\tb", "x\n", "\n\n", "\r", "a\rb",
        "a\r\nb", "cr\r", "\\", "\\\\", "end\\", "\"", "\"\"", "a\"b", "#", ";", "a # b", "x;y",
        "[s]", "k = v", "\b", "\f\u000b\u007f", "\u0001\u001f", "é中😀", "\ufeffbom", "\u2028",
        "$(id)`id`'q'", "Authorization: Bearer a\"b\\c#d;e");
    StringBuilder text = new StringBuilder();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < hostile.size(); i++) {
      String s = hostile.get(i);
      text.append("[v]\n\tk").append(i).append(" = ").append(ConfigSyntax.value(s)).append('\n');
      expected.add("v.k" + i + "=" + s);
      if (s.indexOf('\n') < 0) {
        text.append("[s ").append(ConfigSyntax.subsection(s)).append("]\n\tk = x\n");
        expected.add("s." + s + ".k=x");
      }
    }
    assertThat(readBack(text.toString())).containsExactlyElementsOf(expected);
  }

  @Test
  void fuzzedValuesAndSubsectionsReadBackExactlyOrAreRefused() throws IOException {
    Fuzz fuzz = new Fuzz(20240611L);
    StringBuilder text = new StringBuilder();
    List<String> expected = new ArrayList<>();
    int refused = 0;
    for (int i = 0; i < 400; i++) {
      String s = fuzz.string(24);
      boolean valueOk = s.indexOf('\0') < 0 && !Fuzz.hasUnpairedSurrogate(s);
      try {
        String encoded = ConfigSyntax.value(s);
        assertThat(valueOk).as("accepted %s", UntrustedText.printable(s)).isTrue();
        text.append("[v]\n\tk").append(i).append(" = ").append(encoded).append('\n');
        expected.add("v.k" + i + "=" + s);
      } catch (IllegalArgumentException e) {
        assertThat(valueOk).as("refused %s", UntrustedText.printable(s)).isFalse();
        refused++;
      }
      boolean subsectionOk = valueOk && s.indexOf('\n') < 0;
      try {
        String encoded = ConfigSyntax.subsection(s);
        assertThat(subsectionOk).as("accepted %s", UntrustedText.printable(s)).isTrue();
        text.append("[s ").append(encoded).append("]\n\tk").append(i).append(" = x\n");
        expected.add("s." + s + ".k" + i + "=x");
      } catch (IllegalArgumentException e) {
        assertThat(subsectionOk).as("refused %s", UntrustedText.printable(s)).isFalse();
        refused++;
      }
    }
    assertThat(readBack(text.toString())).containsExactlyElementsOf(expected);
    // the seed must exercise both paths
    assertThat(refused).isBetween(10, 300);
  }

  private List<String> readBack(String text) throws IOException {
    Path file = dir.resolve("config");
    Files.write(file, text.getBytes(StandardCharsets.UTF_8));
    return new RealGit(dir).list(file);
  }
}
