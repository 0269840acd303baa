package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HeldPushesTest {
  private final HeldPushes held = new HeldPushes();

  @Test
  void noneHeldIsAnsweredAtOnce() throws Exception {
    assertThat(held.awaitAnswered(Duration.ZERO)).isTrue();
  }

  @Test
  void aHeldPushIsWaitedForUntilReleasedOnceHoweverOftenItsReleaseRuns() throws Exception {
    Runnable first = held.hold();
    Runnable second = held.hold();
    first.run();
    first.run(); // counted once: the second push is still held
    assertThat(held.awaitAnswered(Duration.ZERO)).isFalse();

    CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
      try {
        return held.awaitAnswered(Duration.ofMinutes(1));
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    second.run();
    assertThat(waiting.get(1, TimeUnit.MINUTES)).isTrue();
  }

  @Test
  void theWaitEndsAtItsDeadlineWithPushesStillHeld() throws Exception {
    held.hold();
    assertThat(held.awaitAnswered(Duration.ofMillis(20))).isFalse();
  }
}
