package dev.pushgate.appliance.runs;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import dev.pushgate.types.UntrustedText;

/**
 * Removes one entry of a directory and everything under it without ever leaving that directory:
 * the entry is one plain name, and every step goes through a directory handle opened without
 * following links ({@link SecureDirectoryStream}: {@code openat}, {@code unlinkat}), so that a
 * symbolic link, even one swapped in while the removal runs, is never followed. A link inside
 * the tree is removed as a link; the entry itself being a link is refused, since pushgate never
 * makes one there.
 */
final class DirectoryRemoval {
  private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};

  private DirectoryRemoval() {}

  /**
   * Removes {@code parent/name} and its tree; nothing when it (or {@code parent}) does not exist.
   *
   * @throws IOException when {@code name} is not one plain name, the entry is a symbolic link or
   *     not a directory, or the file system cannot remove without following links
   */
  static void removeChild(Path parent, String name) throws IOException {
    Path entry = plainName(parent, name);
    if (!Files.isDirectory(parent)) {
      return; // no runs directory yet: nothing in it to remove
    }
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(parent)) {
      if (!(stream instanceof SecureDirectoryStream<Path> dir)) {
        throw new IOException("this file system cannot remove " + parent.resolve(entry)
            + " without following links; left in place");
      }
      BasicFileAttributes a;
      try {
        a = attributes(dir, entry);
      } catch (NoSuchFileException e) {
        return;
      }
      if (a.isSymbolicLink() || !a.isDirectory()) {
        throw new IOException(parent.resolve(entry) + " is " + (a.isSymbolicLink()
            ? "a symbolic link" : "not a directory") + ", which pushgate never makes there;"
            + " left in place");
      }
      empty(dir, entry);
      dir.deleteDirectory(entry);
    }
  }

  private static Path plainName(Path parent, String name) throws IOException {
    Path entry = parent.getFileSystem().getPath(name);
    if (name.isEmpty() || entry.isAbsolute() || entry.getNameCount() != 1 || name.contains("/")
        || name.equals(".") || name.equals("..")) {
      throw new IOException("not one plain name in " + parent + ": "
          + UntrustedText.printable(name));
    }
    return entry;
  }

  /** Removes everything in the directory {@code name} of {@code dir}. */
  private static void empty(SecureDirectoryStream<Path> dir, Path name) throws IOException {
    try (SecureDirectoryStream<Path> sub = dir.newDirectoryStream(name, NOFOLLOW)) {
      List<Path> names = new ArrayList<>();
      for (Path p : sub) {
        names.add(p.getFileName());
      }
      for (Path n : names) {
        BasicFileAttributes a = attributes(sub, n);
        if (a.isDirectory() && !a.isSymbolicLink()) {
          empty(sub, n);
          sub.deleteDirectory(n);
        } else {
          sub.deleteFile(n);
        }
      }
    }
  }

  private static BasicFileAttributes attributes(SecureDirectoryStream<Path> dir, Path name)
      throws IOException {
    return dir.getFileAttributeView(name, BasicFileAttributeView.class, NOFOLLOW)
        .readAttributes();
  }
}
