package dev.pushgate.it;

import dev.pushgate.testkit.GitRun;
import java.nio.file.Files;
import java.nio.file.Path;

/** The arrange of a push test: a run's clone with one commit of its own on top. */
final class Clones {
  private Clones() {}

  /**
   * Clones {@code repo} through the gateway into {@code parent}/w and commits {@code content} as
   * f.txt with {@code message}; the clone's directory.
   */
  static Path withOneCommit(GitRun git, Path parent, String repo, String content,
      String message) throws Exception {
    git.in(parent, "clone", "-q", "https://github.com/" + repo + ".git", "w").ok();
    Path w = parent.resolve("w");
    Files.writeString(w.resolve("f.txt"), content);
    git.in(w, "add", ".").ok();
    git.in(w, "commit", "-qm", message).ok();
    return w;
  }
}
