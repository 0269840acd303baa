package dev.pushgate.sandbox;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The host's record of the directories lent to a sandbox user right now, shared by every process
 * that lends: each {@code pushgate exec} is a JVM of its own, so a record in one process alone
 * would let a second launch lend a tree that is already lent, and take the sandbox user for its
 * owner. One file per loan, in a directory only root can enter, names the lent real paths and who
 * holds them; its process locks it for as long as the loan lasts. A process that dies loses its
 * locks with it, so a file nobody holds is stale and removed. A lock on the directory's own lock
 * file makes checking and recording one step for every process on the host.
 */
final class LoanRegister {
  /** Where the register lives on a host: tmpfs, root's, gone at reboot as every loan is. */
  static final Path HOST = Path.of("/run/pushgate/loans");

  private static final String GUARD = "register.lock";
  /** A loan file's largest size: some thousands of mounts' real paths. */
  static final int MAX_LOAN_BYTES = 1 << 20;
  private static final String PREFIX = "loan-";
  private static final SecureRandom RANDOM = new SecureRandom();

  /*
   * POSIX record locks belong to the process, and closing any channel on a file drops every lock
   * the process holds on it. So this process never opens its own loan files again: it keeps their
   * content here, and one lender at a time takes the guard.
   */
  private static final Map<Path, Recorded> OWN = new ConcurrentHashMap<>();
  private static final Object ONE_LENDER = new Object();

  record Recorded(String holder, List<Path> roots) {}

  private final Path dir;

  LoanRegister(Path dir) {
    if (dir == null || !dir.isAbsolute()) {
      throw new IllegalArgumentException("the loan register must be an absolute path: " + dir);
    }
    this.dir = dir;
  }

  /** A directory already lent, and who holds it. */
  static final class AlreadyLent extends Exception {
    private static final long serialVersionUID = 1L;

    private final Path path;
    private final Path lent;
    private final String holder;

    AlreadyLent(Path path, Path lent, String holder) {
      super(path + (path.equals(lent) ? "" : " (inside " + lent + ")")
          + " is already lent to the sandbox user by " + holder);
      this.path = path;
      this.lent = lent;
      this.holder = holder;
    }

    Path path() {
      return path;
    }

    Path lent() {
      return lent;
    }

    String holder() {
      return holder;
    }
  }

  /** A loan on the register; closing it takes it off. */
  final class Entry implements AutoCloseable {
    private final Path file;
    private final FileChannel channel;
    private FileLock lock;

    private Entry(Path file, FileChannel channel, FileLock lock) {
      this.file = file;
      this.channel = channel;
      this.lock = lock;
    }

    @Override
    public void close() throws IOException {
      if (lock == null) {
        return;
      }
      // Removed while still locked: a lender never takes a live file for a stale one.
      try {
        Files.deleteIfExists(file);
      } finally {
        OWN.remove(file);
        lock = null;
        channel.close();
      }
    }
  }

  /**
   * Records that the roots (real paths) are lent by the holder, unless one of them is, contains or
   * lies inside a directory already lent by any process of the host.
   */
  Entry record(List<Path> roots, String holder) throws AlreadyLent, IOException {
    if (roots.isEmpty()) {
      // Another process reads a loan file that names no root as a loan of everything (below).
      throw new IllegalArgumentException("a loan of no directory is no loan: nothing to record");
    }
    synchronized (ONE_LENDER) {
      prepare();
      try (FileChannel guard = FileChannel.open(dir.resolve(GUARD), StandardOpenOption.CREATE,
              StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
          FileLock held = guard.lock()) {
        for (Recorded other : live()) {
          for (Path root : roots) {
            for (Path lent : other.roots()) {
              if (root.startsWith(lent) || lent.startsWith(root)) {
                throw new AlreadyLent(root, lent, other.holder());
              }
            }
          }
        }
        return add(new Recorded(holder, List.copyOf(roots)));
      }
    }
  }

  private Entry add(Recorded loan) throws IOException {
    Path file = dir.resolve(PREFIX + ProcessHandle.current().pid() + "-"
        + HexFormat.of().formatHex(randomBytes()));
    FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW,
        StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
    try {
      FileLock lock = channel.lock();
      StringBuilder text = new StringBuilder(loan.holder()).append('\0');
      for (Path root : loan.roots()) {
        text.append(root).append('\0');
      }
      ByteBuffer bytes = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
      channel.force(true);
      OWN.put(file, loan);
      return new Entry(file, channel, lock);
    } catch (IOException | RuntimeException e) {
      channel.close();
      Files.deleteIfExists(file);
      throw e;
    }
  }

  /** Every loan a live process holds; stale files (their process died) are removed. */
  private List<Recorded> live() throws IOException {
    List<Recorded> loans = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, PREFIX + "*")) {
      for (Path file : files) {
        Recorded own = OWN.get(file);
        if (own != null) {
          loans.add(own);
          continue;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ,
            StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
          FileLock free = channel.tryLock();
          if (free != null) {
            Files.deleteIfExists(file);
            free.release();
            continue;
          }
          loans.add(parse(channel));
        } catch (NoSuchFileException e) {
          // Its loan ended meanwhile.
        }
      }
    }
    return loans;
  }

  /** A loan file another process holds, as this process reads it: whole, or as everything. */
  static Recorded parse(FileChannel channel) throws IOException {
    if (channel.size() > MAX_LOAN_BYTES) {
      // Read whole or not at all: roots past a cut would go unseen. Fail closed over everything.
      return new Recorded("another process", List.of(Path.of("/")));
    }
    ByteBuffer bytes = ByteBuffer.allocate((int) channel.size());
    while (bytes.hasRemaining() && channel.read(bytes, bytes.position()) > 0) {
      // read on
    }
    String[] parts = new String(bytes.array(), 0, bytes.position(), StandardCharsets.UTF_8)
        .split("\0");
    List<Path> roots = new ArrayList<>();
    for (int i = 1; i < parts.length; i++) {
      roots.add(Path.of(parts[i]));
    }
    if (roots.isEmpty() || roots.stream().anyMatch(r -> !r.isAbsolute())) {
      // Locked but unreadable (a lender writes real, absolute paths): it holds something; fail
      // closed over everything.
      roots = List.of(Path.of("/"));
    }
    return new Recorded(parts[0].isEmpty() ? "another process" : parts[0], roots);
  }

  /**
   * Creates the register's directory (mode 0700) when missing, and insists that only this
   * process's user can change it: whoever could would decide what may be lent.
   */
  private void prepare() throws IOException {
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      Files.createDirectories(dir,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }
    int uid = (Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    int mode = (Integer) Files.getAttribute(dir, "unix:mode", LinkOption.NOFOLLOW_LINKS);
    if (Files.isSymbolicLink(dir) || uid != LocalLauncher.currentUid() || (mode & 077) != 0) {
      throw new IOException("the loan register " + dir + " must be a directory of uid "
          + LocalLauncher.currentUid() + " with mode 0700 (it is uid " + uid + ", mode "
          + String.format("%04o", mode & 07777) + ")");
    }
  }

  private static byte[] randomBytes() {
    byte[] b = new byte[8];
    RANDOM.nextBytes(b);
    return b;
  }
}
