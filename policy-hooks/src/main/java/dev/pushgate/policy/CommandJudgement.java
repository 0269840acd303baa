package dev.pushgate.policy;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * What the command policy says about a command line: the decision, every action class the line
 * was seen to belong to (whatever the decision), and one line a person can act on.
 */
public record CommandJudgement(Decision decision, Set<ActionClass> actions, String reason) {
  public CommandJudgement {
    Objects.requireNonNull(decision, "decision");
    Objects.requireNonNull(actions, "actions");
    Objects.requireNonNull(reason, "reason");
    actions = actions.isEmpty()
        ? Set.of()
        : Collections.unmodifiableSet(EnumSet.copyOf(actions));
    if (reason.isBlank() || reason.indexOf('\n') >= 0 || reason.indexOf('\r') >= 0) {
      throw new IllegalArgumentException("a judgement's reason is one non-blank line");
    }
  }
}
