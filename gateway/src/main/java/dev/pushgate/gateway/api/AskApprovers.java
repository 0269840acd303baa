package dev.pushgate.gateway.api;

import dev.pushgate.gateway.ApprovalQuestion;
import dev.pushgate.gateway.Approvals;
import dev.pushgate.gateway.RefusalCode;
import dev.pushgate.policy.Decision;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * Asks the approvers about a call the rules ask about, in one question for the whole call: every
 * action it does is listed (class, target, repository, what it says, and whether its rule asks
 * or allows), so that an allow covers exactly what the approver was shown. A call doing more than
 * {@link ApiBoundary#MAX_ASKED_ACTIONS} things is refused unasked.
 */
record AskApprovers(String runId, String workspaceId, Approvals approvals) implements CallStep {
  @Override
  public CallDecision take(ApiExchange call) {
    ApiJudgement judgement = call.judgement();
    if (judgement.actions().size() > ApiBoundary.MAX_ASKED_ACTIONS) {
      return CallDecision.Denied.byRule("denied", "the call does " + judgement.actions().size()
          + " things at once and needs approval; pushgate puts at most "
          + ApiBoundary.MAX_ASKED_ACTIONS + " in one question: split the call");
    }
    Approvals.ApprovalAnswer answer;
    try {
      answer = ask(call.call(), judgement, call.clientGone);
    } finally {
      Thread.interrupted(); // set above only for the approvers' wait: not the thread's next call
    }
    if (answer.allowed() && call.clientGone.goneNow()) {
      // The wait looks at the connection only at the approvers' keepalives: a client gone since
      // the last look would have its write made for nobody (and twice, if it retried).
      return CallDecision.Denied.byRule("asked", answer.reason() + ", but the call's client had"
          + " gone before the answer came: nothing was sent");
    }
    return answer.allowed() ? new CallDecision.Allowed("asked", answer.reason())
        : CallDecision.Denied.byRule("asked", answer.reason());
  }

  private Approvals.ApprovalAnswer ask(ApiCall call, ApiJudgement judgement,
      BooleanSupplier gone) {
    List<ApiJudgement.ApiAction> asking = judgement.actions().stream()
        .filter(a -> a.decision() == Decision.ASK).toList();
    ApiJudgement.ApiAction first = asking.get(0);
    String classes = String.join(", ", asking.stream().map(ApiJudgement.ApiAction::kind)
        .distinct().toList());
    String repositories = String.join(", ", judgement.actions().stream()
        .map(ApiJudgement.ApiAction::repository).filter(Objects::nonNull).distinct().toList());
    List<String> covered = new ArrayList<>();
    covered.add(call.method() + " " + call.host() + call.path());
    for (ApiJudgement.ApiAction a : judgement.actions()) {
      covered.add((a.decision() == Decision.ASK ? "needs approval: " : "allowed by its rule: ")
          + a.kind() + " " + a.target() + (a.repository() == null ? "" : " on "
          + a.repository()) + (a.says().isEmpty() ? "" : ": " + a.says()));
    }
    ApprovalQuestion q = new ApprovalQuestion(runId, workspaceId, repositories,
        asking.size() == 1 ? first.target() : asking.size() + " actions: " + String.join(", ",
            asking.stream().map(ApiJudgement.ApiAction::target).toList()),
        "api " + classes, null, null, classes,
        String.join("; ", asking.stream().map(ApiJudgement.ApiAction::reason).distinct()
            .toList()), covered, classes);
    try {
      // The approvers' wait stops at an interrupt and withdraws the question: a run that has
      // gone keeps no question, slot or thread waiting for an answer nobody reads.
      return approvals.ask(q, line -> {
        if (gone.getAsBoolean()) {
          Thread.currentThread().interrupt();
        }
      });
    } catch (RuntimeException e) {
      ApiBoundary.LOG.warn("run {}: asking about an API call failed: {}", runId, e.toString());
      return Approvals.ApprovalAnswer.refuse(RefusalCode.NO_APPROVER, first.reason()
          + " (the approvers could not be asked)");
    }
  }
}
