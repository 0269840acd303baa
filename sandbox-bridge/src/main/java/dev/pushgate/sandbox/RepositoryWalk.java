package dev.pushgate.sandbox;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
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
 */
final class RepositoryWalk {
  /** Bounds of one walk; the defaults cover a large worktree in a few seconds. */
  record Limits(int maxEntries, Duration maxTime) {
    static final Limits DEFAULT = new Limits(500_000, Duration.ofSeconds(30));
  }

  /** What one walk found; {@code unchecked} is empty when it walked everything. */
  record Found(Set<Path> dotGits, Set<Path> gitDirectories, List<String> unchecked) {}

  private RepositoryWalk() {}

  static Found walk(List<Path> roots, Limits limits) {
    Set<Path> dotGits = new LinkedHashSet<>();
    Set<Path> gitDirs = new LinkedHashSet<>();
    List<String> unchecked = new ArrayList<>();
    long deadline = System.nanoTime() + limits.maxTime().toNanos();
    int[] entries = {0};
    for (Path root : roots) {
      if (!unchecked.isEmpty()) {
        unchecked.add(root + " (not walked)");
        continue;
      }
      if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
        continue;
      }
      try {
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
            if (overBound(dir)) {
              return FileVisitResult.TERMINATE;
            }
            if (isDotGit(dir)) {
              dotGits.add(dir);
            }
            if (isGitDirectory(dir)) {
              gitDirs.add(dir);
            }
            Path parent = dir.getParent();
            if (dir.getFileName() != null && dir.getFileName().toString().equals("objects")
                && parent != null && gitDirs.contains(parent)) {
              return FileVisitResult.SKIP_SUBTREE;
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
            if (overBound(file)) {
              return FileVisitResult.TERMINATE;
            }
            if (isDotGit(file)) {
              dotGits.add(file);
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) {
            // Git on the host (root) may still read what this walk could not: fail closed.
            unchecked.add(file + " (" + e.getClass().getSimpleName() + ")");
            return FileVisitResult.CONTINUE;
          }

          private boolean overBound(Path at) {
            if (++entries[0] > limits.maxEntries() || System.nanoTime() > deadline) {
              unchecked.add(at + " and what the walk had not reached yet (stopped after "
                  + (entries[0] - 1) + " entries; bounds " + limits.maxEntries() + " entries, "
                  + limits.maxTime().toSeconds() + " s)");
              return true;
            }
            return false;
          }
        });
      } catch (IOException e) {
        unchecked.add(root + " (" + e.getMessage() + ")");
      }
    }
    return new Found(dotGits, gitDirs, List.copyOf(unchecked));
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
