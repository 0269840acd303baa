package dev.pushgate.gateway.api;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
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
  private byte[] bytes = new byte[0];

  public SystemCaBundle(Path file) {
    this.file = file;
  }

  /**
   * Writes a new {@code target}: the system's CAs, ending in a newline, then {@code runCaPem}. A
   * system without the file gives a bundle of the run CA alone, as before.
   */
  public void writeWith(Path target, String runCaPem) throws IOException {
    byte[] system = current();
    try (OutputStream out = Files.newOutputStream(target)) {
      out.write(system);
      out.write(runCaPem.getBytes(StandardCharsets.US_ASCII));
    }
  }

  private synchronized byte[] current() throws IOException {
    BasicFileAttributes a;
    try {
      a = Files.readAttributes(file, BasicFileAttributes.class);
    } catch (NoSuchFileException e) {
      readStamp = null;
      bytes = new byte[0];
      return bytes;
    }
    Object stamp = Arrays.asList(a.size(), a.lastModifiedTime(), a.fileKey());
    if (!Objects.equals(stamp, readStamp)) {
      byte[] read = Files.isReadable(file) ? Files.readAllBytes(file) : new byte[0];
      if (read.length > 0 && read[read.length - 1] != '\n') {
        read = Arrays.copyOf(read, read.length + 1);
        read[read.length - 1] = '\n';
      }
      bytes = read;
      readStamp = stamp;
    }
    return bytes;
  }
}
