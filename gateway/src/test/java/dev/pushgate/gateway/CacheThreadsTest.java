package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.MessageDigest;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class CacheThreadsTest {
  /**
   * A compaction or ref write that a stop interrupts still ends its file system work (JGit's packing
   * does not stop at an interrupt); the stop returns once it has, so that nothing it writes lands in
   * a cache after the gateway stopped (CI: a compaction wrote its base record into a test's
   * temporary directory while JUnit removed it).
   */
  @Test
  void aStopReturnsOnceTheWorkUnderWayHasEnded() throws Exception {
    ThreadPoolExecutor threads = CacheThreads.oneWhenBusy("test-cache-work", Thread.NORM_PRIORITY);
    CountDownLatch started = new CountDownLatch(1);
    AtomicBoolean ended = new AtomicBoolean();
    threads.execute(() -> {
      started.countDown();
      try {
        new CountDownLatch(1).await(); // until the stop interrupts it
      } catch (InterruptedException stopped) {
        finishAfterTheInterrupt();
      }
      ended.set(true);
    });
    started.await();

    CacheThreads.stop(threads, "test work");

    assertThat(ended).as("the work had ended when the stop returned").isTrue();
    assertThat(threads.isTerminated()).isTrue();
  }

  /** Some milliseconds of work that no interrupt stops, as writing out a pack is. */
  private static void finishAfterTheInterrupt() {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      byte[] block = new byte[1 << 20];
      for (int i = 0; i < 32; i++) {
        sha.update(block);
      }
      sha.digest();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
