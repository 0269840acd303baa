package dev.pushgate.appliance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The data directory is trusted only when no other local user could have put anything in it: it
 * and its control socket belong to the user running pushgate and only that user can write them,
 * and every directory above belongs to that user or root and nobody else can rename what is in
 * it (the sticky bit of {@code /tmp} stops others from doing so). Otherwise another user could swap
 * in a control socket of their own, and {@code pushgate exec} would run the plan it answers.
 * Judged on the path the kernel resolves, never following a link at the socket.
 */
public final class DataDirectory {
  private static final int ROOT = 0;
  /** The control API's socket, in the data directory. */
  public static final String CONTROL_SOCKET = "control.sock";

  private DataDirectory() {}

  /** The data directory a command reads, checked; it must exist. */
  public static Path existing(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      throw new IOException("the data directory " + dir + " does not exist; give the"
          + " appliance's --data-dir");
    }
    Path real = dir.toRealPath();
    checkAbove(real.getParent());
    checkOwn(real, "the data directory " + real);
    return real;
  }

  /**
   * The data directory {@code serve} or {@code forge create} works in, checked, and made (0700)
   * when missing once the directory it is made in is checked.
   */
  public static Path prepare(Path dir) throws IOException {
    Path abs = dir.toAbsolutePath().normalize();
    if (!Files.exists(abs)) {
      Path existing = abs.getParent();
      while (!Files.exists(existing)) {
        existing = existing.getParent();
      }
      checkAbove(existing.toRealPath());
      Files.createDirectories(abs, PosixFilePermissions.asFileAttribute(
          PosixFilePermissions.fromString("rwx------")));
    }
    return existing(abs);
  }

  /**
   * What {@link #prepare} would refuse, without making anything: {@code config check} judges the
   * data directory as {@code serve} will.
   */
  public static void check(Path dir) throws IOException {
    Path abs = dir.toAbsolutePath().normalize();
    if (Files.exists(abs)) {
      existing(abs);
      return;
    }
    Path existing = abs.getParent();
    while (!Files.exists(existing)) {
      existing = existing.getParent();
    }
    checkAbove(existing.toRealPath());
  }

  /** The control socket of a checked data directory: the appliance's, not another user's. */
  public static Path socket(Path realDir) throws IOException {
    Path socket = realDir.resolve(CONTROL_SOCKET);
    PosixFileAttributes a = attributes(socket);
    String what = "the control socket " + socket;
    if (a.isSymbolicLink()) {
      throw new UntrustedDataDirectoryException(what, "it is a symbolic link, not the"
          + " appliance's socket; remove it and restart the appliance");
    }
    if (!a.isOther()) {
      throw new UntrustedDataDirectoryException(what, "it is not a socket; remove it and restart"
          + " the appliance");
    }
    checkOwner(socket, a, false, what);
    checkNotWritableByOthers(socket, a, false, what);
    return socket;
  }

  /** {@code dir} and every directory above it, as the directories a data directory is kept in. */
  private static void checkAbove(Path dir) throws IOException {
    for (Path p = dir; p != null; p = p.getParent()) {
      PosixFileAttributes a = attributes(p);
      String what = "the directory " + p + " above the data directory";
      checkOwner(p, a, true, what);
      checkNotWritableByOthers(p, a, true, what);
    }
  }

  private static void checkOwn(Path real, String what) throws IOException {
    PosixFileAttributes a = attributes(real);
    checkOwner(real, a, false, what);
    checkNotWritableByOthers(real, a, false, what);
  }

  private static void checkOwner(Path p, PosixFileAttributes a, boolean rootToo, String what)
      throws IOException {
    int owner = uid(p);
    int self = currentUid();
    if (owner != self && !(rootToo && owner == ROOT)) {
      throw new UntrustedDataDirectoryException(what, "it belongs to uid " + owner + " ("
          + a.owner().getName() + "), not to uid " + self + " who runs pushgate; another user"
          + " could replace the appliance's control socket. Use a data directory of your own, or"
          + " run pushgate as its owner");
    }
  }

  private static void checkNotWritableByOthers(Path p, PosixFileAttributes a, boolean stickyOk,
      String what) throws IOException {
    Set<PosixFilePermission> perms = a.permissions();
    boolean writable = perms.contains(PosixFilePermission.GROUP_WRITE)
        || perms.contains(PosixFilePermission.OTHERS_WRITE);
    if (writable && !(stickyOk && sticky(p))) {
      throw new UntrustedDataDirectoryException(what, "it can be written by other users (mode "
          + PosixFilePermissions.toString(perms) + "); another user could replace the"
          + " appliance's control socket. Fix it with: chmod go-w " + p);
    }
  }

  private static PosixFileAttributes attributes(Path p) throws IOException {
    return Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
  }

  private static int uid(Path p) throws IOException {
    return (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
  }

  private static boolean sticky(Path p) throws IOException {
    int mode = (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
    return (mode & 01000) != 0;
  }

  /** The uid this process runs as: the owner of its own {@code /proc} entry where there is one. */
  static int currentUid() throws IOException {
    Path self = Path.of("/proc/self");
    if (Files.exists(self)) {
      return (Integer) Files.getAttribute(self, "unix:uid");
    }
    return (int) new com.sun.security.auth.module.UnixSystem().getUid();
  }

  /** A data directory, socket or parent that another user owns or could change. */
  public static final class UntrustedDataDirectoryException extends IOException {
    private static final long serialVersionUID = 1L;

    UntrustedDataDirectoryException(String what, String why) {
      super("refusing " + what + ": " + why);
    }
  }
}
