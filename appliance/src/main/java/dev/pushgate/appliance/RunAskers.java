package dev.pushgate.appliance;

import dev.pushgate.appliance.runs.Runs;
import dev.pushgate.appliance.web.ApprovalsPage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the launcher said of a run when it created it, for an approver deciding on its push. */
final class RunAskers implements ApprovalsPage.Askers {
  private static final Logger log = LoggerFactory.getLogger(RunAskers.class);

  private final Runs runs;

  RunAskers(Runs runs) {
    this.runs = runs;
  }

  @Override
  public java.util.Map<String, String> of(String runId) {
    java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
    try {
      runs.find(runId).ifPresent(r -> {
        out.put("agent", r.agentId());
        out.put("session", r.sessionId());
        out.put("mode", r.mode());
        out.put("sandbox", r.backend());
        out.put("started", r.createdAt() == null ? null : r.createdAt().toString());
      });
    } catch (java.sql.SQLException e) {
      log.warn("run {}: could not read its row for the approvals page: {}", runId,
          e.getMessage());
    }
    out.values().removeIf(java.util.Objects::isNull);
    return out;
  }
}
