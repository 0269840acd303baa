package dev.pushgate.sandbox;

import dev.pushgate.gitconfig.UpstreamConfigEdit;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end-of-run check of the git metadata a run could write but must not leave: which repository
 * a worktree is (a {@code .git} that became a file or link, or another directory, redirects the
 * next host git to a repository the agent wrote) and where its common directory is (a planted
 * {@code commondir} does the same for a {@code .git} directory). Each is put back as it was at
 * launch and reported. A repository the run created is the agent's own while it runs; when it
 * holds anything that would make git on the host run a program, it is moved aside and reported.
 * In every git directory, created or not, an operation the run left in progress (a rebase whose
 * todo runs {@code exec} lines on {@code --continue}) and any new entry that git's ordinary work
 * does not leave are moved aside ({@link UntrustedEntries}). At each worktree's root, what the
 * run created or changed of the files a tool on the operator's side runs is reported
 * ({@link HostToolFiles}).
 * The repositories looked at are every one git could discover under the writable mounts, at any
 * depth ({@link RepositoryWalk}): each {@code .git} entry and each directory that is itself a git
 * directory (a bare repository planted as a plain directory). {@link BubblewrapArgv#gitDirectories}
 * protects only those of the mounts and of the directories directly inside them while the run
 * lasts; what the agent could write in any other is judged here. A walk that stops at its bounds
 * is itself reported, with what it did not check.
 */
final class GitMetadataCheck implements RunEndCheck {
  private static final Logger LOG = LoggerFactory.getLogger(GitMetadataCheck.class);

  /** Where a planted {@code .git} is moved: git never reads it there, a person can still look. */
  static final String QUARANTINE_SUFFIX = ".planted-by-run";

  static final String ACTION = SandboxViolation.GIT_METADATA;

  private enum Kind { DIRECTORY, FILE, LINK, OTHER, MISSING }

  /** A {@code .git} as it was at launch. */
  private record State(Kind kind, Object fileKey, byte[] content, Path linkTarget) {}

  private final List<Path> roots;
  private final RepositoryWalk.Limits limits;
  /** Each worktree's {@code .git} at launch, by worktree. */
  private final Map<Path, State> before = new LinkedHashMap<>();
  /** Each git directory at launch (a {@code .git} directory or a bare one), by its path. */
  private final Map<Path, GitDirectoryState> beforeDirs = new LinkedHashMap<>();

  /**
   * What of {@link HostToolFiles#ENTRIES} each worktree held at launch. A root that was empty at
   * launch is not in it: what the run puts there is all its own (exec's clone fills it).
   */
  private final Map<Path, Map<String, String>> toolFiles = new LinkedHashMap<>();
  private final Set<Path> emptyRoots = new LinkedHashSet<>();

  private GitMetadataCheck(List<Path> roots, RepositoryWalk.Limits limits) {
    this.roots = List.copyOf(roots);
    this.limits = limits;
  }

  /** Records every repository under the writable roots, before the launch. */
  static GitMetadataCheck snapshot(List<Path> writableRoots) {
    return snapshot(writableRoots, RepositoryWalk.Limits.DEFAULT);
  }

  /**
   * As {@link #snapshot(List)}, with other bounds. A repository the snapshot did not reach is
   * judged at the end as one the run created: stricter, never laxer.
   */
  static GitMetadataCheck snapshot(List<Path> writableRoots, RepositoryWalk.Limits limits) {
    GitMetadataCheck check = new GitMetadataCheck(writableRoots, limits);
    RepositoryWalk.Found found = RepositoryWalk.walk(check.roots, limits);
    for (Path root : check.roots) {
      check.before.put(root, state(root.resolve(".git")));
    }
    for (Path git : found.dotGits()) {
      check.before.put(git.getParent(), state(git));
    }
    for (Path root : check.roots) {
      if (isEmptyDirectory(root)) {
        check.emptyRoots.add(root);
      }
    }
    for (Path worktree : check.before.keySet()) {
      check.toolFiles.put(worktree, HostToolFiles.snapshot(worktree));
    }
    Set<Path> dirs = new LinkedHashSet<>(found.gitDirectories());
    dirs.addAll(found.dotGits());
    for (Path dir : dirs) {
      try {
        if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
          check.beforeDirs.put(dir, GitDirectoryState.of(dir));
        }
      } catch (IOException e) {
        LOG.warn("cannot read {} before the run: {}", dir, e.getMessage());
      }
    }
    return check;
  }

  @Override
  public List<SandboxViolation> check() {
    List<SandboxViolation> found = new ArrayList<>();
    RepositoryWalk.Found now = RepositoryWalk.walk(roots, limits);
    for (String place : now.unchecked()) {
      found.add(new SandboxViolation(ACTION, place, "not checked after the run: " + place
          + "; look for repositories there (a .git, or a directory with HEAD, objects and refs)"
          + " before running git in or under it"));
    }
    Set<Path> worktrees = new LinkedHashSet<>(before.keySet());
    for (Path git : now.dotGits()) {
      worktrees.add(git.getParent());
    }
    for (Path worktree : worktrees) {
      State was = before.getOrDefault(worktree, missing());
      try {
        checkOne(worktree, was, found);
      } catch (IOException | RuntimeException e) {
        found.add(violation(worktree.resolve(".git"), "could not be checked after the run ("
            + e.getMessage() + "); look at it before running git there"));
      }
    }
    for (Path worktree : worktrees) {
      if (!emptyRoots.contains(worktree)) {
        found.addAll(HostToolFiles.changes(worktree, toolFiles.getOrDefault(worktree, Map.of())));
      }
    }
    Set<Path> dirs = new LinkedHashSet<>(beforeDirs.keySet());
    dirs.addAll(now.gitDirectories());
    dirs.addAll(now.dotGits());
    for (Path dir : dirs) {
      if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        continue; // moved aside or put back above, or gone
      }
      try {
        judge(dir, beforeDirs.get(dir), found);
      } catch (IOException | RuntimeException e) {
        found.add(violation(dir, "could not be checked after the run (" + e.getMessage()
            + "); look at it before running git there"));
      }
    }
    if (!found.isEmpty()) {
      // Counted, not quoted: the findings name paths the agent chose, which the launcher's
      // readers redact (the run's tokens) before they show them.
      LOG.warn("the end-of-run check found {} thing(s) in the worktrees; see the run's events",
          found.size());
    }
    return found;
  }

  private void checkOne(Path worktree, State was, List<SandboxViolation> found)
      throws IOException {
    Path git = worktree.resolve(".git");
    State now = state(git);
    switch (was.kind()) {
      case MISSING -> {
        // A new .git directory is a new repository: judge() looks at it with every other.
        if (now.kind() != Kind.DIRECTORY && now.kind() != Kind.MISSING) {
          Path aside = quarantine(git);
          found.add(violation(git, "a .git " + describe(now) + " appeared during the run; moved"
              + " to " + aside.getFileName() + " (git would have used the repository it names)"));
        }
      }
      case DIRECTORY -> {
        if (now.kind() != Kind.DIRECTORY || !Objects.equals(now.fileKey(), was.fileKey())) {
          Path aside = now.kind() == Kind.MISSING ? null : quarantine(git);
          Path original = find(worktree, was.fileKey());
          if (original != null) {
            Files.move(original, git);
          }
          found.add(violation(git, "the .git directory was replaced during the run"
              + (aside == null ? "" : "; the new one is moved to " + aside.getFileName())
              + (original == null ? "; the original was not found"
                  : "; the original is back (it was at " + worktree.relativize(original) + ")")));
        }
      }
      default -> {
        if (!same(was, now)) {
          Path aside = now.kind() == Kind.MISSING ? null : quarantine(git);
          restore(git, was);
          found.add(violation(git, "the .git " + describe(was) + " was changed during the run;"
              + " put back as it was" + (aside == null ? "" : ", the new one is moved to "
              + aside.getFileName())));
        }
      }
    }
  }

  /**
   * One git directory that is there after the run. One the run created (or put in the place of
   * another) is moved aside when git on the host would run or follow anything of it; in one that
   * was there, what the run changed of {@link GitDirectoryState#FILES} is put back and new or
   * changed hooks are moved aside ({@link ChangedHooks}). A planted {@code commondir} is removed from either.
   */
  private void judge(Path dir, GitDirectoryState was, List<SandboxViolation> found)
      throws IOException {
    GitDirectoryState now = GitDirectoryState.of(dir);
    boolean created = was == null || !was.sameDirectory(now);
    UntrustedEntries.judge(dir, created ? null : was, now, found);
    checkCommondir(dir, created ? null : was.files().get(GitMetadata.COMMONDIR), found);
    if (created) {
      List<String> live = CreatedRepository.whatGitWouldRunOrFollow(dir);
      if (!live.isEmpty()) {
        Path aside = quarantine(dir);
        // Moved aside it is still a git directory: a person (or a git-aware prompt) looking
        // into it would run git there. Without HEAD, no git takes it for a repository.
        boolean defused = Files.exists(aside.resolve("HEAD"), LinkOption.NOFOLLOW_LINKS);
        if (defused) {
          quarantine(aside.resolve("HEAD"));
        }
        found.add(violation(dir, "a repository created during the run has what git on the"
            + " host would run or follow: " + String.join(", ", live) + "; moved to "
            + aside.getFileName() + " (look at it before moving it back)"
            + (defused ? "; its HEAD is renamed HEAD" + QUARANTINE_SUFFIX
                + " so that no git takes it for a repository meanwhile" : "")));
      }
      return;
    }
    for (String name : was.changedFiles(now)) {
      if (name.equals(GitMetadata.COMMONDIR) || upstreamsOnly(name, was, now)) {
        continue;
      }
      Path file = dir.resolve(name);
      Path link = was.links().get(name);
      if (link != null && link.equals(now.links().get(name))) {
        // The operator's link is there still, but what it leads to changed: the run wrote it.
        // It cannot be put back from here; git on the host must not read it meanwhile.
        Path aside = quarantine(file);
        found.add(violation(file, "a link to " + link + ", whose file changed during the run;"
            + " the link is moved to " + aside.getFileName() + " (look at what it leads to"
            + " before moving it back)"));
        continue;
      }
      FileTrees.delete(file);
      byte[] bytes = was.files().get(name);
      if (bytes != null) {
        Files.write(file, bytes);
      } else if (link != null) {
        Files.createSymbolicLink(file, link);
      }
      found.add(violation(file, "changed during the run; put back as it was"
          + (bytes == null && link == null ? " (removed)" : "")));
    }
    ChangedHooks.judge(dir, was, now, found);
  }

  /**
   * Whether the run changed {@code config} only by branches' upstreams, as {@code git push -u}
   * does: kept, judged by the same rule as the name-deny layer judged the write while the run
   * lived ({@link UpstreamConfigEdit}).
   */
  private static boolean upstreamsOnly(String name, GitDirectoryState was, GitDirectoryState now) {
    byte[] before = was.files().get(name);
    byte[] after = now.files().get(name);
    return name.equals("config") && before != null && after != null
        && UpstreamConfigEdit.refusal(new String(before, StandardCharsets.ISO_8859_1),
            new String(after, StandardCharsets.ISO_8859_1)) == null;
  }

  /** A {@code commondir} the run planted is removed; one that was there is put back as it was. */
  private static void checkCommondir(Path git, byte[] was, List<SandboxViolation> found)
      throws IOException {
    Path commondir = git.resolve(GitMetadata.COMMONDIR);
    boolean exists = Files.exists(commondir, LinkOption.NOFOLLOW_LINKS);
    if (was == null && exists) {
      FileTrees.delete(commondir);
      found.add(violation(commondir, "planted during the run (git would have taken the config"
          + " and hooks of the directory it names); removed"));
    } else if (was != null && !(Files.isRegularFile(commondir, LinkOption.NOFOLLOW_LINKS)
        && Arrays.equals(Files.readAllBytes(commondir), was))) {
      if (exists) {
        FileTrees.delete(commondir);
      }
      Files.write(commondir, was);
      found.add(violation(commondir, "changed during the run; put back as it was"));
    }
  }

  /** The original {@code .git}, renamed: looked for next to it and one level down. */
  private Path find(Path worktree, Object fileKey) throws IOException {
    if (fileKey == null) {
      return null;
    }
    Set<Path> places = new LinkedHashSet<>();
    places.add(worktree);
    for (Path root : roots) {
      if (worktree.startsWith(root)) {
        places.add(root);
      }
    }
    for (Path place : places) {
      List<Path> candidates = new ArrayList<>();
      try (var entries = Files.list(place)) {
        entries.filter(p -> Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)).forEach(p -> {
          candidates.add(p);
          try (var inner = Files.list(p)) {
            inner.filter(q -> Files.isDirectory(q, LinkOption.NOFOLLOW_LINKS))
                .forEach(candidates::add);
          } catch (IOException e) {
            // Not listable: not where the original is.
          }
        });
      }
      for (Path c : candidates) {
        if (fileKey.equals(state(c).fileKey())) {
          return c;
        }
      }
    }
    return null;
  }

  /** Moves {@code path} aside to {@code <name>.planted-by-run}, a name git never looks for. */
  static Path quarantine(Path path) throws IOException {
    String name = path.getFileName() + QUARANTINE_SUFFIX;
    Path aside = path.resolveSibling(name);
    for (int n = 1; Files.exists(aside, LinkOption.NOFOLLOW_LINKS); n++) {
      aside = path.resolveSibling(name + "-" + n);
    }
    Files.move(path, aside);
    return aside;
  }

  private static boolean isEmptyDirectory(Path dir) {
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    try (var entries = Files.list(dir)) {
      return entries.findAny().isEmpty();
    } catch (IOException e) {
      return false;
    }
  }

  private static void restore(Path git, State was) throws IOException {
    if (was.kind() == Kind.FILE) {
      Files.write(git, was.content());
    } else if (was.kind() == Kind.LINK) {
      Files.createSymbolicLink(git, was.linkTarget());
    }
  }

  private static boolean same(State a, State b) {
    return a.kind() == b.kind() && Arrays.equals(a.content(), b.content())
        && Objects.equals(a.linkTarget(), b.linkTarget());
  }

  private static State missing() {
    return new State(Kind.MISSING, null, null, null);
  }

  private static State state(Path git) {
    BasicFileAttributes a;
    try {
      a = Files.readAttributes(git, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (IOException e) {
      return missing();
    }
    try {
      if (a.isSymbolicLink()) {
        return new State(Kind.LINK, null, null, Files.readSymbolicLink(git));
      }
      if (a.isRegularFile()) {
        return new State(Kind.FILE, a.fileKey(), Files.readAllBytes(git), null);
      }
      if (a.isDirectory()) {
        return new State(Kind.DIRECTORY, a.fileKey(), null, null);
      }
    } catch (IOException e) {
      return new State(Kind.OTHER, a.fileKey(), null, null);
    }
    return new State(Kind.OTHER, a.fileKey(), null, null);
  }

  private static String describe(State s) {
    return switch (s.kind()) {
      case FILE -> "file";
      case LINK -> "symlink";
      case DIRECTORY -> "directory";
      default -> "special file";
    };
  }

  static SandboxViolation violation(Path path, String what) {
    return new SandboxViolation(ACTION, path.toString(), path + ": " + what);
  }

}
