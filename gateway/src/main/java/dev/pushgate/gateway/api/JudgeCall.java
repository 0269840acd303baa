package dev.pushgate.gateway.api;

import dev.pushgate.policy.Decision;
import java.util.List;

/**
 * Hands the call to the run's judge. Allowed and denied calls are decided here; a call the rules
 * ask about goes on to the approvers. A judge that fails denies the call.
 */
record JudgeCall(String runId, ApiJudge judge) implements CallStep {
  @Override
  public CallDecision take(ApiExchange call) {
    ApiJudgement judgement;
    try {
      judgement = judge.judge(call.call());
    } catch (RuntimeException e) {
      ApiBoundary.LOG.warn("run {}: the API judge failed on {} {}: {}", runId, call.method,
          call.path, e.getClass().getName());
      judgement = new ApiJudgement(List.of(new ApiJudgement.ApiAction("unknown", null, call.path,
          Decision.DENY, "pushgate could not judge this call")), false);
    }
    call.judgement(judgement);
    return switch (judgement.decision()) {
      case ALLOW -> new CallDecision.Allowed("allowed", judgement.reason());
      case ASK -> CallDecision.NEXT;
      default -> CallDecision.Denied.byRule("denied", judgement.reason());
    };
  }
}
