package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class MintBudgetTest {
  /** A clock the test moves. */
  private static final class MovingClock extends Clock {
    Instant now = Instant.parse("2026-03-01T12:00:00Z");

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  private final MovingClock clock = new MovingClock();

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

    clock.now = clock.now.plus(Duration.ofSeconds(10));
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
