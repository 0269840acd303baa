package dev.pushgate.gateway.api;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.Objects;

/**
 * The system's trusted CAs, which each run's {@code ca-bundle.pem} starts with, read once and
 * again only when the file changes (its size, modification time or inode): every run's bundle
 * used to read and decode the whole file (215 KiB here) again (docs/benchmarks.md).
 */
public final class SystemCaBundle {
  private final Path file;
  private Object readStamp;
  private static final ByteBuffer EMPTY = ByteBuffer.allocate(0).asReadOnlyBuffer();
  private ByteBuffer bytes = EMPTY;

  public SystemCaBundle(Path file) {
    this.file = file;
  }

  /**
   * Writes a new {@code target}: the system's CAs, ending in a newline, then {@code runCaPem}. A
   * system without the file gives a bundle of the run CA alone, as before. One gathering write
   * from a copy of the system's CAs held outside the heap: the JDK copied the 215 KiB of a heap
   * array into native memory for every run's bundle.
   */
  public void writeWith(Path target, String runCaPem) throws IOException {
    ByteBuffer[] parts = {current().duplicate(),
        ByteBuffer.wrap(runCaPem.getBytes(StandardCharsets.US_ASCII))};
    try (FileChannel out = FileChannel.open(target, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      while (parts[1].hasRemaining()) {
        out.write(parts);
      }
    }
  }

  private synchronized ByteBuffer current() throws IOException {
    BasicFileAttributes a;
    try {
      a = Files.readAttributes(file, BasicFileAttributes.class);
    } catch (NoSuchFileException e) {
      readStamp = null;
      bytes = EMPTY;
      return bytes;
    }
    Object stamp = Arrays.asList(a.size(), a.lastModifiedTime(), a.fileKey());
    if (!Objects.equals(stamp, readStamp)) {
      byte[] read = Files.isReadable(file) ? Files.readAllBytes(file) : new byte[0];
      if (read.length > 0 && read[read.length - 1] != '\n') {
        read = Arrays.copyOf(read, read.length + 1);
        read[read.length - 1] = '\n';
      }
      bytes = ByteBuffer.allocateDirect(read.length).put(read).flip().asReadOnlyBuffer();
      readStamp = stamp;
    }
    return bytes;
  }
}
