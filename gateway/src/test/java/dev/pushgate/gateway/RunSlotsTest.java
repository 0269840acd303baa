package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.gateway.api.ApiBoundary;
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
    RunSlots slots = new RunSlots(4, 8, 1, 0);
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
  void inTheLastSlotsKeptForRunsHoldingNoneOnlyAFirstCallGetsOne() {
    RunSlots slots = new RunSlots(4, 8, 2, 2);
    for (int i = 0; i < 4; i++) {
      slots.tryTake("run_a").orElseThrow();
    }
    slots.tryTake("run_b").orElseThrow();
    slots.tryTake("run_b").orElseThrow();
    // 6 of 8 taken: the last 2 are for runs holding none
    assertThat(slots.tryTake("run_b")).isEmpty();
    assertThat(slots.busy("run_b")).isTrue();
    slots.tryTake("run_c").orElseThrow();
    assertThat(slots.tryTake("run_c")).isEmpty();
    slots.tryTake("run_d").orElseThrow();
    assertThat(slots.tryTake("run_e")).as("all 8 taken").isEmpty();
  }

  /**
   * The boundary's numbers: 20 runs took all 128 slots (4 holding 16, 16 holding 4); now 44 must
   * hold one each, and 43 acting together leave a slot for a run holding none.
   */
  @Test
  void aGroupOfRunsTakesEverySlotOnlyWhenManyHoldOneEach() {
    assertThat(new RunSlots(16, 128, 4, 0).runsToFill()).isEqualTo(20);
    RunSlots slots = new RunSlots(ApiBoundary.MAX_CALLS, ApiBoundary.MAX_BUSY_CALLS,
        ApiBoundary.BUSY_SHARE, ApiBoundary.FIRST_CALLS_ONLY);
    assertThat(slots.runsToFill()).as("as docs/github-api.md says").isEqualTo(44);

    // 4 runs take half whole, 8 more their busy share up to the last 32, then 32 runs one each;
    // each asks for 16
    int runs = 0;
    for (int[] group : new int[][] {{4, 16}, {8, 4}, {32, 1}}) {
      for (int r = 0; r < group[0]; r++, runs++) {
        String run = "run-" + runs;
        for (int c = 0; c < 16; c++) {
          slots.tryTake(run);
        }
        assertThat(slots.inFlight(run)).as(run).isEqualTo(group[1]);
      }
    }
    assertThat(runs).isEqualTo(44);
    assertThat(slots.tryTake("victim")).as("every slot taken").isEmpty();
  }

  /**
   * Whatever the order calls are taken and given back in, a run holding none is refused only
   * while at least {@link RunSlots#runsToFill} other runs hold one each.
   */
  @Test
  void aRunHoldingNoneIsRefusedOnlyWhileRunsToFillOthersHoldOne() {
    java.util.Random random = new java.util.Random(20261205);
    RunSlots slots = new RunSlots(16, 128, 4, 32);
    java.util.List<RunSlots.Slot> held = new java.util.ArrayList<>();
    int refusedWhenHoldingNone = 0;
    for (int step = 0; step < 200_000; step++) {
      if (!held.isEmpty() && random.nextInt(10) < 1) {
        RunSlots.Slot s = held.remove(random.nextInt(held.size()));
        s.close();
        continue;
      }
      // a few runs that try to hold many, among many that try to hold some
      String run = "run-" + random.nextInt(random.nextBoolean() ? 6 : RUNS);
      java.util.Optional<RunSlots.Slot> s = slots.tryTake(run);
      if (s.isPresent()) {
        held.add(s.get());
      } else if (slots.inFlight(run) == 0) {
        refusedWhenHoldingNone++;
        assertThat(distinctRunsHolding(slots)).isGreaterThanOrEqualTo(slots.runsToFill());
      }
    }
    assertThat(refusedWhenHoldingNone).as("the bound was reached").isPositive();
  }

  private static final int RUNS = 200;

  private static int distinctRunsHolding(RunSlots slots) {
    int n = 0;
    for (int i = 0; i < RUNS; i++) {
      n += slots.inFlight("run-" + i) > 0 ? 1 : 0;
    }
    return n;
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
