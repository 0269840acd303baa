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
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE,
        StandardOpenOption.APPEND)) {
      ByteBuffer buf = ByteBuffer.wrap(lines.toByteArray());
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(false);
    }
  }

  @Override
  public String toString() {
    return "file " + file;
  }
}
