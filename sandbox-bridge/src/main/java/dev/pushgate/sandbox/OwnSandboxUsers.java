package dev.pushgate.sandbox;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HashSet;
import java.util.Set;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands each sandbox launch a user id of its own: one no account, subordinate range or running
 * process on the host has, held by this launch alone until it ends. A shared sandbox user (such as
 * {@code nobody}) would let every other process of that user read the run's tokens in
 * {@code /proc/PID/environ} and its staged files, and write into its lent mounts.
 *
 * <p>The ids come from {@value #DEFAULT_BASE} up to {@value #DEFAULT_LAST}: above what distributions
 * and systemd hand out (system and dynamic users below 65536, container ranges up to 1879048191,
 * subordinate ranges from 100000 in steps of 65536), and below 2^31, since some tools still treat
 * ids as signed 32-bit numbers. The offset is random so that a leftover of an earlier launch (a
 * file a crashed run could not give back) is unlikely ever to meet the same id again, and so that
 * nobody can guess the next id. The group id is the user id.
 *
 * <p>The hold is a {@link FileLock} on {@code <uid>.lock} in a directory only root can enter: it
 * spans processes (every {@code pushgate exec} and launcher on the host) and ends with the process
 * that held it, so a crash never leaves an id taken.
 */
public final class OwnSandboxUsers {
  private static final Logger LOG = LoggerFactory.getLogger(OwnSandboxUsers.class);

  public static final int DEFAULT_BASE = 2_100_000_000;
  public static final int DEFAULT_LAST = 2_147_483_646;

  /** How many random candidates are tried before giving up. */
  static final int ATTEMPTS = 64;

  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rwx------");

  /** The ids this process holds; guards every open, lock and delete of a hold's file. */
  private static final Set<Integer> HELD_HERE = new HashSet<>();

  private final Path lockDir;
  private final int base;
  private final int last;
  private final HostIds hostIds;
  private final RandomGenerator random;

  /**
   * @param lockDir where the holds are kept; made {@code 0700} when missing, refused when it is
   *     a link, not this process's own, or open to anyone else
   * @param base the lowest id handed out; above 65535
   * @param last the highest id handed out, at least base
   */
  public OwnSandboxUsers(Path lockDir, int base, int last, HostIds hostIds,
      RandomGenerator random) {
    if (lockDir == null || hostIds == null || random == null) {
      throw new IllegalArgumentException("the sandbox user range is incomplete");
    }
    if (base <= 65535 || last < base) {
      throw new IllegalArgumentException("the sandbox user range " + base + "-" + last
          + " must lie above 65535 and not be empty");
    }
    this.lockDir = lockDir;
    this.base = base;
    this.last = last;
    this.hostIds = hostIds;
    this.random = random;
  }

  /** This host: the default range, holds in {@code /run/pushgate-sandbox-uids}. */
  public static OwnSandboxUsers system() {
    return new OwnSandboxUsers(Path.of("/run/pushgate-sandbox-uids"), DEFAULT_BASE, DEFAULT_LAST,
        HostIds.SYSTEM, new SecureRandom());
  }

  /**
   * A user id of the launch's own, held until the lease is closed.
   *
   * @throws IOException when the hold directory is not safe, or no free id was found
   */
  public Lease lease() throws IOException {
    Path dir = safeLockDir();
    for (int i = 0; i < ATTEMPTS; i++) {
      int id = base + random.nextInt(last - base + 1);
      Lease held = hold(dir, id);
      if (held == null) {
        continue;
      }
      String why;
      try {
        why = hostIds.taken(id);
      } catch (IOException | RuntimeException e) {
        held.close();
        throw new IOException("cannot tell whether uid " + id + " is free on this host: "
            + e.getMessage(), e);
      }
      if (why == null) {
        return held;
      }
      LOG.debug("uid {} is not free: {}", id, why);
      held.close();
    }
    throw new IOException("found no free sandbox user id in " + base + "-" + last + " after "
        + ATTEMPTS + " tries; name one with --sandbox-user UID[:GID] (shared by every launch that"
        + " names it)");
  }

  /** The lock directory, made when missing; refused unless it is ours alone. */
  private Path safeLockDir() throws IOException {
    Path parent = lockDir.getParent();
    if (parent == null || !Files.isDirectory(parent)) {
      throw new IOException("the sandbox user holds directory " + lockDir + " cannot be made: "
          + parent + " is not a directory; create it, or name a sandbox user with --sandbox-user");
    }
    if (!Files.exists(lockDir, LinkOption.NOFOLLOW_LINKS)) {
      try {
        Files.createDirectory(lockDir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
      } catch (java.nio.file.FileAlreadyExistsException e) {
        // Another launch made it meanwhile: checked below like any other.
      }
    }
    PosixFileAttributes a = Files.readAttributes(lockDir, PosixFileAttributes.class,
        LinkOption.NOFOLLOW_LINKS);
    int owner = (Integer) Files.getAttribute(lockDir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    if (!a.isDirectory() || owner != LocalLauncher.currentUid()
        || !a.permissions().equals(OWNER_ONLY)) {
      throw new IOException("the sandbox user holds directory " + lockDir + " must be a"
          + " directory of uid " + LocalLauncher.currentUid() + " with mode 0700; remove it or"
          + " fix it (chown, chmod 700) and launch again");
    }
    return lockDir;
  }

  /**
   * Locks the id's file, or null when another launch holds it. The file is made and deleted only
   * under the directory's mutex, so no launch can lock a file its holder is deleting while the
   * path already names a newer one.
   */
  private static Lease hold(Path dir, int id) throws IOException {
    synchronized (HELD_HERE) {
      // Opening and closing a second channel on a file this process has locked would drop that
      // lock (POSIX locks belong to the process): ids held here are never opened again.
      if (HELD_HERE.contains(id)) {
        return null;
      }
      try (Mutex m = Mutex.lock(dir)) {
        Path file = dir.resolve(id + ".lock");
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE,
            StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
        FileLock lock;
        try {
          lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
          lock = null; // this process locked it outside of this class
        } catch (IOException | RuntimeException e) {
          channel.close();
          throw e;
        }
        if (lock == null) {
          channel.close();
          return null;
        }
        HELD_HERE.add(id);
        return new Lease(new SandboxUser(id, id), dir, file, channel);
      }
    }
  }

  /** The directory's {@code .mutex}: held for a moment while a hold's file is made or deleted. */
  private record Mutex(FileChannel channel) implements AutoCloseable {
    static Mutex lock(Path dir) throws IOException {
      FileChannel c = FileChannel.open(dir.resolve(".mutex"), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
      try {
        c.lock();
        return new Mutex(c);
      } catch (IOException | RuntimeException e) {
        c.close();
        throw e;
      }
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }

  /** One launch's hold on its user id. Closing it frees the id for another launch. */
  public static final class Lease implements AutoCloseable {
    private final SandboxUser user;
    private final Path dir;
    private final Path file;
    private final FileChannel channel;
    private boolean closed;

    private Lease(SandboxUser user, Path dir, Path file, FileChannel channel) {
      this.user = user;
      this.dir = dir;
      this.file = file;
      this.channel = channel;
    }

    public SandboxUser user() {
      return user;
    }

    /** Deletes the hold's file while still holding it, then lets go. Never throws. */
    @Override
    public void close() {
      synchronized (HELD_HERE) {
        if (closed) {
          return;
        }
        closed = true;
        try (Mutex m = Mutex.lock(dir)) {
          Files.deleteIfExists(file);
        } catch (IOException e) {
          LOG.warn("cannot remove the sandbox user hold {}: {}", file, e.getMessage());
        }
        try {
          channel.close();
        } catch (IOException e) {
          LOG.warn("cannot release the sandbox user hold {}: {}", file, e.getMessage());
        }
        HELD_HERE.remove(user.uid());
      }
    }
  }
}
