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
 * Where the gateway socket for sandboxed runs lives. By default a fresh directory under the JVM's
 * temporary directory, as before; with {@code --runtime-dir} (the systemd unit gives {@code
 * RuntimeDirectory=}, {@code /run/pushgate}) a directory launchers can find: a unit's {@code
 * PrivateTmp} hides the temporary directory from every other process.
 */
record RuntimeDirectory(Path dir, boolean temporary) {
  private static final Set<PosixFilePermission> OTHERS_WRITE =
      Set.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);

  /** The directory to use, made when missing; {@code configured} null for a temporary one. */
  static RuntimeDirectory open(Path configured, Path dataDir) throws IOException {
    if (configured == null) {
      Path tmp = Files.createTempDirectory("pushgate-gateway-");
      // the sandbox user must reach the socket in it, never list or change it
      Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
      return new RuntimeDirectory(tmp, true);
    }
    Path dir = configured.toAbsolutePath().normalize();
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(
          PosixFilePermissions.fromString("rwxr-x---")));
    }
    // Whoever can write here could put a socket of their own where launchers look for the
    // gateway, and read the runs' credentials: it must be ours (the data directory's owner) alone.
    PosixFileAttributes a = Files.readAttributes(dir, PosixFileAttributes.class,
        LinkOption.NOFOLLOW_LINKS);
    if (!a.isDirectory()) {
      throw new IOException("the runtime directory " + dir + " is not a directory");
    }
    if (!a.owner().equals(Files.getOwner(dataDir))) {
      throw new IOException("refusing the runtime directory " + dir + ": it belongs to "
          + a.owner().getName() + ", not to " + Files.getOwner(dataDir).getName()
          + " who owns the data directory");
    }
    if (a.permissions().stream().anyMatch(OTHERS_WRITE::contains)) {
      throw new IOException("refusing the runtime directory " + dir
          + ": another user can write it; make it mode 0750 or 0700");
    }
    return new RuntimeDirectory(dir, false);
  }

  Path gatewaySocket() {
    return dir.resolve("gateway.sock");
  }

  /** Removes the socket, and the directory when it was a temporary one. */
  void clean() throws IOException {
    Files.deleteIfExists(gatewaySocket());
    if (temporary) {
      Files.deleteIfExists(dir);
    }
  }
}
