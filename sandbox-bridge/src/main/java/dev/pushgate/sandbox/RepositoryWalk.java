package dev.pushgate.sandbox;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Every repository git could discover under some directories, at any depth: each {@code .git}
 * entry (directory, file or symlink: git follows all three) and each directory git takes as a
 * git directory itself (see {@link #isGitDirectory}). Symlinks are never followed, the
 * {@code objects/} of a git directory is not entered (it holds only objects), and the walk is
 * bounded: when it stops early, {@link Found#unchecked} says where, so that the caller can fail
 * closed.
 *
 * <p>The walk is breadth-first, and each directory is looked into (its {@code .git}, whether it
 * is a git directory) when its parent is listed, before any directory is entered: a directory an
 * agent fills with entries (hard links cost no space) exhausts the bound only within itself, and
 * a repository planted beside it is still found. Git directories are entered before the others. When the walk stops, every top-level directory
 * it had not finished is named (up to {@link #MAX_NAMED}), not only where it stopped.
 */
final class RepositoryWalk {
  /** Bounds of one walk; the defaults cover a large worktree in a few seconds. */
  record Limits(int maxEntries, Duration maxTime) {
    static final Limits DEFAULT = new Limits(500_000, Duration.ofSeconds(30));
  }

  /** What one walk found; {@code unchecked} is empty when it walked everything. */
  record Found(Set<Path> dotGits, Set<Path> gitDirectories, List<String> unchecked) {}

  /** How many unfinished directories a stopped walk names; the rest are counted. */
  static final int MAX_NAMED = 20;

  private final Limits limits;
  private final long deadline;
  private final Set<Path> dotGits = new LinkedHashSet<>();
  private final Set<Path> gitDirs = new LinkedHashSet<>();
  private final List<String> unchecked = new ArrayList<>();
  private final Deque<Path> queue = new ArrayDeque<>();
  private int entries;

  private RepositoryWalk(Limits limits) {
    this.limits = limits;
    this.deadline = System.nanoTime() + limits.maxTime().toNanos();
  }

  static Found walk(List<Path> roots, Limits limits) {
    RepositoryWalk walk = new RepositoryWalk(limits);
    for (Path root : roots) {
      walk.look(root);
    }
    walk.run(roots);
    return new Found(walk.dotGits, walk.gitDirs, List.copyOf(walk.unchecked));
  }

  private void run(List<Path> roots) {
    while (!queue.isEmpty()) {
      Path dir = queue.removeFirst();
      try (DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
        for (Path child : children) {
          if (++entries > limits.maxEntries() || System.nanoTime() > deadline) {
            stopped(roots, dir);
            return;
          }
          look(child);
        }
      } catch (IOException | RuntimeException e) {
        // Git on the host (root) may still read what this walk could not: fail closed.
        unchecked.add(dir + " (" + e.getClass().getSimpleName() + ")");
      }
    }
  }

  /** Records what {@code p} is, and queues it when it is a directory to enter. */
  private void look(Path p) {
    BasicFileAttributes a;
    try {
      a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (IOException e) {
      return; // gone since its parent was listed
    }
    if (isDotGit(p)) {
      dotGits.add(p);
    }
    if (!a.isDirectory()) {
      return;
    }
    Path dotGit = p.resolve(".git");
    if (Files.exists(dotGit, LinkOption.NOFOLLOW_LINKS)) {
      dotGits.add(dotGit); // found now, even if the walk stops before it enters p
    }
    Path parent = p.getParent();
    if (p.getFileName() != null && p.getFileName().toString().equals("objects")
        && parent != null && gitDirs.contains(parent)) {
      return;
    }
    if (isGitDirectory(p)) {
      // Entered first: what it holds (modules/, worktrees/) is more git directories.
      gitDirs.add(p);
      queue.addFirst(p);
    } else {
      queue.addLast(p);
    }
  }

  /** Names each top-level directory the walk had not finished: {@code at}'s first. */
  private void stopped(List<Path> roots, Path at) {
    Set<Path> tops = new LinkedHashSet<>();
    tops.add(topLevel(roots, at));
    for (Path waiting : queue) {
      tops.add(topLevel(roots, waiting));
    }
    int named = 0;
    for (Path top : tops) {
      if (named == MAX_NAMED) {
        unchecked.add((tops.size() - named) + " more directories directly in "
            + rootOf(roots, top) + " (not walked to the end)");
        return;
      }
      if (named == 0) {
        unchecked.add(top + " (the walk stopped after " + (entries - 1) + " entries"
            + (top.equals(at) ? "" : ", in " + at) + "; bounds " + limits.maxEntries()
            + " entries, " + limits.maxTime().toSeconds() + " s)");
      } else {
        unchecked.add(top + " (not walked to the end)");
      }
      named++;
    }
  }

  /** The root {@code p} is under, or {@code p}'s entry directly in that root. */
  private static Path topLevel(List<Path> roots, Path p) {
    Path root = rootOf(roots, p);
    return p.equals(root) ? p : root.resolve(root.relativize(p).getName(0));
  }

  private static Path rootOf(List<Path> roots, Path p) {
    Path best = p;
    for (Path root : roots) {
      if (p.startsWith(root) && (best == p || root.getNameCount() > best.getNameCount())) {
        best = root;
      }
    }
    return best;
  }

  private static boolean isDotGit(Path p) {
    return p.getFileName() != null && p.getFileName().toString().equals(".git");
  }

  /**
   * Whether git would take {@code dir} as a git directory (git's {@code is_git_directory}: a
   * {@code HEAD}, with {@code objects/} and {@code refs/} or a {@code commondir} naming where
   * they are). Looser than git on purpose: a {@code HEAD} with any one of them is enough.
   */
  static boolean isGitDirectory(Path dir) {
    if (!Files.exists(dir.resolve("HEAD"), LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    for (String part : List.of("objects", "refs", GitMetadata.COMMONDIR)) {
      if (Files.exists(dir.resolve(part), LinkOption.NOFOLLOW_LINKS)) {
        return true;
      }
    }
    return false;
  }
}
