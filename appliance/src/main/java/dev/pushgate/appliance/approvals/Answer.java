package dev.pushgate.appliance.approvals;

/** How a question ended. */
public record Answer(Outcome outcome, String by, String reason) {
  /** The ways a question ends. */
  public enum Outcome {
    ALLOWED,
    DENIED,
    TIMED_OUT,
    NO_APPROVER;

    public String id() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
  }

  public boolean allowed() {
    return outcome == Outcome.ALLOWED;
  }
}
