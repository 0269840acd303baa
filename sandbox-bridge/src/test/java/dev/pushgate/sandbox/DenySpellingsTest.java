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

  /** Checks that {@code literal} is denied as written and as {@code resolved} (both under root). */
  private void assertSpellings(String literal, String resolved) {
    String written = root.resolve(literal).toString();
    assertThat(DenySpellings.of(written))
        .containsExactly(written, root.resolve(resolved).toString());
  }

  @Test
  void emitsLiteralAndResolvedSpellingThroughASymlinkedParent() {
    assertSpellings("tmp/checkout", "private/tmp/checkout");
  }

  @Test
  void resolvesAPathThatDoesNotExistYetThroughItsExistingAncestor() {
    assertSpellings("tmp/checkout/.git/hooks", "private/tmp/checkout/.git/hooks");
  }

  @Test
  void resolvesASymlinkedLeaf() throws IOException {
    Files.createSymbolicLink(root.resolve("link-to-checkout"), root.resolve("tmp/checkout"));
    assertSpellings("link-to-checkout", "private/tmp/checkout");
  }

  @Test
  void emitsARealPathOnce() {
    String real = root.resolve("private/tmp/checkout").toString();
    assertThat(DenySpellings.of(real)).containsExactly(real);
  }

  @Test
  void resolvesAGlobsLiteralDirectoriesAndKeepsItsPatternTail() {
    // Attack 30c: a pattern written through a symlink to the workdir matched no host path.
    assertSpellings("tmp/*.pem", "private/tmp/*.pem");
    assertSpellings("tmp/checkout/file?.txt", "private/tmp/checkout/file?.txt");
    assertSpellings("tmp/checkout/**/x*/*.bak", "private/tmp/checkout/**/x*/*.bak");
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
