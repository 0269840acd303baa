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
   * names kept every other run's lookups refused. At most {@code atOnce} lookups wait at a time
   * and at most {@code perAsker} of one asker's; one more is refused at once, saying whose bound
   * it met, and lookups go on once one ends. An address literal needs no lookup and is never
   * refused.
   */
  @Test
  void aBoundedResolverHoldsEachAskerToItsShareAndAllToTheBound() throws Exception {
    CountDownLatch answer = new CountDownLatch(1);
    CountDownLatch asked = new CountDownLatch(3);
    HostResolver slow = host -> {
      if (host.startsWith("slow")) {
        asked.countDown();
        try {
          answer.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return List.of(InetAddress.getByName(host.startsWith("slow") ? "127.0.0.1" : host));
    };
    HostResolver bounded = HostResolver.bounded(slow, 3, 2);
    List<Thread> waiting = new ArrayList<>();
    for (String asker : List.of("run-a", "run-a", "run-b")) {
      Thread t = new Thread(() -> {
        try {
          bounded.resolve("slow.test", asker);
        } catch (java.net.UnknownHostException e) {
          throw new AssertionError(e);
        }
      });
      t.start();
      waiting.add(t);
    }
    assertThat(asked.await(30, TimeUnit.SECONDS)).isTrue();

    assertThatThrownBy(() -> bounded.resolve("slow-too.test", "run-a"))
        .isInstanceOf(HostResolver.Busy.class)
        .hasMessageContaining("this run has 2 host names looked up at once already");
    assertThatThrownBy(() -> bounded.resolve("one-more.test", "run-c"))
        .isInstanceOf(HostResolver.Busy.class)
        .hasMessageContaining("looking up 3 host names at once already");
    assertThat(bounded.resolve("192.0.2.7", "run-a"))
        .containsExactly(InetAddress.getByName("192.0.2.7"));
    assertThat(bounded.resolve("::1", "run-c")).containsExactly(InetAddress.getByName("::1"));

    answer.countDown();
    for (Thread t : waiting) {
      t.join(30_000);
    }
    assertThat(bounded.resolve("slow-after.test", "run-a"))
        .containsExactly(InetAddress.getByName("127.0.0.1"));
    assertThat(bounded.resolve("slow-after.test", "run-c"))
        .containsExactly(InetAddress.getByName("127.0.0.1"));
  }
}
