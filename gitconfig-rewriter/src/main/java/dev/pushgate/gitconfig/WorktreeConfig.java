package dev.pushgate.gitconfig;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where git reads the repository config of a directory: {@code .git/config} of the directory or
 * of the nearest parent that has a {@code .git} (git's discovery), the common directory's config
 * for a linked worktree, or {@code config} of a bare repository. Found by reading files only: no
 * git command runs on a worktree an agent may have written.
 */
public final class WorktreeConfig {
  private WorktreeConfig() {}

  /**
   * The repository config that git uses in {@code dir}, or empty when {@code dir} is in no
   * repository.
   *
   * @throws RepositoryConfigException when a {@code .git} file is not a {@code gitdir:} link to
   *     a directory
   */
  public static Optional<Path> of(Path dir) throws IOException {
    for (Path d = dir.toAbsolutePath().normalize(); d != null; d = d.getParent()) {
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
              dotGit + " links to " + Printable.of(gitDir.toString())
                  + ", which is not a directory");
        }
        return Optional.of(commonDir(gitDir).resolve("config"));
      }
      if (d.equals(dir.toAbsolutePath().normalize())
          && Files.isRegularFile(d.resolve("config")) && Files.isRegularFile(d.resolve("HEAD"))
          && Files.isDirectory(d.resolve("objects"))) {
        return Optional.of(d.resolve("config"));
      }
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
