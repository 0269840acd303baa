package dev.pushgate.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

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
    Path link = was.links().get(GitDirectoryState.HOOKS);
    if (link != null) {
      judgeLink(hooks, link, was, now, found);
      return;
    }
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

  /**
   * A {@code hooks} that was the operator's link at launch (shared hooks kept elsewhere): left as
   * it is while it is the same link leading to the same hooks; moved aside when what it leads to
   * changed (the run could write there); and put back when the run replaced it, what it put in
   * its place moved aside.
   */
  private static void judgeLink(Path hooks, Path link, GitDirectoryState was,
      GitDirectoryState now, List<SandboxViolation> found) {
    String h = GitDirectoryState.HOOKS;
    if (link.equals(now.links().get(h))) {
      if (!Objects.equals(was.oddFiles().get(h), now.oddFiles().get(h))) {
        UntrustedEntries.moveAside(hooks, "a link to " + link + ", whose hooks changed during"
            + " the run", "git does not run the hooks it leads to there", found);
      }
      return;
    }
    if (Files.exists(hooks, LinkOption.NOFOLLOW_LINKS)) {
      UntrustedEntries.moveAside(hooks, "replaced during the run (the link to " + link
          + " it was is put back)", "git does not run it there", found);
    }
    try {
      Files.createSymbolicLink(hooks, link);
    } catch (IOException e) {
      found.add(GitMetadataCheck.violation(hooks, "the link to " + link + " it was could not be"
          + " put back: " + e.getMessage()));
    }
  }
}
