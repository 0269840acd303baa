package dev.pushgate.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A {@code vnd.github…} subtype's parts, split at every {@code .} and {@code +}, trimmed. */
class RenderedHtmlTest {
  @ParameterizedTest
  @ValueSource(strings = {"vnd.github.html", "vnd.github.v3.html+json", "vnd.github.full",
      "vnd.github+full", "vnd.github.v3.full+json", "vnd.github. html +json", "html",
      "vnd.github..full", "vnd.github.raw+html", "vnd.github.html."})
  void aPartNamingRenderedHtmlIsFound(String subtype) {
    assertThat(RenderedHtml.namesHtml(subtype)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"vnd.github+json", "vnd.github.v3.raw+json", "vnd.github.htmlx",
      "vnd.github.fullish", "vnd.github.text+json", "vnd.github.h tml", "", ".", "+",
      "vnd.githubhtml"})
  void noPartNamingRenderedHtmlIsNone(String subtype) {
    assertThat(RenderedHtml.namesHtml(subtype)).isFalse();
  }
}
