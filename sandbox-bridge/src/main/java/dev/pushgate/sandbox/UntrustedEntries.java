package dev.pushgate.sandbox;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The allowlist of a git directory's top-level entries after a run. An operation the run left in
 * progress ({@link GitMetadata#isOperationState}: a rebase's todo with {@code exec} lines, a
 * cherry-pick, a merge, a bisect) is moved aside unless it was there before the run and the run
 * did not change it; any other new entry that is not {@link GitMetadata#isTrustedAfterRun} is
 * moved aside too. Both stay writable while the run lives (the agent's own {@code git rebase -i}
 * needs them); this is what keeps the host's git from resuming them afterwards.
 */
final class UntrustedEntries {
  private UntrustedEntries() {}

  /**
   * Moves aside what of {@code now} may not stay, reporting each into {@code found}.
   *
   * @param was the directory at launch, or null when the run created it
   */
  static void judge(Path dir, GitDirectoryState was, GitDirectoryState now,
      List<SandboxViolation> found) {
    Map<String, String> before = was == null ? Map.of() : was.entries();
    for (Map.Entry<String, String> e : now.entries().entrySet()) {
      String name = e.getKey();
      if (GitMetadata.isOperationState(name)) {
        if (!e.getValue().equals(before.get(name))) {
          moveAside(dir.resolve(name), "an operation in progress left by the run (git would"
              + " resume or conclude it: --continue, commit, bisect)", found);
        }
      } else if (!GitMetadata.isTrustedAfterRun(name) && !before.containsKey(name)) {
        moveAside(dir.resolve(name), "created during the run and not something git's ordinary"
            + " work leaves in a git directory", found);
      }
    }
  }

  /**
   * Renames {@code entry} within its directory (never following a link, never crossing a file
   * system); failing that, removes it. Either way git no longer finds it; when neither works, the
   * report says so and what to do.
   */
  static void moveAside(Path entry, String what, List<SandboxViolation> found) {
    moveAside(entry, what, "git does not read it there", found);
  }

  /** As {@link #moveAside(Path, String, List)}, saying {@code there} of the new place. */
  static void moveAside(Path entry, String what, String there, List<SandboxViolation> found) {
    try {
      Path aside = GitMetadataCheck.quarantine(entry);
      found.add(GitMetadataCheck.violation(entry, what + "; moved to " + aside.getFileName()
          + " (" + there + ")"));
    } catch (IOException moving) {
      try {
        FileTrees.delete(entry);
        found.add(GitMetadataCheck.violation(entry, what + "; could not be moved aside ("
            + moving.getMessage() + "), removed"));
      } catch (IOException removing) {
        found.add(GitMetadataCheck.violation(entry, what + "; could NOT be moved aside ("
            + moving.getMessage() + ") nor removed (" + removing.getMessage() + "): git there"
            + " would still take it; remove it before running git in this repository"));
      }
    }
  }
}
