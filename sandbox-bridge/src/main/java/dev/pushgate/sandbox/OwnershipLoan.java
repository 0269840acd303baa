package dev.pushgate.sandbox;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
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
 *
 * <p>A tree is lent once at a time on the whole host ({@link LoanRegister}): a second loan would
 * record the sandbox user as the "original" owner and give the tree to it for good. For the same
 * reason the sandbox user is never recorded as anyone's owner, and a file with a hard link outside
 * the lent tree is neither lent nor given back: changing its owner would change the outside file.
 */
final class OwnershipLoan implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OwnershipLoan.class);

  private record Owner(int uid, int gid) {}

  /** What the walk saw of one file, without following a symlink. */
  private record Seen(Path path, Owner owner, int mode, boolean directory, boolean regular,
      int links, Object key) {}

  /** What a loan records of a file: its owner, and its mode to tell what the run added. */
  private record Before(Owner owner, int mode) {}

  /** Bits that let others than the owner change a file, or run it as its owner. */
  private static final int OTHERS_CHANGE = 06022;

  private final Map<Path, Map<Path, Before>> owners = new LinkedHashMap<>();
  private LoanRegister.Entry entry;

  private OwnershipLoan() {}

  /**
   * Lends every file under the roots to the user, once the register has them as lent by the
   * holder. On failure, what was lent is given back.
   *
   * @throws SandboxLaunchException when a root is already lent, or still belongs to the user
   */
  static OwnershipLoan lend(List<Path> roots, SandboxUser user, LoanRegister register,
      String holder) throws IOException, SandboxLaunchException {
    List<Path> outermost = outermost(roots);
    OwnershipLoan loan = new OwnershipLoan();
    if (outermost.isEmpty()) {
      return loan; // a run with no writable mount (plan mode) lends nothing, and records nothing
    }
    try {
      try {
        loan.entry = register.record(outermost, holder);
      } catch (LoanRegister.AlreadyLent e) {
        throw new SandboxLaunchException("not launched: " + e.getMessage()
            + "; a directory is lent to one run at a time", List.of(
                "wait until that run has ended, then launch again",
                "give this run a directory of its own"));
      }
      for (Path root : outermost) {
        Owner rootOwner = owner(root);
        if (rootOwner.uid() == user.uid() || rootOwner.gid() == user.gid()) {
          throw new SandboxLaunchException("not launched: " + root + " belongs to the sandbox user"
              + " (" + rootOwner.uid() + ":" + rootOwner.gid() + "), so nobody is left to give it"
              + " back to after the run", List.of(
                  "when a launcher that was killed left it lent, give it back to its owner:"
                      + " chown -R OWNER:GROUP " + root,
                  "when it is that user's own directory, run pushgate exec as that user instead of"
                      + " root"));
        }
        Map<Path, Before> before = new LinkedHashMap<>();
        loan.owners.put(root, before);
        for (Seen s : outsideLinksLeftOut(root, walk(root))) {
          // The sandbox user owns nothing before a loan: whatever it holds goes to the mount's
          // owner afterwards, as what the run creates does.
          before.put(s.path(), new Before(new Owner(
              s.owner().uid() == user.uid() ? rootOwner.uid() : s.owner().uid(),
              s.owner().gid() == user.gid() ? rootOwner.gid() : s.owner().gid()), s.mode()));
          chown(s.path(), user.uid(), user.gid());
        }
      }
      return loan;
    } catch (IOException | SandboxLaunchException | RuntimeException e) {
      loan.close();
      throw e;
    }
  }

  /** Gives everything back, then takes the loan off the register. Never throws. */
  @Override
  public void close() {
    for (Map.Entry<Path, Map<Path, Before>> e : owners.entrySet()) {
      Map<Path, Before> before = e.getValue();
      Before root = before.get(e.getKey());
      if (root == null) {
        continue;
      }
      try {
        for (Seen s : outsideLinksLeftOut(e.getKey(), walk(e.getKey()))) {
          Before b = before.get(s.path());
          Owner o = b == null ? root.owner() : b.owner();
          try {
            chown(s.path(), o.uid(), o.gid());
            takeBackAddedRights(s, b == null ? s.mode() & ~OTHERS_CHANGE : b.mode());
          } catch (IOException x) {
            LOG.warn("cannot give {} back to {}:{}: {}", s.path(), o.uid(), o.gid(),
                x.getMessage());
          }
        }
      } catch (IOException x) {
        LOG.warn("cannot give {} back: {}", e.getKey(), x.getMessage());
      }
    }
    owners.clear();
    if (entry != null) {
      try {
        entry.close();
      } catch (IOException x) {
        LOG.warn("cannot take a loan off the register: {}", x.getMessage());
      }
      entry = null;
    }
  }

  /** The roots without those inside another: a tree lent twice would be recorded as the user's. */
  static List<Path> outermost(List<Path> roots) throws IOException {
    List<Path> real = new ArrayList<>();
    for (Path r : roots) {
      real.add(r.toRealPath());
    }
    List<Path> kept = new ArrayList<>();
    for (Path r : real) {
      boolean inside = false;
      for (Path o : real) {
        if (!o.equals(r) && r.startsWith(o)) {
          inside = true;
        }
      }
      if (!inside && !kept.contains(r)) {
        kept.add(r);
      }
    }
    return kept;
  }

  /**
   * The files of the walk without those that have a hard link outside the tree (more links than
   * the walk met): their owner is the outside file's owner too. Such a file stays as it is; the
   * run can still read it where its mode lets others read.
   */
  private static List<Seen> outsideLinksLeftOut(Path root, List<Seen> seen) {
    Map<Object, Integer> met = new HashMap<>();
    for (Seen s : seen) {
      if (!s.directory() && s.key() != null) {
        met.merge(s.key(), 1, Integer::sum);
      }
    }
    List<Seen> kept = new ArrayList<>();
    for (Seen s : seen) {
      if (!s.directory() && s.links() > 1
          && (s.key() == null || met.get(s.key()) < s.links())) {
        LOG.warn("{} has a hard link outside {}: its owner is left as it is", s.path(), root);
        continue;
      }
      kept.add(s);
    }
    return kept;
  }

  private static List<Seen> walk(Path root) throws IOException {
    List<Seen> seen = new ArrayList<>();
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
          throws IOException {
        seen.add(see(dir));
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        seen.add(see(file));
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException exc) throws IOException {
        throw exc;
      }
    });
    return seen;
  }

  private static Seen see(Path p) throws IOException {
    Map<String, Object> a = Files.readAttributes(p,
        "unix:uid,gid,mode,nlink,ino,dev,isDirectory,isRegularFile", LinkOption.NOFOLLOW_LINKS);
    return new Seen(p, new Owner((Integer) a.get("uid"), (Integer) a.get("gid")),
        (Integer) a.get("mode") & 07777, (Boolean) a.get("isDirectory"),
        (Boolean) a.get("isRegularFile"), (Integer) a.get("nlink"),
        List.of(a.get("dev"), a.get("ino")));
  }

  /**
   * Removes the group and other write bits, setuid and setgid that the run added while it owned
   * the file (all of them on a file it created): a {@code .git} made writable for all would let
   * anyone replace its config after the give-back. Other mode changes (an executable bit) stay.
   * Only regular files and directories: opening anything else to change its mode could block.
   */
  private static void takeBackAddedRights(Seen s, int modeBefore) throws IOException {
    int added = s.mode() & ~modeBefore & OTHERS_CHANGE;
    if (added != 0 && (s.directory() || s.regular())) {
      Files.setAttribute(s.path(), "unix:mode", s.mode() & ~added, LinkOption.NOFOLLOW_LINKS);
    }
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
