package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HostResolverTest {
  /**
   * Findings (attacks of 2026-12-07): names that never resolve held 194 of the API boundary's 200
   * threads in the shared proxy's lookups; then, with one bound for all runs, one run's slow
   * names kept every other run's lookups refused; then four runs' did. At most {@code atOnce}
   * lookups wait at a time and at most {@code perAsker} of one asker's, and the last {@code
   * perAsker} go only to askers with none under way; one more is refused at once, saying whose
   * bound it met, and lookups go on once one ends. An IPv4 address as usually written needs no
   * lookup and is never refused; a name that only looks like one is a name.
   */
  @Test
  void aBoundedResolverHoldsEachAskerToItsShareAndKeepsAReserveForTheOthers() throws Exception {
    CountDownLatch answer = new CountDownLatch(1);
    java.util.concurrent.Semaphore asked = new java.util.concurrent.Semaphore(0);
    HostResolver slow = host -> {
      if (host.startsWith("slow")) {
        asked.release();
        try {
          // bounded, so that a lookup the bound should have refused fails the test, not hangs it
          answer.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return List.of(InetAddress.getByName(host.startsWith("slow") ? "127.0.0.1" : host));
    };
    HostResolver bounded = HostResolver.bounded(slow, 4, 2);
    List<Thread> waiting = new ArrayList<>();
    for (String asker : List.of("run-a", "run-a", "run-b")) {
      waiting.add(lookUp(bounded, asker));
      assertThat(asked.tryAcquire(30, TimeUnit.SECONDS)).isTrue();
    }

    assertThatThrownBy(() -> bounded.resolve("slow-too.test", "run-a"))
        .isInstanceOf(HostResolver.Busy.class)
        .hasMessageContaining("this run has as many host names looked up at once as it may (2");
    assertThatThrownBy(() -> bounded.resolve("slow-too.test", "run-b"))
        .as("one lookup left, kept for a run with none under way")
        .isInstanceOf(HostResolver.Busy.class)
        .hasMessageContaining("this run has as many host names looked up at once as it may");
    waiting.add(lookUp(bounded, "run-c"));
    assertThat(asked.tryAcquire(30, TimeUnit.SECONDS)).as("run-c's lookup, from the reserve")
        .isTrue();
    assertThatThrownBy(() -> bounded.resolve("one-more.test", "run-d"))
        .isInstanceOf(HostResolver.Busy.class)
        .hasMessageContaining("looking up 4 host names at once already");
    assertThat(bounded.resolve("192.0.2.7", "run-a"))
        .containsExactly(InetAddress.getByName("192.0.2.7"));
    for (String lookalike : List.of("999.1.1.1", "01.2.3.4", "a:b", "1:2")) {
      assertThatThrownBy(() -> bounded.resolve(lookalike, "run-d"))
          .as(lookalike + " only looks like an address: a name server is asked, so it is bounded")
          .isInstanceOf(HostResolver.Busy.class);
    }

    answer.countDown();
    for (Thread t : waiting) {
      t.join(30_000);
    }
    assertThat(bounded.resolve("slow-after.test", "run-a"))
        .containsExactly(InetAddress.getByName("127.0.0.1"));
    assertThat(bounded.resolve("slow-after.test", "run-d"))
        .containsExactly(InetAddress.getByName("127.0.0.1"));
  }

  private static Thread lookUp(HostResolver bounded, String asker) {
    Thread t = new Thread(() -> {
      try {
        bounded.resolve("slow.test", asker);
      } catch (java.net.UnknownHostException e) {
        throw new AssertionError(e);
      }
    });
    t.start();
    return t;
  }
}
