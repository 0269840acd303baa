package dev.pushgate.appliance.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.sandbox.SandboxEvent;
import dev.pushgate.testkit.Wait;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A launch's output queue: a command that writes faster than the stream sends is slowed, not
 * killed; only a client that takes nothing for a while has its command stopped.
 */
class LaunchOutputTest {
  private static final int CHUNK = 1000;

  @Test
  void aFastWriterIsHeldBackNotCutOffWhileTheClientReads() throws Exception {
    LaunchApi.Output out = new LaunchApi.Output(5 * CHUNK, Duration.ofSeconds(30));
    AtomicLong most = new AtomicLong();
    CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
      for (int i = 0; i < 200; i++) {
        out.onEvent(new SandboxEvent.Stdout(String.format("%0" + CHUNK + "d", i)));
        most.accumulateAndGet(out.pending.get(), Math::max);
      }
      out.onEvent(new SandboxEvent.Exit(0));
    });
    List<String> got = new ArrayList<>();
    while (true) {
      SandboxEvent e = out.events.poll(10, TimeUnit.SECONDS);
      assertThat(e).as("an event within 10 s").isNotNull();
      if (e instanceof SandboxEvent.Exit) {
        break;
      }
      String data = ((SandboxEvent.Stdout) e).data();
      got.add(data);
      out.taken(data.length());
    }
    writer.get(10, TimeUnit.SECONDS);
    assertThat(out.overflowed).isFalse();
    assertThat(got).hasSize(200);
    for (int i = 0; i < 200; i++) {
      assertThat(Integer.parseInt(got.get(i))).isEqualTo(i);
    }
    assertThat(most.get()).isLessThanOrEqualTo(5 * CHUNK);
  }

  /** That the writer waits for room first is what the next test shows, with no clock read. */
  @Test
  void aClientThatTakesNothingHasTheOutputDroppedAfterTheWait() throws Exception {
    LaunchApi.Output out = new LaunchApi.Output(5 * CHUNK, Duration.ofMillis(300));
    for (int i = 0; i < 20; i++) {
      out.onEvent(new SandboxEvent.Stdout("x".repeat(CHUNK)));
    }
    assertThat(out.overflowed).isTrue();
    assertThat(out.events).hasSize(5);
    assertThat(out.pending.get()).isEqualTo(5L * CHUNK);
    // what is not output still gets through: the stream reports the kill and the exit
    out.onEvent(new SandboxEvent.Killed("slow"));
    assertThat(out.events).hasSize(6);
  }

  @Test
  void theStreamsEndReleasesAWaitingWriterAtOnce() throws Exception {
    LaunchApi.Output out = new LaunchApi.Output(CHUNK, Duration.ofMinutes(5));
    out.onEvent(new SandboxEvent.Stdout("x".repeat(CHUNK)));
    CompletableFuture<Void> blocked = CompletableFuture.runAsync(
        () -> out.onEvent(new SandboxEvent.Stdout("y".repeat(CHUNK))));
    Wait.until(Duration.ofSeconds(10), "the writer waits for room",
        () -> Thread.getAllStackTraces().keySet().stream().anyMatch(t ->
            t.getState() == Thread.State.TIMED_WAITING
                && java.util.Arrays.stream(t.getStackTrace()).anyMatch(
                    f -> f.getMethodName().equals("awaitRoom"))));
    assertThat(blocked).isNotDone();
    out.close();
    blocked.get(10, TimeUnit.SECONDS);
    assertThat(out.events).hasSize(1);
  }
}
