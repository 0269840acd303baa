package dev.pushgate.approvals;

import java.util.List;
import java.util.Optional;

/**
 * The other appliances of a fleet sharing one database, as the approval desk sees them: their
 * approvers, the questions they hold, and the shared record in which the first end of a question
 * wins. {@link #NONE} is a single host: nobody else, and every end is final as proposed.
 */
public interface FleetDesk {
  /** A single host. */
  FleetDesk NONE = new FleetDesk() {
    @Override
    public boolean approverElsewhere() {
      return false;
    }

    @Override
    public Answer settle(Question q, Answer proposed) {
      return proposed;
    }

    @Override
    public Optional<Question> answerElsewhere(String id, Answer a) {
      return Optional.empty();
    }

    @Override
    public List<Question> pendingElsewhere(String runId) {
      return List.of();
    }
  };

  /** Whether an approver is connected to another appliance; false when that cannot be known. */
  boolean approverElsewhere();

  /** {@code q}, already recorded, is now held here: the other appliances may show it. */
  default void held(Question q) {}

  /**
   * How {@code q}, held here, ends: {@code proposed}, unless an answer given elsewhere ended it
   * first; then that answer. A withdrawal ({@link Answer.Outcome#CANCELLED}) is never turned
   * into an allow. Never an allow that the shared record did not take.
   */
  Answer settle(Question q, Answer proposed);

  /** Answers a question another live appliance holds; empty when there is no such open one. */
  Optional<Question> answerElsewhere(String id, Answer a);

  /** Open questions held by other live appliances, oldest first; of one run when set. */
  List<Question> pendingElsewhere(String runId);

  /** Whether an approver is connected here changed: tell the fleet soon. */
  default void presenceChanged() {}
}
