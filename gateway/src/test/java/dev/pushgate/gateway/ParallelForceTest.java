package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ParallelForceTest {
  private static final long DEADLINE_SECONDS = 10;

  @Test
  void theFilesAreForcedAtOnceNotOneAfterTheOther() throws Exception {
    // Each force waits until every other has started: forced in turn, the first never ends.
    CountDownLatch started = new CountDownLatch(3);
    Set<String> forced = ConcurrentHashMap.newKeySet();
    ParallelForce.all(List.of("pack", "idx", "other"), f -> {
      started.countDown();
      await(started, f + ": the other forces did not start while this one ran");
      forced.add(f);
    });
    assertThat(forced).containsExactlyInAnyOrder("pack", "idx", "other");
  }

  @Test
  void itReturnsOnlyOnceEveryForceHasReturnedNotWhenTheCallersOwnHas() throws Exception {
    // The caller forces the last file; the first is held until the last has ended, so a return
    // that did not wait for it would find it unforced.
    CountDownLatch lastEnded = new CountDownLatch(1);
    Set<String> forced = ConcurrentHashMap.newKeySet();
    ParallelForce.all(List.of("pack", "idx"), f -> {
      if (f.equals("pack")) {
        await(lastEnded, "the index's force never ended");
        forced.add(f);
      } else {
        forced.add(f);
        lastEnded.countDown();
      }
    });
    assertThat(forced).as("the pack put in place only once forced").contains("pack", "idx");
  }

  @Test
  void aFailedForceFailsTheCallAfterTheOthersHaveEnded() {
    CountDownLatch failed = new CountDownLatch(1);
    Set<String> forced = ConcurrentHashMap.newKeySet();
    assertThatThrownBy(() -> ParallelForce.all(List.of("pack", "idx"), f -> {
      if (f.equals("pack")) {
        await(failed, "the index's force never failed");
        forced.add(f);
        return;
      }
      failed.countDown();
      throw new IOException("no space left on device");
    })).isInstanceOf(IOException.class).hasMessage("no space left on device");
    assertThat(forced).as("the pack's force ended before the failure was reported")
        .containsExactly("pack");
  }

  @Test
  void aFailureOnAForcingThreadIsTheCallersFailure() {
    assertThatThrownBy(() -> ParallelForce.all(List.of("pack", "idx"), f -> {
      if (f.equals("pack")) {
        throw new IOException("input/output error");
      }
    })).isInstanceOf(IOException.class).hasMessage("input/output error");
  }

  @Test
  void noFilesIsNothingToForce() throws Exception {
    ParallelForce.all(List.<String>of(), f -> {
      throw new IOException("forced " + f);
    });
  }

  /** Waits for {@code latch} within the deadline, else fails the force with {@code otherwise}. */
  private static void await(CountDownLatch latch, String otherwise) throws IOException {
    try {
      if (!latch.await(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
        throw new IOException(otherwise);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }
}
