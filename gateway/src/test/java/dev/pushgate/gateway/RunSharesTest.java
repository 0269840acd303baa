package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The shrinking share in a unit of many at a time: the API boundary's buffered bytes. */
class RunSharesTest {
  private static final long MIB = 1024 * 1024;

  /** The installed unit's budget: 128 MiB, a run's 20, a body of 10 past half, 1 in the last 32. */
  private static RunShares bodies() {
    return new RunShares(20 * MIB, 128 * MIB, 10 * MIB, 32 * MIB, MIB);
  }

  @Test
  void aTakeIsHeldToTheShareOfThePartOfThePoolItReaches() {
    RunShares s = bodies();
    for (String run : List.of("a", "b", "c")) {
      assertThat(s.take(run, 10 * MIB)).isEqualTo(RunShares.Take.TAKEN);
      assertThat(s.take(run, 10 * MIB)).isEqualTo(RunShares.Take.TAKEN);
    }
    assertThat(s.take("a", 1)).as("a run's own bound").isEqualTo(RunShares.Take.OWN_BOUND);
    // 60 MiB held: a body of 10 reaches past half, where a run may hold one body
    assertThat(s.take("d", 10 * MIB)).isEqualTo(RunShares.Take.TAKEN);
    assertThat(s.take("d", 10 * MIB)).isEqualTo(RunShares.Take.SHARE);
    assertThat(s.take("e", 10 * MIB)).isEqualTo(RunShares.Take.TAKEN);
    assertThat(s.take("f", 10 * MIB)).isEqualTo(RunShares.Take.TAKEN);
    // 90 MiB held: 8 more would reach the last 32, where a run holds 1 MiB at most
    assertThat(s.take("g", 8 * MIB)).isEqualTo(RunShares.Take.SHARE);
    assertThat(s.take("g", MIB)).isEqualTo(RunShares.Take.TAKEN);
    assertThat(s.taken()).isEqualTo(91 * MIB);
    s.give("a", 20 * MIB);
    assertThat(s.held("a")).isZero();
    assertThat(s.take("a", 10 * MIB)).as("under half again").isEqualTo(RunShares.Take.TAKEN);
  }

  @Test
  void aPoolSharedInOnesIsTheCallSlotsCount() {
    assertThat(new RunShares(16, 128, 4, 32, 1).runsToFill()).isEqualTo(44);
    assertThat(bodies().runsToFill()).as("as docs/github-api.md says").isEqualTo(39);
  }

  /**
   * Whatever the sizes and the order of takes and gives, a run holding none is refused a take
   * of up to the last share only while at least {@link RunShares#runsToFill} other runs hold some.
   */
  @Test
  void aRunHoldingNoneIsRefusedASmallTakeOnlyWhileRunsToFillOthersHoldSome() {
    Random random = new Random(20261205);
    RunShares s = bodies();
    List<long[]> held = new ArrayList<>(); // {run, bytes}
    int refused = 0;
    for (int step = 0; step < 200_000; step++) {
      if (!held.isEmpty() && random.nextInt(10) < 1) {
        long[] h = held.remove(random.nextInt(held.size()));
        s.give("run-" + h[0], h[1]);
        continue;
      }
      // a few runs that send large bodies, among many that send JSON
      boolean large = random.nextBoolean();
      int run = random.nextInt(large ? 6 : RUNS);
      long bytes = large ? 1 + random.nextInt((int) (10 * MIB)) : 1 + random.nextInt((int) MIB);
      boolean holdingNone = s.held("run-" + run) == 0;
      RunShares.Take t = s.take("run-" + run, bytes);
      if (t == RunShares.Take.TAKEN) {
        held.add(new long[] {run, bytes});
      } else if (holdingNone && bytes <= MIB) {
        refused++;
        assertThat(t).isEqualTo(RunShares.Take.FULL);
        assertThat(runsHolding(s)).isGreaterThanOrEqualTo(s.runsToFill());
      }
    }
    assertThat(refused).as("the pool was filled").isPositive();
  }

  @Test
  void sharesThatCannotShrinkAreRefused() {
    assertThatThrownBy(() -> new RunShares(20, 128, 10, 32, 11))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("their share (11) between 1 and the busy share (10)");
  }

  private static final int RUNS = 300;

  private static long runsHolding(RunShares s) {
    long n = 0;
    for (int i = 0; i < RUNS; i++) {
      n += s.held("run-" + i) > 0 ? 1 : 0;
    }
    return n;
  }
}
