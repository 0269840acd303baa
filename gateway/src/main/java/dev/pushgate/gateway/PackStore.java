package dev.pushgate.gateway;

import java.io.Closeable;
import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.util.Arrays;

/**
 * Where {@link CachePackParser} writes the pack it parses and reads it back (a delta's base, a
 * thin pack's rewritten header): in memory while the pack is small and {@link ReceivedInMemory}'s
 * budget allows, else in a temporary file in the cache's object directory, to which whatever was
 * in memory is moved the first time it would not fit. A small push's pack then never meets the
 * file system on the push's path: its file is made, indexed and named after git has its answer,
 * with the refs it lands ({@link ReceivedInMemory#installInto}); making, indexing and renaming
 * the file took about 2 ms of a 40 ms push on a busy disk (docs/benchmarks.md).
 */
final class PackStore implements Closeable {
  private final File directory;
  private final ReceivedInMemory.Budget budget;
  private byte[] memory = new byte[0];
  private int length;
  /** The position of the next read or write while in memory. */
  private int position;
  private RandomAccessFile file;
  private File path;

  /**
   * @param budget what memory may hold; {@link ReceivedInMemory.Budget#NONE} writes to a file
   *     from the first byte
   */
  PackStore(File directory, ReceivedInMemory.Budget budget) {
    this.directory = directory;
    this.budget = budget;
  }

  /** Whether the pack is still in memory only. */
  boolean inMemory() {
    return file == null;
  }

  /** Memory handed over: the buffer, how much of it is the pack, what it took of the budget. */
  record Memory(byte[] bytes, int length, long taken) {}

  /**
   * The buffer, while {@link #inMemory}, and with it what it took of the budget: the receiver
   * gives that back. The store holds nothing after it.
   */
  Memory handOver() {
    Memory handed = new Memory(memory, length, memory.length);
    memory = null;
    return handed;
  }

  /** The temporary file, once there is one ({@link #toFile}). */
  File path() {
    return path;
  }

  /** The file's channel, once there is one. */
  FileChannel channel() {
    return file.getChannel();
  }

  /** Moves what memory holds to a temporary file, which holds everything from then on. */
  void toFile() throws IOException {
    if (file != null) {
      return;
    }
    path = File.createTempFile("incoming_", ".pack", directory);
    file = new RandomAccessFile(path, "rw");
    file.write(memory, 0, length);
    file.seek(position);
    budget.release(memory.length);
    memory = null;
  }

  void write(byte[] b, int off, int len) throws IOException {
    if (file == null && !fits(position + (long) len)) {
      toFile();
    }
    if (file != null) {
      file.write(b, off, len);
      return;
    }
    System.arraycopy(b, off, memory, position, len);
    position += len;
    length = Math.max(length, position);
  }

  /** Whether memory holds {@code end} bytes, growing within the budget if it must. */
  private boolean fits(long end) {
    if (end <= memory.length) {
      return true;
    }
    if (end > ReceivedInMemory.MAX_PACK_BYTES) {
      return false;
    }
    int grown = (int) Math.min(ReceivedInMemory.MAX_PACK_BYTES,
        Math.max(end, Math.max(8192, memory.length * 2L)));
    if (!budget.take(grown - memory.length)) {
      return false;
    }
    memory = Arrays.copyOf(memory, grown);
    return true;
  }

  void seek(long pos) throws IOException {
    if (file != null) {
      file.seek(pos);
    } else {
      position = (int) pos;
    }
  }

  long position() throws IOException {
    return file != null ? file.getFilePointer() : position;
  }

  /** As {@link RandomAccessFile#read(byte[], int, int)}: -1 at the end. */
  int read(byte[] b, int off, int len) throws IOException {
    if (file != null) {
      return file.read(b, off, len);
    }
    if (position >= length) {
      return len == 0 ? 0 : -1;
    }
    int n = Math.min(len, length - position);
    System.arraycopy(memory, position, b, off, n);
    position += n;
    return n;
  }

  void readFully(byte[] b, int off, int len) throws IOException {
    while (len > 0) {
      int n = read(b, off, len);
      if (n < 0) {
        throw new EOFException();
      }
      off += n;
      len -= n;
    }
  }

  /** Gives memory back to the budget, and closes the file (which the parser deletes). */
  @Override
  public void close() throws IOException {
    if (memory != null) {
      budget.release(memory.length);
      memory = null;
    }
    if (file != null) {
      file.close();
    }
  }
}
