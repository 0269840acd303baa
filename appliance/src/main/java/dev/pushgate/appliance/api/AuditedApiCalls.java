package dev.pushgate.appliance.api;

import dev.pushgate.appliance.store.AuditStore;
import dev.pushgate.gateway.AuditLog;
import dev.pushgate.gateway.RefusalCode;
import dev.pushgate.gateway.api.ApiAudit;
import dev.pushgate.gateway.api.ApiRecord;
import dev.pushgate.types.AuditEntry;
import java.util.List;

/**
 * The boundary's decisions in the appliance's audit log, beside the pushes: one {@code api-call}
 * record per action, its kind the action class ({@code open-pull-request}), its ref what was
 * acted on ({@code #12}, a ref, a GraphQL field), its subject the call ({@code POST
 * api.github.com/repos/o/r/pulls}). Never a token or a body: the records hold neither.
 */
public final class AuditedApiCalls implements ApiAudit {
  private final AuditStore log;

  public AuditedApiCalls(AuditStore log) {
    this.log = log;
  }

  @Override
  public void record(List<ApiRecord> records) throws AuditLog.AuditException {
    log.record(records.stream().map(AuditedApiCalls::entry).toList());
  }

  static AuditEntry entry(ApiRecord r) {
    AuditEntry.Decision decision = AuditEntry.Decision.of(r.decision());
    boolean refused = r.status() == 0;
    RefusalCode code = !refused ? null
        : decision == AuditEntry.Decision.ASKED ? RefusalCode.APPROVAL_DENIED
        : RefusalCode.RULE_DENIED;
    return AuditEntry.builder(AuditEntry.Type.API_CALL).at(r.at()).runId(r.runId())
        .workspaceId(r.workspaceId()).repository(r.repository() == null ? "" : r.repository())
        .ref(r.target()).kind(r.kind()).decision(decision)
        .code(code == null ? null : code.name()).reason(r.reason())
        .outcome(refused ? AuditEntry.Outcome.NOT_FORWARDED : AuditEntry.Outcome.OK)
        .durationMillis(r.durationMillis()).subject(r.method() + " " + r.host() + r.path())
        .build();
  }
}
