package dev.pushgate.types;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LogLineRateTest {
  @Test
  void theFirstEventIsLoggedAndTheRestOfTheIntervalIsNot() {
    LogLineRate rate = new LogLineRate(Duration.ofHours(1));
    assertThat(rate.event()).isEqualTo(1);
    for (int i = 0; i < 1000; i++) {
      assertThat(rate.event()).isZero();
    }
  }

  @Test
  void aLineDueStandsForTheEventsLeftUnloggedSinceTheLast() {
    java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
    LogLineRate rate = new LogLineRate(Duration.ofSeconds(10), now::get);
    assertThat(rate.event()).isEqualTo(1);
    now.addAndGet(Duration.ofSeconds(9).toNanos());
    assertThat(rate.event()).isZero();
    assertThat(rate.event()).isZero();
    now.addAndGet(Duration.ofSeconds(1).toNanos());
    assertThat(rate.event()).as("two unlogged and this one").isEqualTo(3);
    assertThat(rate.event()).isZero();
  }
}
