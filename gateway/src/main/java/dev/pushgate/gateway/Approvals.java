package dev.pushgate.gateway;

import java.util.function.Consumer;

/**
 * Asks a person about a push held open. Port owned by the gateway. Implementations answer deny
 * when nobody can answer: a question nobody can answer is never a yes.
 */
@FunctionalInterface
public interface Approvals {
  /** No approver is ever connected. The refusal keeps the rule's reason. */
  Approvals NONE = (question, progress) -> ApprovalAnswer.refuse(RefusalCode.NO_APPROVER,
      question.reason() == null || question.reason().isBlank() ? "no approver is connected"
          : question.reason() + " (no approver is connected)");

  /**
   * Blocks until an approver answers or the wait times out. {@code progress} takes one-line
   * messages for the person pushing and is called at least every few seconds while waiting.
   */
  ApprovalAnswer ask(ApprovalQuestion question, Consumer<String> progress);

  /** An approver's answer; {@code code} is null when allowed. */
  record ApprovalAnswer(boolean allowed, RefusalCode code, String reason, String answeredBy) {
    public static ApprovalAnswer allow(String answeredBy) {
      return new ApprovalAnswer(true, null, "approved by " + answeredBy, answeredBy);
    }

    public static ApprovalAnswer refuse(RefusalCode code, String reason) {
      return new ApprovalAnswer(false, code, reason, null);
    }
  }
}
