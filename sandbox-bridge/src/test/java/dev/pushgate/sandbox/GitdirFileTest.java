package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading the git directory a {@code .git} file or a {@code commondir} names, at launch. */
class GitdirFileTest {
  @TempDir Path tmp;

  @Test
  void namesTheRealPathOfTheDirectoryRelativeToTheFile() throws Exception {
    Path real = Files.createDirectories(tmp.toRealPath().resolve("checkout/.repo"));
    Files.createSymbolicLink(tmp.resolve("alias"), real);
    Path dotGit = Files.writeString(tmp.resolve("checkout/.git"), "gitdir: ../alias\n");
    assertThat(GitdirFile.namedBy(dotGit.toString(), GitdirFile.GITDIR_PREFIX))
        .isEqualTo(real.toString());
    Path commondir = Files.writeString(real.resolve("commondir"), "..\n");
    assertThat(GitdirFile.namedBy(commondir.toString(), ""))
        .isEqualTo(tmp.toRealPath().resolve("checkout").toString());
  }

  @Test
  void namesNothingWhenTheFileIsNotOneGitReads() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("checkout"));
    Path target = Files.writeString(tmp.resolve("target"), "gitdir: " + dir + "\n");
    Path link = Files.createSymbolicLink(tmp.resolve("link-git"), target);
    assertThat(GitdirFile.namedBy(link.toString(), GitdirFile.GITDIR_PREFIX)).isNull();
    Path other = Files.writeString(tmp.resolve("other"), "worktree: " + dir + "\n");
    assertThat(GitdirFile.namedBy(other.toString(), GitdirFile.GITDIR_PREFIX)).isNull();
    Path missing = Files.writeString(tmp.resolve("missing"), "gitdir: " + tmp + "/nothing\n");
    assertThat(GitdirFile.namedBy(missing.toString(), GitdirFile.GITDIR_PREFIX)).isNull();
    Path huge = Files.writeString(tmp.resolve("huge"), "gitdir: " + "/".repeat(5000) + "\n");
    assertThat(GitdirFile.namedBy(huge.toString(), GitdirFile.GITDIR_PREFIX)).isNull();
    assertThat(GitdirFile.namedBy(dir.toString(), GitdirFile.GITDIR_PREFIX)).isNull();
  }
}
