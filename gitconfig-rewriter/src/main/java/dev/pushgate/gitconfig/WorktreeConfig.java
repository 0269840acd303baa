package dev.pushgate.gitconfig;

import dev.pushgate.types.UntrustedText;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where git reads the repository config of a worktree: its {@code .git/config}, the common
 * directory's config for a linked worktree, or {@code config} of a bare repository. Parents are
 * not searched: a sandboxed run sees its workdir, not the repositories around it, and a file
 * outside the workdir is not the run's to change. Found by reading files only: no git command
 * runs on a worktree an agent may have written.
 */
public final class WorktreeConfig {
  private WorktreeConfig() {}

  /**
   * The repository config of the worktree (or bare repository) {@code dir}, or empty when
   * {@code dir} is neither.
   *
   * @throws RepositoryConfigException when a {@code .git} file is not a {@code gitdir:} link to
   *     a directory
   */
  public static Optional<Path> of(Path dir) throws IOException {
    Path d = dir.toAbsolutePath().normalize();
    Path dotGit = d.resolve(".git");
    if (Files.isDirectory(dotGit, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.of(commonDir(dotGit).resolve("config"));
    }
    if (Files.isRegularFile(dotGit, LinkOption.NOFOLLOW_LINKS)) {
      String line = Files.readString(dotGit, StandardCharsets.UTF_8).strip();
      if (!line.startsWith("gitdir: ")) {
        throw new RepositoryConfigException(RepositoryConfigException.Reason.NOT_A_REGULAR_FILE,
            dotGit + " is neither a directory nor a gitdir link");
      }
      Path gitDir = d.resolve(line.substring(8)).normalize();
      if (!Files.isDirectory(gitDir)) {
        throw new RepositoryConfigException(RepositoryConfigException.Reason.NOT_A_REGULAR_FILE,
            dotGit + " links to " + UntrustedText.printable(gitDir.toString()) + ", which is not a directory");
      }
      return Optional.of(commonDir(gitDir).resolve("config"));
    }
    if (Files.isRegularFile(d.resolve("config")) && Files.isRegularFile(d.resolve("HEAD"))
        && Files.isDirectory(d.resolve("objects"))) {
      return Optional.of(d.resolve("config"));
    }
    return Optional.empty();
  }

  private static Path commonDir(Path gitDir) throws IOException {
    Path common = gitDir.resolve("commondir");
    if (Files.isRegularFile(common, LinkOption.NOFOLLOW_LINKS)) {
      return gitDir.resolve(Files.readString(common, StandardCharsets.UTF_8).strip()).normalize();
    }
    return gitDir;
  }
}
