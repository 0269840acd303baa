package dev.pushgate.sandbox;

import dev.pushgate.sandbox.BubblewrapArgv.HostView;
import dev.pushgate.sandbox.BubblewrapArgv.Kind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The git metadata inside a launch's writable mounts that the sandbox keeps read-only: the git
 * directories and the {@code .git} files of each mount and of the directories directly inside it,
 * found as the host shows them ({@link HostView}), never by following a link.
 */
final class WritableGitMetadata {
  private WritableGitMetadata() {}

  /**
   * The git directories of the writable mounts and of the directories directly inside them (a
   * shared {@code repos/} holds one repository per directory): each {@code .git} directory, and
   * the directory a {@code .git} file names ({@code gitdir:}, read at launch: {@link GitdirFile})
   * when it lies inside a writable mount, spelled as that mount is. A {@code .git} symlink is not
   * followed, and a named directory outside every writable mount is left alone: the sandbox shows
   * it read-only or not at all, so the agent cannot write it.
   */
  static List<String> gitDirectories(List<String> writableRoots, HostView host) {
    Set<String> out = new LinkedHashSet<>();
    for (String git : dotGits(writableRoots, host)) {
      switch (host.kind(git)) {
        case DIRECTORY -> out.add(git);
        case FILE -> addNamed(out, git, GitdirFile.GITDIR_PREFIX, writableRoots, host);
        default -> { /* missing, or a symlink: nothing git finds at launch, or left alone */ }
      }
    }
    // A linked worktree's git directory takes its config and hooks from its commondir.
    for (String g : List.copyOf(out)) {
      addNamed(out, g + "/" + GitMetadata.COMMONDIR, "", writableRoots, host);
    }
    // One inside another (a linked worktree's, under worktrees/) is read-only with it already.
    List<String> all = List.copyOf(out);
    return all.stream()
        .filter(g -> all.stream().noneMatch(o -> !o.equals(g) && BubblewrapArgv.under(g, o)))
        .toList();
  }

  /** Adds the directory {@code file} names when it lies inside a writable mount. */
  private static void addNamed(
      Set<String> out, String file, String prefix, List<String> writableRoots, HostView host) {
    if (host.kind(file) != Kind.FILE) {
      return;
    }
    String named = host.directoryNamedBy(file, prefix);
    String inside = named == null ? null : asInsideWritable(named, writableRoots, host);
    if (inside != null && host.kind(inside) == Kind.DIRECTORY) {
      out.add(inside);
    }
  }

  /**
   * The {@code .git} files ({@code gitdir:}) of the writable mounts and of the directories
   * directly inside them: bound read-only over themselves, so that no git, in the sandbox or on
   * the host, is pointed at a git directory of the agent's while the run lives.
   */
  static List<String> gitFiles(List<String> writableRoots, HostView host) {
    return dotGits(writableRoots, host).stream().filter(g -> host.kind(g) == Kind.FILE).toList();
  }

  /** Where a {@code .git} may be: in each writable mount and each directory directly inside. */
  private static List<String> dotGits(List<String> writableRoots, HostView host) {
    Set<String> out = new LinkedHashSet<>();
    for (String root : writableRoots) {
      List<String> repos = new ArrayList<>();
      repos.add(root);
      for (String child : host.children(root)) {
        if (host.kind(child) == Kind.DIRECTORY) {
          repos.add(child);
        }
      }
      for (String repo : repos) {
        out.add(repo.equals("/") ? "/.git" : repo + "/.git");
      }
    }
    return List.copyOf(out);
  }

  /**
   * A real path spelled as the writable mount holding it is spelled (its deepest), or null when
   * no writable mount, by any of its spellings, holds it.
   */
  private static String asInsideWritable(String real, List<String> writableRoots, HostView host) {
    String best = null;
    int deepest = -1;
    for (String root : writableRoots) {
      for (String spelling : host.spellings(root)) {
        if (BubblewrapArgv.under(real, spelling)
            && BubblewrapArgv.depth(spelling) > deepest) {
          best = Path.of(root).resolve(Path.of(spelling).relativize(Path.of(real))).toString();
          deepest = BubblewrapArgv.depth(spelling);
        }
      }
    }
    return best;
  }
}
