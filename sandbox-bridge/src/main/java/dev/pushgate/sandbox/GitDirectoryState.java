package dev.pushgate.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What of one git directory decides which programs git runs and which repository it reads: the
 * files of {@link #FILES} and the hooks. Recorded before the run so that a repository that was
 * there can be put back, and one that changed can be told from one that did not.
 *
 * @param fileKey the directory's identity: another directory in its place is a new repository
 * @param files each of {@link #FILES} that is a non-empty regular file, by name, with its bytes
 *     (git reads an empty one as nothing set; bwrap leaves empty ones as mount points)
 * @param oddFiles each of {@link #FILES} that exists but is not a regular file, with what it is:
 *     for a symlink (an operator's {@code config} kept elsewhere), its target and the {@link
 *     TreeDigest} of what it leads to, which the run may be able to write
 * @param links each of {@link #FILES} that is a symlink, and {@link #HOOKS} when it is one (an
 *     operator's shared hooks), with its target as written; {@code oddFiles} holds the digest
 *     of what a {@code hooks} link leads to under the same name
 * @param hooks the hooks git would run: names in {@code hooks/} other than git's samples, each
 *     with the {@link TreeDigest} of what it is (bytes, mode, kind, link target) and, for a
 *     symlink, of what it leads to
 * @param entries every top-level entry by name, with the {@link TreeDigest} of each that holds
 *     an operation in progress ({@link GitMetadata#isOperationState}) and "" for the others
 */
record GitDirectoryState(Object fileKey, Map<String, byte[]> files,
    Map<String, String> oddFiles, Map<String, Path> links, Map<String, String> hooks,
    Map<String, String> entries) {

  /** The files of a git directory that name a program or another repository. */
  static final List<String> FILES = List.of("config", "config.worktree", GitMetadata.COMMONDIR,
      "objects/info/alternates", "objects/info/http-alternates");

  /** The directory of a git directory whose entries git runs as hooks. */
  static final String HOOKS = "hooks";

  static GitDirectoryState of(Path dir) throws IOException {
    Object key = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
        .fileKey();
    Map<String, byte[]> files = new LinkedHashMap<>();
    Map<String, String> odd = new TreeMap<>();
    Map<String, Path> links = new TreeMap<>();
    for (String name : FILES) {
      Path p = dir.resolve(name);
      if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
        byte[] bytes = Files.readAllBytes(p);
        if (bytes.length > 0) {
          files.put(name, bytes);
        }
      } else if (Files.isSymbolicLink(p)) {
        links.put(name, Files.readSymbolicLink(p));
        odd.put(name, linkDigest(p));
      } else if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
        odd.put(name, TreeDigest.of(p));
      }
    }
    Map<String, String> hooks = new TreeMap<>();
    Path h = dir.resolve(HOOKS);
    if (Files.isDirectory(h, LinkOption.NOFOLLOW_LINKS)) {
      try (var entries = Files.list(h)) {
        entries.filter(p -> !p.getFileName().toString().endsWith(".sample"))
            .forEach(p -> hooks.put(p.getFileName().toString(), hookDigest(p)));
      }
    } else if (Files.isSymbolicLink(h)) {
      links.put(HOOKS, Files.readSymbolicLink(h));
      odd.put(HOOKS, linkDigest(h));
    }
    Map<String, String> entries = new LinkedHashMap<>();
    try (var list = Files.list(dir)) {
      list.sorted().forEach(p -> {
        String name = p.getFileName().toString();
        entries.put(name, GitMetadata.isOperationState(name) ? TreeDigest.of(p) : "");
      });
    }
    return new GitDirectoryState(key, files, odd, links, hooks, entries);
  }

  /**
   * What git runs for one hook: the entry itself and, for a symlink, what it leads to (a hook
   * the operator linked to a script in the worktree runs whatever the run wrote there).
   */
  private static String hookDigest(Path hook) {
    return Files.isSymbolicLink(hook) ? linkDigest(hook) : TreeDigest.of(hook);
  }

  /** A symlink and what it leads to: its target may be a file the run can write. */
  private static String linkDigest(Path link) {
    String digest = TreeDigest.of(link);
    try {
      return digest + " -> " + TreeDigest.of(link.toRealPath());
    } catch (IOException e) {
      return digest + " -> nothing";
    }
  }

  boolean sameDirectory(GitDirectoryState other) {
    return Objects.equals(fileKey, other.fileKey);
  }

  /** The names of {@link #FILES} that differ between this state and {@code now}. */
  List<String> changedFiles(GitDirectoryState now) {
    return FILES.stream().filter(n -> !Arrays.equals(files.get(n), now.files.get(n))
        || !Objects.equals(oddFiles.get(n), now.oddFiles.get(n))).toList();
  }
}
