package dev.pushgate.approvals;

import dev.pushgate.gateway.ApprovalQuestion;
import dev.pushgate.gateway.Approvals;
import java.util.function.Consumer;

/** The gateway's "ask first" port, answered at the approval desk. */
public final class GatewayApprovals implements Approvals {
  private final ApprovalDesk desk;

  public GatewayApprovals(ApprovalDesk desk) {
    this.desk = desk;
  }

  @Override
  public ApprovalAnswer ask(ApprovalQuestion q, Consumer<String> progress) {
    Answer a = desk.ask(Question.asked(q), progress);
    return a.allowed() ? ApprovalAnswer.allow(a.by())
        : ApprovalAnswer.refuse(a.refusalCode(), a.reason());
  }
}
