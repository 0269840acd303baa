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
  void pastHalfTheBoundOverAllRunsARunHoldingItsBusyShareGetsNoMore() {
    RunSlots slots = new RunSlots(4, 8, 1);
    for (int i = 0; i < 4; i++) {
      assertThat(slots.tryTake("run_a")).isPresent();
    }
    // half of 8 taken: a run holding one already gets no more, a run holding none gets one
    assertThat(slots.tryTake("run_a")).isEmpty();
    assertThat(slots.busy("run_a")).isFalse(); // its own limit, not the others'
    assertThat(slots.tryTake("run_b")).isPresent();
    assertThat(slots.tryTake("run_b")).isEmpty();
    assertThat(slots.busy("run_b")).isTrue();
    assertThat(slots.tryTake("run_c")).isPresent();
    assertThat(slots.tryTake("run_d")).isPresent();
    RunSlots.Slot last = slots.tryTake("run_e").orElseThrow();
    assertThat(slots.tryTake("run_f")).as("all 8 taken").isEmpty();
    last.close();
    assertThat(slots.tryTake("run_f")).isPresent();
  }

  @Test
  void aLimitBelowOneIsRefused() {
    assertThatThrownBy(() -> new RunSlots(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a run needs at least one slot, not 0");
  }

  @Test
  void aWaitingCallerGetsTheSlotItsRunReleases() throws Exception {
    RunSlots slots = new RunSlots(1);
    RunSlots.Slot held = slots.tryTake("run-a").orElseThrow();
    java.util.concurrent.CountDownLatch asked = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CompletableFuture<Optional<RunSlots.Slot>> waiting =
        java.util.concurrent.CompletableFuture.supplyAsync(() -> {
          try {
            return slots.take("run-a", java.time.Duration.ofMinutes(5), asked::countDown);
          } catch (Exception e) {
            throw new java.util.concurrent.CompletionException(e);
          }
        });
    assertThat(asked.await(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    // Another run is not kept waiting by run-a's slots.
    assertThat(slots.take("run-b", java.time.Duration.ZERO, () -> { })).isPresent();

    held.close();

    assertThat(waiting.get(60, java.util.concurrent.TimeUnit.SECONDS)).isPresent();
    assertThat(slots.inFlight("run-a")).isEqualTo(1);
  }

  @Test
  void aCallerThatWaitedItsMaximumGetsNone() throws Exception {
    RunSlots slots = new RunSlots(1);
    slots.tryTake("run-a").orElseThrow();

    assertThat(slots.take("run-a", java.time.Duration.ofMillis(1), () -> { })).isEmpty();
    assertThat(slots.inFlight("run-a")).isEqualTo(1);
  }

  @Test
  void aCallerNoLongerWantedStopsWaiting() throws Exception {
    RunSlots slots = new RunSlots(1);
    slots.tryTake("run-a").orElseThrow();

    assertThatThrownBy(() -> slots.take("run-a", java.time.Duration.ofMinutes(5), () -> {
      throw new JudgementBudget.Abandoned("the client closed its connection");
    })).isInstanceOf(JudgementBudget.Abandoned.class);
    assertThat(slots.inFlight("run-a")).isEqualTo(1);
  }
}
