package dev.pushgate.appliance.audit;

import dev.pushgate.appliance.store.AuditSink;
import dev.pushgate.appliance.store.ChainedRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * Appends each record as a JSON line to a file, and forces the batch (one commit's records) to
 * disk before the decision it records is answered. The file is opened for each batch, so that a
 * rotation that renames it (logrotate without copytruncate) makes the next batch start a new
 * file; a new file is created readable by the appliance's user only.
 *
 * <p>The file holds whole lines only: a write that failed part way (a full disk) can leave it
 * ending mid-line, and a line appended after that fragment would be glued to it, so that neither
 * record could be read. Each batch therefore first cuts the file back to its last newline. The
 * records whose lines are cut were refused for it (or logged as missing from the file); the
 * database holds them all.
 */
public final class FileSink implements AuditSink {
  private final Path file;

  public FileSink(Path file) {
    this.file = file.toAbsolutePath();
  }

  public Path file() {
    return file;
  }

  @Override
  public synchronized void write(List<ChainedRecord> records) throws IOException {
    ByteArrayOutputStream lines = new ByteArrayOutputStream();
    for (ChainedRecord r : records) {
      lines.writeBytes((AuditRecordJson.of(r).toString() + "\n")
          .getBytes(StandardCharsets.UTF_8));
    }
    if (!Files.exists(file)) {
      try {
        Files.createFile(file,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      } catch (java.nio.file.FileAlreadyExistsException raced) {
        // created in between: append to it
      }
    }
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ,
        StandardOpenOption.WRITE)) {
      ch.truncate(endOfLastWholeLine(ch));
      ch.position(ch.size());
      ByteBuffer buf = ByteBuffer.wrap(lines.toByteArray());
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(false);
    }
  }

  /** The length of the file up to and with its last '\n' (0 if it has none). */
  private static long endOfLastWholeLine(FileChannel ch) throws IOException {
    ByteBuffer chunk = ByteBuffer.allocate(8192);
    long end = ch.size();
    while (end > 0) {
      long start = Math.max(0, end - chunk.capacity());
      chunk.clear().limit((int) (end - start));
      while (chunk.hasRemaining()) {
        if (ch.read(chunk, start + chunk.position()) < 0) {
          throw new IOException("the file shrank while it was read");
        }
      }
      for (int i = chunk.limit() - 1; i >= 0; i--) {
        if (chunk.get(i) == '\n') {
          return start + i + 1;
        }
      }
      end = start;
    }
    return 0;
  }

  @Override
  public String toString() {
    return "file " + file;
  }
}
