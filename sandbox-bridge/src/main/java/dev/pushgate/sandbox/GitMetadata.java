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
   * Under {@code .git}, and not blockable by a placeholder: git stops in any repository with a
   * {@code commondir} it cannot read, so an empty file or directory would break git inside. It
   * names the directory whose config and hooks git takes, so where the name-deny layer runs it
   * refuses the name ({@link #REFUSED_BY_NAME}); everywhere the launcher removes a planted one
   * when the run ends ({@link GitMetadataCheck}).
   */
  static final String COMMONDIR = "commondir";

  /**
   * Under {@code .git}: files that redirect git to another config and hooks yet cannot be blocked
   * by a placeholder, so the name-deny layer refuses creating, writing, renaming onto and linking
   * them while the run lives. ({@code gitdir} is not one: git reads it only to prune a linked
   * worktree, never to find a config.)
   */
  static final List<String> REFUSED_BY_NAME = List.of(COMMONDIR);

  /**
   * Top-level entries of a git directory that hold an operation in progress: git resumes it on
   * {@code --continue} (a rebase's todo runs its {@code exec} lines), and a {@code git commit}
   * concludes it (a merge's second parent and message). Writable while the run lives, so that the
   * agent's own {@code git rebase -i}, {@code cherry-pick}, {@code merge} and {@code bisect} work;
   * what the run leaves of them is moved aside when it ends ({@link UntrustedEntries}). Every name
   * starting with {@link #BISECT_PREFIX} is one too.
   */
  static final List<String> OPERATION_STATE = List.of("rebase-merge", "rebase-apply",
      "sequencer", "MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "MERGE_AUTOSTASH",
      "REBASE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "SQUASH_MSG", "NOTES_MERGE_PARTIAL",
      "NOTES_MERGE_REF", "NOTES_MERGE_WORKTREE");

  /** {@code git bisect}'s state: {@code BISECT_LOG}, {@code BISECT_START}, {@code BISECT_RUN}, … */
  static final String BISECT_PREFIX = "BISECT_";

  /**
   * Top-level entries of a git directory that the host may trust after a run: what commit,
   * fetch, clone, gc and the agent's ordinary work write, none of which makes git run a program
   * or resume anything. Names ending in {@code .lock} are trusted too (a lock left behind makes
   * git refuse, never run). Every other new entry is moved aside when the run ends.
   */
  static final List<String> TRUSTED_AFTER_RUN = List.of("objects", "refs", "logs", "index",
      "HEAD", "ORIG_HEAD", "FETCH_HEAD", "packed-refs", "COMMIT_EDITMSG", "TAG_EDITMSG",
      "NOTES_EDITMSG", "EDIT_DESCRIPTION", "AUTO_MERGE", "description", "shallow", "gc.pid", "gc.log", "lfs",
      "gitdir", "reftable");

  /**
   * Top-level entries judged on their own (denied while the run lives and checked by
   * {@link GitDirectoryState} and {@link CreatedRepository} at its end), so the allowlist leaves
   * them to those checks.
   */
  static final List<String> JUDGED_APART = List.of("config", "config.worktree", COMMONDIR,
      "hooks", "info", "modules", "worktrees", "branches", "remotes");

  /** Whether a top-level entry of a git directory holds an operation in progress. */
  static boolean isOperationState(String name) {
    return OPERATION_STATE.contains(name) || name.startsWith(BISECT_PREFIX);
  }

  /** Whether a top-level entry of a git directory may stay after a run. */
  static boolean isTrustedAfterRun(String name) {
    return TRUSTED_AFTER_RUN.contains(name) || JUDGED_APART.contains(name)
        || name.endsWith(".lock") || name.startsWith("sharedindex.");
  }

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

  /** The {@link #REFUSED_BY_NAME} paths of each git directory, for the name-deny layer. */
  static List<String> refusedByNameIn(List<String> gitDirectories) {
    List<String> out = new ArrayList<>();
    for (String g : gitDirectories) {
      for (String f : REFUSED_BY_NAME) {
        out.add(g + "/" + f);
      }
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
