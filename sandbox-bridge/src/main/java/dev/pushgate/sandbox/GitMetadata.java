package dev.pushgate.sandbox;

import java.util.ArrayList;
import java.util.List;

/**
 * What of a {@code .git} directory the agent may not write. git reads these to decide what
 * programs to run and which repository it is in: written by the agent, they would run the agent's
 * program as whoever next runs git in the worktree on the host (the operator, often root). What
 * git needs to commit and fetch stays writable: objects, refs, logs, the index, HEAD and the other
 * head files, packed-refs and their lock files.
 */
final class GitMetadata {
  private GitMetadata() {}

  /** Under {@code .git}: directories, covered read-only or blocked by an empty one. */
  static final List<String> DENIED_DIRECTORIES =
      List.of("hooks", "info", "modules", "worktrees", "branches", "remotes");

  /**
   * Under {@code .git}: files, covered read-only or blocked by an empty read-only file (git reads
   * an empty one as nothing set; a directory there would make it warn or fail).
   */
  static final List<String> DENIED_FILES =
      List.of("config", "config.worktree", "objects/info/alternates",
          "objects/info/http-alternates");

  /**
   * Under {@code .git}, and not blockable while the run lasts: git stops in any repository with a
   * {@code commondir} it cannot read, so an empty file or directory would break git inside. The
   * launcher removes a planted one when the run ends ({@link GitMetadataCheck}).
   */
  static final String COMMONDIR = "commondir";

  /** Every denied path, relative to the worktree (starting with {@code .git/}). */
  static List<String> deniedUnderWorktree() {
    List<String> out = new ArrayList<>();
    for (String d : DENIED_DIRECTORIES) {
      out.add(".git/" + d);
    }
    for (String f : DENIED_FILES) {
      out.add(".git/" + f);
    }
    return List.copyOf(out);
  }

  /** Whether a deny path is one of the files, so that its placeholder must be a file. */
  static boolean isDeniedFile(String path) {
    for (String f : DENIED_FILES) {
      if (path.endsWith("/.git/" + f)) {
        return true;
      }
    }
    return false;
  }
}
