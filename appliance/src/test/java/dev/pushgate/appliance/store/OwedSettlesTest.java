package dev.pushgate.appliance.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The outcomes a reader of the audit waits for (docs/audit.md, a push's outcome). */
class OwedSettlesTest {
  /** A push whose close never came holds one reader back for the wait, not every later one. */
  @Test
  void anOutcomeNeverWrittenHoldsOneReaderBackNotEveryReaderAfterIt() throws Exception {
    OwedSettles owed = new OwedSettles();
    OwedSettles.Owed lost = owed.owe();
    assertThat(owed.awaitOwedNow(Duration.ofMillis(50))).isFalse();
    assertThat(owed.awaitOwedNow(Duration.ofMillis(50))).isTrue();
    lost.written(); // late: nothing to give back, nobody waits
    assertThat(owed.awaitOwedNow(Duration.ofMillis(50))).isTrue();
  }

  /** An outcome written lets its reader go at once. */
  @Test
  void aWrittenOutcomeLetsItsReaderGo() throws Exception {
    OwedSettles owed = new OwedSettles();
    OwedSettles.Owed one = owed.owe();
    one.written();
    assertThat(owed.awaitOwedNow(Duration.ofSeconds(30))).isTrue();
  }
}
