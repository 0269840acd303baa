package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class MintBudgetTest {

  private final MutableClock clock = new MutableClock(Instant.parse("2026-03-01T12:00:00Z"));

  @Test
  void aRunMayMintItsBurstThenOneEachShareOfAMinute() throws Exception {
    MintBudget budget = new MintBudget(6, clock);
    for (int i = 0; i < 6; i++) {
      budget.spend("run-1");
    }
    assertThatThrownBy(() -> budget.spend("run-1"))
        .isInstanceOf(UpstreamException.class)
        .hasMessage("this run has pushed more than 6 times in a minute, the most one run may;"
            + " nothing was pushed, try again in 10 s")
        .satisfies(e -> assertThat(((UpstreamException) e).forThePersonPushing()).isTrue());

    clock.advance(Duration.ofSeconds(10));
    budget.spend("run-1");
    assertThatThrownBy(() -> budget.spend("run-1")).isInstanceOf(UpstreamException.class);
  }

  @Test
  void eachRunHasItsOwnBudget() throws Exception {
    MintBudget budget = new MintBudget(1, clock);
    budget.spend("run-1");
    budget.spend("run-2");
    assertThatThrownBy(() -> budget.spend("run-1")).isInstanceOf(UpstreamException.class);
  }

  @Test
  void aBudgetOfLessThanOneIsRefused() {
    assertThatThrownBy(() -> new MintBudget(0, clock))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("write tokens per minute must be at least 1: 0");
  }
}
