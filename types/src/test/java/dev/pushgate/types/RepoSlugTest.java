package dev.pushgate.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RepoSlugTest {
  @Test
  void parsesOwnerAndNameAndDropsATrailingDotGit() {
    RepoSlug slug = RepoSlug.parse("Acme/Widget.git");

    assertThat(slug.owner()).isEqualTo("Acme");
    assertThat(slug.name()).isEqualTo("Widget");
    assertThat(slug).hasToString("Acme/Widget");
  }

  @Test
  void comparesWithoutRegardToCaseAsGitHubDoes() {
    assertThat(RepoSlug.parse("Acme/Widget").sameAs(RepoSlug.parse("acme/WIDGET"))).isTrue();
    assertThat(RepoSlug.parse("acme/widget").sameAs(RepoSlug.parse("acme/gadget"))).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "acme", "acme/", "/widget", "acme/widget/x", "acme/..", "acme/.",
      "-acme/widget", "ac me/widget", "acme/wid get", "acme/wid\\get", "acme/.git",
      "acme/wid\u0000get", "acme/widg\u00e9t"})
  void refusesWhatIsNotSafeAsAPath(String slug) {
    assertThatThrownBy(() -> RepoSlug.parse(slug)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("\u0000");
  }

  @Test
  void refusesNothingAtAllWithAClearMessage() {
    assertThatThrownBy(() -> RepoSlug.parse(null))
        .hasMessageContaining("expected owner/name");
  }
}
