package dev.pushgate.sandbox;

import dev.pushgate.gitconfig.InertRepositoryConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A repository a run created: the agent's own while it ran, looked at before host git reads it. */
final class CreatedRepository {
  private CreatedRepository() {}

  /**
   * What of a repository the run created would make git on the host run a program or read
   * another repository: its config's settings beyond {@link InertRepositoryConfig}, hooks other
   * than git's samples, a worktree config, submodule or worktree git directories, alternates.
   */
  static List<String> whatGitWouldRunOrFollow(Path git) throws IOException {
    List<String> out = new ArrayList<>();
    Path config = git.resolve("config");
    if (Files.isRegularFile(config, LinkOption.NOFOLLOW_LINKS)) {
      out.addAll(InertRepositoryConfig.unknownSettings(
          new String(Files.readAllBytes(config), StandardCharsets.ISO_8859_1)));
    } else if (Files.exists(config, LinkOption.NOFOLLOW_LINKS)) {
      out.add("config (not a file)");
    }
    Path hooks = git.resolve("hooks");
    if (Files.isDirectory(hooks, LinkOption.NOFOLLOW_LINKS)) {
      try (var entries = Files.list(hooks)) {
        entries.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith(".sample"))
            .sorted().limit(20).forEach(n -> out.add("hooks/" + n));
      }
    } else if (Files.exists(hooks, LinkOption.NOFOLLOW_LINKS)) {
      out.add("hooks (not a directory)");
    }
    for (String name : List.of("config.worktree", "objects/info/alternates",
        "objects/info/http-alternates")) {
      if (Files.exists(git.resolve(name), LinkOption.NOFOLLOW_LINKS)) {
        out.add(name);
      }
    }
    for (String name : List.of("modules", "worktrees")) {
      Path dir = git.resolve(name);
      if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        try (var entries = Files.list(dir)) {
          if (entries.findAny().isPresent()) {
            out.add(name + "/");
          }
        }
      } else if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
        out.add(name);
      }
    }
    return out;
  }
}
