package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DenySpellingsTest {
  @TempDir Path dir;
  private Path root;

  @BeforeEach
  void layout() throws IOException {
    root = dir.toRealPath();
    // Like macOS: /tmp is a symlink to /private/tmp.
    Files.createDirectories(root.resolve("private/tmp/checkout"));
    Files.createSymbolicLink(root.resolve("tmp"), root.resolve("private/tmp"));
  }

  @Test
  void emitsLiteralAndResolvedSpellingThroughASymlinkedParent() {
    String literal = root.resolve("tmp/checkout").toString();
    assertThat(DenySpellings.of(literal))
        .containsExactly(literal, root.resolve("private/tmp/checkout").toString());
  }

  @Test
  void resolvesAPathThatDoesNotExistYetThroughItsExistingAncestor() {
    String literal = root.resolve("tmp/checkout/.git/hooks").toString();
    assertThat(DenySpellings.of(literal))
        .containsExactly(literal, root.resolve("private/tmp/checkout/.git/hooks").toString());
  }

  @Test
  void resolvesASymlinkedLeaf() throws IOException {
    Files.createSymbolicLink(root.resolve("link-to-checkout"), root.resolve("tmp/checkout"));
    String literal = root.resolve("link-to-checkout").toString();
    assertThat(DenySpellings.of(literal))
        .containsExactly(literal, root.resolve("private/tmp/checkout").toString());
  }

  @Test
  void emitsARealPathOnce() {
    String real = root.resolve("private/tmp/checkout").toString();
    assertThat(DenySpellings.of(real)).containsExactly(real);
  }

  @Test
  void resolvesAGlobsLiteralDirectoriesAndKeepsItsPatternTail() {
    // Attack 30c: a pattern written through a symlink to the workdir matched no host path.
    String star = root.resolve("tmp/*.pem").toString();
    String question = root.resolve("tmp/checkout/file?.txt").toString();
    String deep = root.resolve("tmp/checkout/**/x*/*.bak").toString();
    assertThat(DenySpellings.of(star))
        .containsExactly(star, root.resolve("private/tmp/*.pem").toString());
    assertThat(DenySpellings.of(question))
        .containsExactly(question, root.resolve("private/tmp/checkout/file?.txt").toString());
    assertThat(DenySpellings.of(deep))
        .containsExactly(deep, root.resolve("private/tmp/checkout/**/x*/*.bak").toString());
  }

  @Test
  void keepsAGlobWithNothingToResolveAsWritten() {
    String real = root.resolve("private/tmp/checkout/*.pem").toString();
    assertThat(DenySpellings.of(real)).containsExactly(real);
    assertThat(DenySpellings.of("/*.pem")).containsExactly("/*.pem");
  }

  @Test
  void keepsAPathThatDoesNotResolveAsWritten() throws IOException {
    Path loop = root.resolve("loop");
    Files.createSymbolicLink(loop, loop);
    String literal = loop.resolve("x").toString();
    assertThat(DenySpellings.of(literal)).containsExactly(literal);
    String missing = root.resolve("nowhere/at/all").toString();
    assertThat(DenySpellings.of(missing)).containsExactly(missing);
  }

  @Test
  void followsADanglingSymlinkNoFurtherThanItsParent() throws IOException {
    Files.createSymbolicLink(root.resolve("tmp/checkout/dangling"), root.resolve("gone"));
    String literal = root.resolve("tmp/checkout/dangling").toString();
    assertThat(DenySpellings.of(literal))
        .containsExactly(literal, root.resolve("private/tmp/checkout/dangling").toString());
  }
}
