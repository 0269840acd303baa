package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class RunSlotsTest {
  @Test
  void aRunGetsItsSlotsAndNoMoreWhileOtherRunsGetTheirs() {
    RunSlots slots = new RunSlots(2);
    Optional<RunSlots.Slot> a = slots.tryTake("run_a");
    Optional<RunSlots.Slot> b = slots.tryTake("run_a");
    assertThat(a).isPresent();
    assertThat(b).isPresent();
    assertThat(slots.tryTake("run_a")).isEmpty();
    assertThat(slots.tryTake("run_b")).isPresent();

    a.get().close();
    a.get().close(); // a second close gives nothing back twice
    assertThat(slots.inFlight("run_a")).isEqualTo(1);
    assertThat(slots.tryTake("run_a")).isPresent();
    assertThat(slots.tryTake("run_a")).isEmpty();
  }

  @Test
  void aLimitBelowOneIsRefused() {
    assertThatThrownBy(() -> new RunSlots(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a run needs at least one slot, not 0");
  }
}
