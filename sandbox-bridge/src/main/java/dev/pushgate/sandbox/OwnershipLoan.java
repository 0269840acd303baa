package dev.pushgate.sandbox;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's writable mounts, lent to the sandbox user for the run when pushgate runs as root (the
 * sandbox user could not write them otherwise), and given back afterwards: every file that existed
 * gets its owner back, every file the run created goes to the owner of its mount. Symlinks are
 * changed themselves, never followed.
 */
final class OwnershipLoan implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OwnershipLoan.class);

  private record Owner(int uid, int gid) {}

  private final Map<Path, Map<Path, Owner>> owners = new LinkedHashMap<>();

  private OwnershipLoan() {}

  /** Lends every file under the roots to the user. On failure, what was lent is given back. */
  static OwnershipLoan lend(List<Path> roots, SandboxUser user) throws IOException {
    OwnershipLoan loan = new OwnershipLoan();
    try {
      for (Path root : roots) {
        Map<Path, Owner> before = new LinkedHashMap<>();
        loan.owners.put(root, before);
        walk(root, p -> {
          before.put(p, owner(p));
          chown(p, user.uid(), user.gid());
        });
      }
      return loan;
    } catch (IOException | RuntimeException e) {
      loan.close();
      throw e;
    }
  }

  /** Gives everything back. Never throws; a file that cannot be changed is logged. */
  @Override
  public void close() {
    for (Map.Entry<Path, Map<Path, Owner>> e : owners.entrySet()) {
      Map<Path, Owner> before = e.getValue();
      Owner rootOwner = before.get(e.getKey());
      if (rootOwner == null) {
        continue;
      }
      try {
        walk(e.getKey(), p -> {
          Owner o = before.getOrDefault(p, rootOwner);
          try {
            chown(p, o.uid(), o.gid());
          } catch (IOException x) {
            LOG.warn("cannot give {} back to {}:{}: {}", p, o.uid(), o.gid(), x.getMessage());
          }
        });
      } catch (IOException x) {
        LOG.warn("cannot give {} back: {}", e.getKey(), x.getMessage());
      }
    }
    owners.clear();
  }

  private interface Visit {
    void on(Path p) throws IOException;
  }

  private static void walk(Path root, Visit visit) throws IOException {
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
          throws IOException {
        visit.on(dir);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        visit.on(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException exc) throws IOException {
        throw exc;
      }
    });
  }

  private static Owner owner(Path p) throws IOException {
    return new Owner((Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS),
        (Integer) Files.getAttribute(p, "unix:gid", LinkOption.NOFOLLOW_LINKS));
  }

  static void chown(Path p, int uid, int gid) throws IOException {
    Files.setAttribute(p, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
    Files.setAttribute(p, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
  }

  /**
   * Why the user cannot reach a path (a directory on the way it may not search), or null when it
   * can. Supplementary groups are not counted: setpriv clears them.
   */
  static String unreachable(Path path, SandboxUser user) {
    for (Path dir = path.toAbsolutePath().getParent(); dir != null; dir = dir.getParent()) {
      try {
        int mode = (Integer) Files.getAttribute(dir, "unix:mode");
        int uid = (Integer) Files.getAttribute(dir, "unix:uid");
        int gid = (Integer) Files.getAttribute(dir, "unix:gid");
        int bit = uid == user.uid() ? 0100 : gid == user.gid() ? 0010 : 0001;
        if ((mode & bit) == 0) {
          return dir + " (mode " + String.format("%04o", mode & 07777) + ", owner " + uid + ":"
              + gid + ") does not let uid " + user.uid() + " through";
        }
      } catch (IOException | UnsupportedOperationException e) {
        return dir + " cannot be read: " + e.getMessage();
      }
    }
    return null;
  }
}
