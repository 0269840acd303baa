package dev.pushgate.sandbox;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The hooks of a git directory that was there at launch, judged against the snapshot: a hook
 * whose bytes, mode (a hook git skipped runs once it is executable), kind or link target differ
 * from launch, or that is new, is moved aside, whatever its name and however deep the repository.
 * A {@code hooks} that is not a real directory after the run (a symlink to a directory the agent
 * fills, a file) is moved aside whole: git would run the hooks of wherever it leads.
 */
final class ChangedHooks {
  private ChangedHooks() {}

  static void judge(Path dir, GitDirectoryState was, GitDirectoryState now,
      List<SandboxViolation> found) {
    Path hooks = dir.resolve(GitDirectoryState.HOOKS);
    if (Files.exists(hooks, LinkOption.NOFOLLOW_LINKS)
        && !Files.isDirectory(hooks, LinkOption.NOFOLLOW_LINKS)) {
      UntrustedEntries.moveAside(hooks, "not a directory after the run (a symlink or another"
          + " file: git would run the hooks of wherever it leads)", found);
      return;
    }
    for (Map.Entry<String, String> hook : now.hooks().entrySet()) {
      String before = was.hooks().get(hook.getKey());
      if (!hook.getValue().equals(before)) {
        UntrustedEntries.moveAside(hooks.resolve(hook.getKey()), before == null
            ? "a hook added during the run"
            : "a hook changed during the run (its bytes, its mode or what it is)",
            "git does not run it there", found);
      }
    }
  }
}
