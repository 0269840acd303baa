package dev.pushgate.appliance.store;

import java.io.IOException;
import java.util.List;

/**
 * Where chained audit records are copied once they are in the database, so that they also leave
 * it (docs/audit.md): a JSON-lines file, syslog. Called in chain order, one batch per commit.
 */
public interface AuditSink extends AutoCloseable {
  AuditSink NONE = records -> {};

  /** Writes the records; throws when they could not be written (and, for a file, made durable). */
  void write(List<ChainedRecord> records) throws IOException;

  @Override
  default void close() throws IOException {}

  /** A record is in the database but a sink that must take it could not. */
  final class SinkException extends Exception {
    private static final long serialVersionUID = 1L;

    public SinkException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
