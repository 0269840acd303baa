package dev.pushgate.policy;

import java.util.Objects;

/** A decision together with the rule that made it and the reason a person reads. */
public record Judgement(Decision decision, String rule, String reason) {
  public Judgement {
    Objects.requireNonNull(decision, "decision");
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(reason, "reason");
  }
}
