package dev.pushgate.gateway;

import java.util.List;

/**
 * Where push decisions are written. Port owned by the gateway. A push whose decisions cannot be
 * written is refused: nothing moves unaudited.
 */
public interface AuditLog {
  /**
   * Writes the records and returns their ids, in order; throws when they could not be made
   * durable.
   */
  List<Long> record(List<PushRecord> records) throws AuditException;

  /** Records what happened upstream to an update recorded earlier. */
  void settle(long id, String outcome, long durationMillis) throws AuditException;

  /** Thrown when the audit log cannot take a record. */
  final class AuditException extends Exception {
    private static final long serialVersionUID = 1L;

    public AuditException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
