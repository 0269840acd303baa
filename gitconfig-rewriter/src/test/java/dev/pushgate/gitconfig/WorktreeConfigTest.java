package dev.pushgate.gitconfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorktreeConfigTest {
  @TempDir Path dir;

  @Test
  void findsTheConfigOfAWorktreeALinkedWorktreeAndABareRepository() throws IOException {
    RealGit git = new RealGit(dir);
    Path main = dir.resolve("main");
    git.run(dir, "init", "-q", main.toString()).ok();
    git.run(main, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q",
        "--allow-empty", "-m", "x").ok();
    git.run(main, "worktree", "add", "-q", dir.resolve("linked").toString()).ok();
    git.run(dir, "init", "-q", "--bare", dir.resolve("bare.git").toString()).ok();

    assertThat(WorktreeConfig.of(main)).contains(main.resolve(".git/config"));
    assertThat(WorktreeConfig.of(dir.resolve("linked"))).contains(main.resolve(".git/config"));
    assertThat(WorktreeConfig.of(dir.resolve("bare.git")))
        .contains(dir.resolve("bare.git/config"));
  }

  @Test
  void looksNeitherAboveTheDirectoryNorAtWhatIsNoRepository() throws IOException {
    RealGit git = new RealGit(dir);
    git.run(dir, "init", "-q", dir.toString()).ok();
    Path inside = Files.createDirectories(dir.resolve("sub/dir"));
    assertThat(WorktreeConfig.of(inside)).isEmpty();
  }

  @Test
  void refusesADotGitFileThatIsNoGitdirLink() throws IOException {
    Path w = Files.createDirectories(dir.resolve("w"));
    Files.writeString(w.resolve(".git"), "nonsense\n");
    assertThatThrownBy(() -> WorktreeConfig.of(w))
        .isInstanceOf(RepositoryConfigException.class)
        .hasMessage(w.resolve(".git") + " is neither a directory nor a gitdir link");
  }
}
