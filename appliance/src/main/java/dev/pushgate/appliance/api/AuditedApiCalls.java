package dev.pushgate.appliance.api;

import dev.pushgate.gateway.AuditLog;
import dev.pushgate.gateway.PushRecord;
import dev.pushgate.gateway.RefusalCode;
import dev.pushgate.gateway.api.ApiAudit;
import dev.pushgate.gateway.api.ApiRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * The boundary's decisions in the appliance's audit log, beside the pushes: one row per action,
 * its kind {@code api:<action>} ({@code api:open-pull-request}), its ref the call ({@code POST
 * api.github.com/repos/o/r/pulls}), its rule what was acted on ({@code #12}, a ref, a GraphQL
 * field). Never a token or a body: the records hold neither.
 */
public final class AuditedApiCalls implements ApiAudit {
  public static final String KIND_PREFIX = "api:";

  private final AuditLog log;

  public AuditedApiCalls(AuditLog log) {
    this.log = log;
  }

  @Override
  public void record(List<ApiRecord> records) throws AuditLog.AuditException {
    List<PushRecord> rows = new ArrayList<>();
    for (ApiRecord r : records) {
      PushRecord.Decision decision = PushRecord.Decision.of(r.decision());
      boolean refused = r.status() == 0;
      RefusalCode code = !refused ? null
          : decision == PushRecord.Decision.ASKED ? RefusalCode.APPROVAL_DENIED
          : RefusalCode.RULE_DENIED;
      rows.add(new PushRecord(r.at(), r.runId(), r.workspaceId(),
          r.repository() == null ? "" : r.repository(),
          r.method() + " " + r.host() + r.path(), null, null, KIND_PREFIX + r.kind(),
          decision, r.target(), code, r.reason(),
          refused ? PushRecord.Outcome.NOT_FORWARDED : PushRecord.Outcome.OK,
          r.durationMillis()));
    }
    log.record(rows);
  }
}
