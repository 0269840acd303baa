package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.types.RepoSlug;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RepositoryWaitsTest {
  private static final RepoSlug REPO = RepoSlug.parse("acme/widget");
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final ReentrantLock lock = new ReentrantLock();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  /** Another thread takes the lock and keeps it until the latch answered is counted down. */
  private CountDownLatch holdTheLockElsewhere() throws InterruptedException {
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    pool.submit(() -> {
      lock.lock();
      held.countDown();
      release.await();
      lock.unlock();
      return null;
    });
    held.await();
    return release;
  }

  @Test
  void aFreeLockIsTakenAtOnceWhateverTheBound() throws Exception {
    RepositoryWaits waits = new RepositoryWaits(new AdmissionLimits(1, 0, Duration.ofMillis(1)));
    waits.lockWithNoFetchPending(REPO, lock, () -> null);
    assertThat(lock.isHeldByCurrentThread()).isTrue();
  }

  @Test
  void aWaiterPastTheBoundIsShedAtOnceWithAMessageThatSaysToRetry() throws Exception {
    RepositoryWaits waits = new RepositoryWaits(new AdmissionLimits(8, 1, Duration.ofMinutes(5)));
    CountDownLatch release = holdTheLockElsewhere();
    Future<?> first = pool.submit(() -> {
      waits.lockWithNoFetchPending(REPO, lock, () -> null);
      lock.unlock();
      return null;
    });
    while (!lock.hasQueuedThreads()) {
      Thread.onSpinWait(); // the first waiter is queued on the lock
    }
    assertThatThrownBy(() -> waits.lockWithNoFetchPending(REPO, lock, () -> null))
        .isInstanceOf(RepositoryBusy.class)
        .hasMessage("the gateway is busy with acme/widget: 1 requests wait for it already;"
            + " nothing was done, retry in a few seconds");
    release.countDown();
    first.get(30, TimeUnit.SECONDS);
    waits.lockWithNoFetchPending(REPO, lock, () -> null); // the waiter's place was given back
    assertThat(lock.isHeldByCurrentThread()).isTrue();
  }

  @Test
  void aWaiterIsShedWhenItsWaitRunsOutAndHoldsNothing() throws Exception {
    RepositoryWaits waits = new RepositoryWaits(new AdmissionLimits(8, 4, Duration.ofMillis(200)));
    CountDownLatch release = holdTheLockElsewhere();
    assertThatThrownBy(() -> waits.lockWithNoFetchPending(REPO, lock, () -> null))
        .isInstanceOf(RepositoryBusy.class)
        .hasMessage("the gateway is busy with acme/widget: waited 200 ms for the requests ahead;"
            + " nothing was done, retry in a few seconds");
    assertThat(lock.isHeldByCurrentThread()).isFalse();
    release.countDown();
  }

  @Test
  void aPendingFetchThatNeverEndsIsWaitedForOnlyUntilTheDeadline() throws Exception {
    RepositoryWaits waits = new RepositoryWaits(new AdmissionLimits(8, 4, Duration.ofMillis(200)));
    CompletableFuture<Void> never = new CompletableFuture<>();
    assertThatThrownBy(() -> waits.lockWithNoFetchPending(REPO, lock, () -> never))
        .isInstanceOf(RepositoryBusy.class);
    assertThat(lock.isLocked()).isFalse();
  }
}
