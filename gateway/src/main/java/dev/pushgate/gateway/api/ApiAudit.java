package dev.pushgate.gateway.api;

import dev.pushgate.gateway.AuditLog;
import java.util.List;

/**
 * Where the boundary's decisions are written. Port filled by the appliance (its audit store, the
 * same as the pushes'). A call whose decision cannot be written is refused: nothing reaches GitHub
 * unaudited.
 */
@FunctionalInterface
public interface ApiAudit {
  void record(List<ApiRecord> records) throws AuditLog.AuditException;
}
