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
   * Finding (attack of 2026-12-07): names that never resolve held 194 of the API boundary's 200
   * threads in the shared proxy's lookups. At most {@code atOnce} lookups wait at a time; one more
   * is refused at once, saying why, and lookups go on once one ends.
   */
  @Test
  void aBoundedResolverRefusesTheLookupOverItsBoundAtOnce() throws Exception {
    CountDownLatch answer = new CountDownLatch(1);
    CountDownLatch asked = new CountDownLatch(3);
    HostResolver slow = host -> {
      asked.countDown();
      try {
        answer.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return List.of(InetAddress.getLoopbackAddress());
    };
    HostResolver bounded = HostResolver.bounded(slow, 3);
    List<Thread> waiting = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Thread t = new Thread(() -> {
        try {
          bounded.resolve("slow.test");
        } catch (java.net.UnknownHostException e) {
          throw new AssertionError(e);
        }
      });
      t.start();
      waiting.add(t);
    }
    assertThat(asked.await(30, TimeUnit.SECONDS)).isTrue();

    assertThatThrownBy(() -> bounded.resolve("one-more.test"))
        .isInstanceOf(HostResolver.Busy.class)
        .hasMessageContaining("looking up 3 host names at once already");

    answer.countDown();
    for (Thread t : waiting) {
      t.join(30_000);
    }
    assertThat(bounded.resolve("after.test")).containsExactly(InetAddress.getLoopbackAddress());
  }
}
