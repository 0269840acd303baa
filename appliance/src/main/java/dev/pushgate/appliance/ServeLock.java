package dev.pushgate.appliance;

import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One {@code serve} per directory it serves from: the data directory, and a configured runtime
 * directory. A second one on the same data directory (on another port) would take over the
 * control socket of the first, share its database and write into the same fetch caches while the
 * first receives pushes into them; and what the first process left behind when it crashed (a
 * received pack's {@code .keep}) can be cleared only by a process that knows no other one is
 * receiving. A second one on the same runtime directory would bind its gateway socket over the
 * first one's (the first one's runs would reach a gateway that does not know them) and delete it
 * when it stops.
 *
 * <p>Two proofs of a live serve, either enough to refuse: the kernel's lock on {@code serve.lock},
 * released when the process ends however it ends (a crash never leaves a directory locked); and
 * the directory's socket answering a connection. The file outlives its serve with a pid in it and
 * looks like a stale lock to clean up: deleted while a serve runs, the next serve would lock a new
 * one, but the first serve's socket still answers.
 */
final class ServeLock implements AutoCloseable {
  static final String FILE = "serve.lock";

  private final FileChannel channel;
  private final FileLock lock;

  private ServeLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /** What is locked: its name in messages and the option that gives another. */
  enum Kind {
    DATA("data directory", "--data-dir"),
    RUNTIME("runtime directory", "--runtime-dir");

    private final String name;
    private final String option;

    Kind(String name, String option) {
      this.name = name;
      this.option = option;
    }
  }

  /**
   * Holds the lock of {@code dir} until {@link #close}.
   *
   * @param socket the socket a serve of {@code dir} listens on, answering while it lives
   * @throws IOException when another {@code serve} holds the lock or answers on {@code socket},
   *     saying which process (when known) and what to do
   */
  static ServeLock hold(Path dir, Path socket, Kind kind) throws IOException {
    Path file = dir.resolve(FILE);
    FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE,
        StandardOpenOption.READ, StandardOpenOption.WRITE);
    try {
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null; // this very process serves it already
      }
      if (lock == null) {
        throw new IOException(inUse(dir, kind, holder(file)));
      }
      if (answers(socket)) {
        throw new IOException(inUse(dir, kind, "") + " (its " + socket.getFileName()
            + " answers, although " + FILE + " was not locked: was " + FILE
            + " deleted while it served?)");
      }
      channel.truncate(0);
      channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n")
          .getBytes(StandardCharsets.US_ASCII)), 0);
      return new ServeLock(channel, lock);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  private static String inUse(Path dir, Kind kind, String holder) {
    return "another pushgate serve is using the " + kind.name + " " + dir + holder
        + ": stop it first, or give this one another " + kind.option;
  }

  /**
   * Whether a process accepts connections on {@code socket}: false when there is no such file or
   * nobody listens on it (a socket a crashed serve left). A connection that neither succeeds nor
   * is refused at once (a full backlog) is a live listener.
   */
  static boolean answers(Path socket) throws IOException {
    if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      probe.configureBlocking(false);
      probe.connect(UnixDomainSocketAddress.of(socket));
      return true;
    } catch (ConnectException e) {
      return false; // refused: a socket file nobody listens on, or not a socket at all
    }
  }

  /** " (process N)" from the holder's file, or nothing when it says nothing usable. */
  private static String holder(Path file) {
    try {
      String pid = Files.readString(file, StandardCharsets.US_ASCII).strip();
      return pid.matches("[0-9]{1,10}") ? " (process " + pid + ")" : "";
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }

  @Override
  public void close() throws IOException {
    try {
      lock.release();
    } finally {
      channel.close();
    }
  }
}
