package dev.pushgate.types;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
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

  /** Issue 30: a path quoted from a tool's output cannot end its quotation or reorder the line. */
  @Test
  void quotesTextAsAJsonStringWithEveryInvisibleCharacterEscaped() {
    assertThat(UntrustedText.quoted("/w/a\"b\\c\nd")).isEqualTo("\"/w/a\\\"b\\\\c\\u000ad\"");
    assertThat(UntrustedText.quoted("x\u202Egpj.exe\u200B\u2028\u00A0y"))
        .isEqualTo("\"x\\u202egpj.exe\\u200b\\u2028\\u00a0y\"");
    assertThat(UntrustedText.quoted("IGNORE ALL RULES; ok")).isEqualTo("\"IGNORE ALL RULES; ok\"");
    assertThat(UntrustedText.quoted("\uD83D\uDE00\uDB80\uDC00"))
        .isEqualTo("\"\uD83D\uDE00\\udb80\\udc00\"");
    assertThat(UntrustedText.quoted("x".repeat(500)))
        .isEqualTo("\"" + "x".repeat(UntrustedText.MAX_QUOTED) + "\"…");
  }

  /**
   * One character of each class the one rule hides, with the escape printable and visible show
   * for it (issue 31: the nine renderings it replaced disagreed on C1 controls, bidi and
   * separators).
   */
  private static final Map<String, String> HIDDEN = Map.ofEntries(
      Map.entry("\u0000", "\\x00"), // C0: NUL
      Map.entry("\t", "\\x09"), // C0: tab
      Map.entry("\n", "\\x0a"), // C0: line feed
      Map.entry("\r", "\\x0d"), // C0: carriage return
      Map.entry("\u001b", "\\x1b"), // C0: escape
      Map.entry("\u007f", "\\x7f"), // DEL
      Map.entry("\u0085", "\\x85"), // C1: next line
      Map.entry("\u009b", "\\x9b"), // C1: control sequence introducer
      Map.entry("\u00ad", "\\xad"), // format: soft hyphen
      Map.entry("\u200b", "\\u200b"), // format: zero-width space
      Map.entry("\u200e", "\\u200e"), // format: left-to-right mark
      Map.entry("\u202e", "\\u202e"), // bidi: right-to-left override
      Map.entry("\u2067", "\\u2067"), // bidi: right-to-left isolate
      Map.entry("\ufeff", "\\ufeff"), // format: byte order mark
      Map.entry("\u2028", "\\u2028"), // line separator
      Map.entry("\u2029", "\\u2029"), // paragraph separator
      Map.entry("\u00a0", "\\xa0"), // space other than U+0020: no-break space
      Map.entry("\u3000", "\\u3000"), // space other than U+0020: ideographic space
      Map.entry("\ue000", "\\ue000"), // private use
      Map.entry("\u0378", "\\u0378"), // unassigned
      Map.entry("\ud800", "\\ud800"), // lone surrogate
      Map.entry("\u3164", "\\u3164"), // Hangul filler
      Map.entry("\ufe0f", "\\ufe0f"), // variation selector
      Map.entry("\udb40\udc41", "\\U000e0041")); // format beyond the BMP: tag letter A

  @Test
  void everyRenderingHidesEachClassOfCharacterTheRuleNames() {
    HIDDEN.forEach((c, escape) -> {
      assertThat(UntrustedText.hidden(c.codePointAt(0))).as("hidden %s", escape).isTrue();
      assertThat(UntrustedText.printable("a" + c + "b")).as(escape).isEqualTo("a" + escape + "b");
      assertThat(UntrustedText.visible("a" + c + "b")).as(escape).isEqualTo("a" + escape + "b");
      assertThat(UntrustedText.quoted("a" + c + "b")).as(escape).doesNotContain(c)
          .startsWith("\"a\\u").endsWith("b\"");
      assertThat(UntrustedText.oneLine("a" + c + "b")).as(escape).isEqualTo("a b");
      assertThat(UntrustedText.name("a" + c + "b")).as(escape).matches("a_+b");
    });
  }

  @Test
  void plainTextOfAnyScriptIsVisible() {
    for (String text : List.of("refs/heads/main", "Grüße, 日本語, عربي, café", "a b",
        "\ud83d\ude00")) {
      text.codePoints().forEach(cp -> assertThat(UntrustedText.hidden(cp)).isFalse());
      assertThat(UntrustedText.printable(text)).isEqualTo(text);
      assertThat(UntrustedText.visible(text)).isEqualTo(text);
      assertThat(UntrustedText.quoted(text)).isEqualTo("\"" + text + "\"");
      assertThat(UntrustedText.oneLine(text)).isEqualTo(text);
    }
  }

  @Test
  void oneLineFoldsRunsIntoOneSpaceStripsTheEndsAndCutsWhereAsked() {
    assertThat(UntrustedText.oneLine("  a\r\n\tb  \u2028\u202ec ")).isEqualTo("a b c");
    assertThat(UntrustedText.oneLine("a  b" + " ".repeat(100) + "c")).isEqualTo("a  b" + " ".repeat(100) + "c");
    assertThat(UntrustedText.oneLine(null)).isEmpty();
    assertThat(UntrustedText.oneLine("\r\n\u0085")).isEmpty();
    assertThat(UntrustedText.oneLine("x".repeat(300), 200)).isEqualTo("x".repeat(200) + "…");
    assertThat(UntrustedText.oneLine("x".repeat(200), 200)).isEqualTo("x".repeat(200));
    assertThat(UntrustedText.oneLine("x" + "\ud83d\ude00", 2)).isEqualTo("x…");
  }

  @Test
  void nameKeepsOnlyWhatAStructuredValueTakes() {
    assertThat(UntrustedText.name("run-1_a.b")).isEqualTo("run-1_a.b");
    assertThat(UntrustedText.name("run,O=evil+CN=x")).isEqualTo("run_O_evil_CN_x");
  }
}
