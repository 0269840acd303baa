package dev.pushgate.gateway.api;

import dev.pushgate.gateway.AuditLog;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a judged call's decision: one record per action, never the token or the body. A call
 * whose records the log will not take is not sent (the caller answers 503).
 */
record CallAudit(String runId, String workspaceId, ApiAudit audit, Clock clock) {
  /** Status 0: not sent; -1: about to be sent. */
  static final int NOT_SENT = 0;
  static final int SENT = -1;

  /** Records the decision on every action of the call; false when the log would not take it. */
  boolean record(ApiExchange call, String decision, String reason, int status) {
    ApiCall c = call.call();
    ApiJudgement judgement = call.judgement();
    Instant at = clock.instant();
    long millis = (System.nanoTime() - call.started) / 1_000_000;
    List<ApiRecord> records = new ArrayList<>();
    for (ApiJudgement.ApiAction a : judgement.actions()) {
      records.add(new ApiRecord(at, runId, workspaceId, c.method(), c.host(), c.path(), a.kind(),
          a.repository(), a.target(), decision,
          a.decision() == judgement.decision() ? reason : a.reason(), status, millis));
    }
    try {
      audit.record(records);
      return true;
    } catch (AuditLog.AuditException | RuntimeException e) {
      ApiBoundary.LOG.error("run {}: cannot audit an API call; refused: {}", runId,
          e.getMessage());
      return false;
    }
  }
}
