package dev.pushgate.appliance;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One {@code serve} per data directory. A second one on the same directory (on another port)
 * would take over the control socket of the first, share its database and write into the same
 * fetch caches while the first receives pushes into them; and what the first process left behind
 * when it crashed (a received pack's {@code .keep}) can be cleared only by a process that knows no
 * other one is receiving. The kernel's lock on {@code serve.lock} is released when the process
 * ends, however it ends, so a crash never leaves the directory locked.
 */
final class DataDirectoryLock implements AutoCloseable {
  static final String FILE = "serve.lock";

  private final FileChannel channel;
  private final FileLock lock;

  private DataDirectoryLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Holds the lock of {@code dir} until {@link #close}.
   *
   * @throws IOException when another {@code serve} holds it, saying which process and what to do
   */
  static DataDirectoryLock hold(Path dir) throws IOException {
    Path file = dir.resolve(FILE);
    FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE,
        StandardOpenOption.READ, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null; // this very process serves it already
    } catch (IOException e) {
      channel.close();
      throw e;
    }
    if (lock == null) {
      String holder = holder(file);
      channel.close();
      throw new IOException("another pushgate serve is using the data directory " + dir
          + holder + ": stop it first, or give this one another --data-dir");
    }
    try {
      channel.truncate(0);
      channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n")
          .getBytes(StandardCharsets.US_ASCII)), 0);
    } catch (IOException e) {
      channel.close();
      throw e;
    }
    return new DataDirectoryLock(channel, lock);
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
