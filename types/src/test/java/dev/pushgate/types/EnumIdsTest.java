package dev.pushgate.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Locale;
import org.junit.jupiter.api.Test;

class EnumIdsTest {
  private enum Colour {
    RED,
    DARK_BLUE;

    String id() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  private enum Lone {
    ONLY
  }

  @Test
  void readsAConstantBackFromItsId() {
    assertThat(EnumIds.parse(Colour.class, Colour::id, "dark-blue", "a colour"))
        .isEqualTo(Colour.DARK_BLUE);
  }

  @Test
  void refusesAnyOtherSpellingNamingItPrintablyAndEveryChoice() {
    assertThatThrownBy(() -> EnumIds.parse(Colour.class, Colour::id, "DARK_BLUE", "a colour"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not a colour: DARK_BLUE (expected red or dark-blue)");
    assertThatThrownBy(() -> EnumIds.parse(Colour.class, Colour::id, "red\u0085", "a colour"))
        .hasMessage("not a colour: red\\x85 (expected red or dark-blue)");
    assertThatThrownBy(() -> EnumIds.parse(Colour.class, Colour::id, null, "a colour"))
        .hasMessage("not a colour: (none) (expected red or dark-blue)");
  }

  @Test
  void listsTheChoicesAsAPersonReadsThem() {
    assertThat(EnumIds.choices(Lone.class, Lone::name)).isEqualTo("ONLY");
    assertThat(EnumIds.choices(Colour.class, Colour::id)).isEqualTo("red or dark-blue");
  }
}
