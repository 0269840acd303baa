package dev.pushgate.gateway;

import dev.pushgate.types.AuditEntry;
import java.util.List;

/**
 * Where push decisions are written. Port owned by the gateway. A push whose decisions cannot be
 * written is refused: nothing moves unaudited.
 */
public interface AuditLog {
  /**
   * A record written, to settle it once upstream has answered. Opaque: only the log that handed
   * it out reads it.
   */
  interface Handle {}

  /**
   * Writes the records and returns a handle for each, in order; throws when they could not be
   * made durable.
   */
  List<? extends Handle> record(List<AuditEntry> records) throws AuditException;

  /** Records what happened upstream to an update recorded earlier. */
  void settle(Handle record, AuditEntry.Outcome outcome, long durationMillis)
      throws AuditException;

  /** The outcome of a record, owed: written once, later ({@link #owe}). */
  interface Owed {
    /** Writes the outcome; called exactly once, whether or not anything before it failed. */
    void settle(AuditEntry.Outcome outcome, long durationMillis) throws AuditException;
  }

  /**
   * Promises {@code record}'s outcome, to be written after git has its answer: from now until
   * the returned {@link Owed#settle} has written it (or failed), a reader of this log waits for
   * it, so that nobody who reads the log once the client has its answer finds the update still
   * {@code pending}. A log with no readers of its own settles at the call.
   */
  default Owed owe(Handle record) {
    return (outcome, durationMillis) -> settle(record, outcome, durationMillis);
  }

  /** Thrown when the audit log cannot take a record. */
  final class AuditException extends Exception {
    private static final long serialVersionUID = 1L;

    public AuditException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
