package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.policy.ContentRules;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The detectors a rule set runs, picked once for every judge that judges by that set. */
class RuleDetectorsTest {
  @Test
  void aRuleSetsDetectorsArePickedOnceForEveryJudgeOfIt() {
    ContentRules rules = new ContentRules(List.copyOf(ContentRules.DEFAULT.rules()), true);

    RuleDetectors first = RuleDetectors.of(rules);
    assertThat(RuleDetectors.of(rules)).as("a run's next push").isSameAs(first);
    assertThat(RuleDetectors.of(rules).forFiles()).isSameAs(first.forFiles());
    assertThat(RuleDetectors.of(rules).forText()).isSameAs(first.forText());

    // Another set, even one that reads the same, is picked for itself: never another's picks.
    ContentRules another = new ContentRules(List.copyOf(ContentRules.DEFAULT.rules()), true);
    assertThat(RuleDetectors.of(another)).isNotSameAs(first);
    assertThat(RuleDetectors.of(another).rules()).isSameAs(another);
  }
}
