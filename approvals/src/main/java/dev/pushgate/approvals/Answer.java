package dev.pushgate.approvals;

import dev.pushgate.gateway.RefusalCode;

/** How a question ended. */
public record Answer(Outcome outcome, String by, String reason) {
  /** The ways a question ends. */
  public enum Outcome {
    ALLOWED,
    DENIED,
    TIMED_OUT,
    NO_APPROVER,
    /** Withdrawn before anyone answered: the run ended or the appliance is stopping. */
    CANCELLED,
    /** Never asked: too long for a person to read whole. */
    TOO_LONG;

    public String id() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
  }

  public boolean allowed() {
    return outcome == Outcome.ALLOWED;
  }

  /** How the audit log names this end; null when allowed. */
  public RefusalCode refusalCode() {
    return switch (outcome) {
      case ALLOWED -> null;
      case DENIED -> RefusalCode.APPROVAL_DENIED;
      case TIMED_OUT -> RefusalCode.APPROVAL_TIMEOUT;
      case NO_APPROVER -> RefusalCode.NO_APPROVER;
      case CANCELLED -> RefusalCode.APPROVAL_CANCELLED;
      case TOO_LONG -> RefusalCode.QUESTION_TOO_LONG;
    };
  }
}
