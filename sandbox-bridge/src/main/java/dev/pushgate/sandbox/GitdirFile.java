package dev.pushgate.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * A file by which git finds a git directory elsewhere, read at launch from the operator's
 * checkout: a {@code .git} file ({@code gitdir: PATH}: a linked worktree, a {@code clone
 * --separate-git-dir}) and a git directory's {@code commondir} ({@code PATH}: where a linked
 * worktree's config and hooks are). Read as git's {@code read_gitfile} and {@code
 * get_common_dir_noenv} do (one line, the prefix, a path relative to the file's directory), but
 * without following a symlink at the file itself and bounded in size; the named directory is
 * given by its real path, so that where it lies is judged on what the kernel will reach, never on
 * how the file spells it.
 */
final class GitdirFile {
  /** What a {@code .git} file starts with. */
  static final String GITDIR_PREFIX = "gitdir: ";

  private static final int MAX_BYTES = 4096;

  private GitdirFile() {}

  /**
   * The real path of the directory {@code file} names after {@code prefix}, or null when the file
   * is not a regular file, does not start with the prefix, or names no directory (git then finds
   * no repository there either).
   */
  static String namedBy(String file, String prefix) {
    try {
      Path path = Path.of(file);
      if (!Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
        return null;
      }
      byte[] bytes;
      try (InputStream in = Files.newInputStream(path, LinkOption.NOFOLLOW_LINKS)) {
        bytes = in.readNBytes(MAX_BYTES + 1);
      }
      if (bytes.length > MAX_BYTES) {
        return null;
      }
      String text = new String(bytes, StandardCharsets.UTF_8);
      if (!text.startsWith(prefix)) {
        return null;
      }
      String named = text.substring(prefix.length()).stripTrailing();
      if (named.isEmpty() || named.indexOf('\n') >= 0 || named.indexOf('\0') >= 0) {
        return null;
      }
      Path dir = path.getParent().resolve(named).toRealPath();
      return Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS) ? dir.toString() : null;
    } catch (IOException | InvalidPathException | SecurityException e) {
      return null;
    }
  }
}
