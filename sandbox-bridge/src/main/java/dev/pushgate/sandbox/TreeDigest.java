package dev.pushgate.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * What a file or a directory tree holds, as one SHA-256: names, kinds, bytes, whether a file is
 * executable, and link targets,
 * never following a link. Two digests are equal when nothing of the tree changed, so that what a
 * run left can be told from what was there before it.
 */
final class TreeDigest {
  /** A tree larger than this is taken as changed: a rebase's state is a few files. */
  private static final int MAX_ENTRIES = 10_000;

  private TreeDigest() {}

  /** The digest of {@code path}, or a value unequal to every other when it cannot be read. */
  static String of(Path path) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      int[] entries = {0};
      add(sha, path, "", entries);
      return HexFormat.of().formatHex(sha.digest());
    } catch (IOException | NoSuchAlgorithmException e) {
      return "unreadable " + System.nanoTime() + " " + e.getMessage();
    }
  }

  /**
   * Whether {@code path} holds no byte: only directories and empty files, no link, nothing else
   * (what bwrap leaves as mount points for the paths it denies). Such a tree runs nothing.
   */
  static boolean holdsNothing(Path path) {
    try (var all = Files.walk(path)) {
      return all.limit(MAX_ENTRIES).allMatch(p -> {
        try {
          BasicFileAttributes a =
              Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
          return a.isDirectory() || (a.isRegularFile() && a.size() == 0);
        } catch (IOException e) {
          return false;
        }
      });
    } catch (IOException | java.io.UncheckedIOException e) {
      return false;
    }
  }

  private static void add(MessageDigest sha, Path path, String name, int[] entries)
      throws IOException {
    if (++entries[0] > MAX_ENTRIES) {
      throw new IOException("more than " + MAX_ENTRIES + " entries");
    }
    BasicFileAttributes a =
        Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    sha.update((name + "\0").getBytes(StandardCharsets.UTF_8));
    if (a.isSymbolicLink()) {
      sha.update(("L" + Files.readSymbolicLink(path) + "\0").getBytes(StandardCharsets.UTF_8));
    } else if (a.isRegularFile()) {
      // The mode counts: a hook git skipped at launch runs once it is made executable.
      sha.update(("F" + a.size() + (isExecutable(path) ? "x" : "") + "\0")
          .getBytes(StandardCharsets.UTF_8));
      try (InputStream in = Files.newInputStream(path, LinkOption.NOFOLLOW_LINKS)) {
        byte[] buf = new byte[8192];
        for (int n; (n = in.read(buf)) > 0; ) {
          sha.update(buf, 0, n);
        }
      }
    } else if (a.isDirectory()) {
      sha.update("D\0".getBytes(StandardCharsets.UTF_8));
      List<Path> children;
      try (var list = Files.list(path)) {
        children = list.sorted().toList();
      }
      for (Path child : children) {
        add(sha, child, name + "/" + child.getFileName(), entries);
      }
    } else {
      sha.update("O\0".getBytes(StandardCharsets.UTF_8));
    }
  }

  /** Whether any execute bit is set: git runs a hook that any of them lets it run. */
  private static boolean isExecutable(Path file) throws IOException {
    Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
    return mode.contains(PosixFilePermission.OWNER_EXECUTE)
        || mode.contains(PosixFilePermission.GROUP_EXECUTE)
        || mode.contains(PosixFilePermission.OTHERS_EXECUTE);
  }
}
