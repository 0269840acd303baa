package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.testkit.Wait;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Each read of a client's body waits at most the timeout; the reading thread is left clean. */
class ClientReadTimeoutTest {
  private final GatewayThreads threads = new GatewayThreads();
  private final ClientReadTimeout timeout =
      new ClientReadTimeout(Duration.ofMillis(300), threads.ticker());
  private final ExecutorService readers = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    timeout.close();
    threads.close();
    readers.shutdownNow();
  }

  /**
   * On a time moved by hand and ticks run by hand: a read that has waited exactly the timeout
   * still gets its byte; the next one, past the timeout, fails, whatever the machine's load.
   */
  @Test
  void aStalledReadFailsJustPastTheTimeoutAndLeavesNoInterruptBehind() throws Exception {
    try (ManualTicker ticker = new ManualTicker();
        ClientReadTimeout manual = new ClientReadTimeout(Duration.ofMillis(300), ticker,
            ticker::nanoTime)) {
      PipedOutputStream client = new PipedOutputStream();
      InputStream in = manual.watch(new PipedInputStream(client));
      AtomicReference<Thread> readerThread = new AtomicReference<>();
      CompletableFuture<String> reader = CompletableFuture.supplyAsync(() -> {
        readerThread.set(Thread.currentThread());
        try {
          int first = in.read();
          try {
            in.read();
            return "read past a stall";
          } catch (InterruptedIOException e) {
            return "read " + first + "; then " + e.getMessage() + "; interrupted: "
                + Thread.currentThread().isInterrupted();
          }
        } catch (Exception e) {
          return e.toString();
        }
      }, readers);

      awaitWaiting(readerThread, in);
      ticker.advance(Duration.ofMillis(300));
      ticker.tick();
      client.write(7);
      client.flush();
      awaitWaiting(readerThread, in);
      ticker.advance(Duration.ofMillis(301));
      ticker.tick();

      assertThat(reader.get(10, TimeUnit.SECONDS)).isEqualTo(
          "read 7; then the client sent nothing for 300 ms; interrupted: false");
      client.write(3);
      assertThatThrownBy(in::read).isInstanceOf(InterruptedIOException.class);
    }
  }

  /** Ten bytes 200 ms apart on a time moved by hand: 2 s in all, each read under the bound. */
  @Test
  void theBoundIsPerReadSoASlowButSteadyClientIsServed() throws Exception {
    try (ManualTicker ticker = new ManualTicker();
        ClientReadTimeout manual = new ClientReadTimeout(Duration.ofMillis(300), ticker,
            ticker::nanoTime)) {
      PipedOutputStream client = new PipedOutputStream();
      InputStream in = manual.watch(new PipedInputStream(client));
      AtomicReference<Thread> readerThread = new AtomicReference<>();
      CompletableFuture<Integer> reader = CompletableFuture.supplyAsync(() -> {
        readerThread.set(Thread.currentThread());
        try {
          return in.readAllBytes().length;
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, readers);

      for (int i = 0; i < 10; i++) {
        awaitWaiting(readerThread, in);
        ticker.advance(Duration.ofMillis(200));
        ticker.tick();
        client.write(i);
        client.flush();
      }
      client.close();

      assertThat(reader.get(10, TimeUnit.SECONDS)).isEqualTo(10);
      assertThat(ticker.elapsed()).isEqualTo(Duration.ofSeconds(2));
    }
  }

  /**
   * Waits for the reader to have taken everything sent and to block in its next read: from then
   * on only a tick may end that read.
   */
  private static void awaitWaiting(AtomicReference<Thread> reader, InputStream in)
      throws Exception {
    Wait.until(Duration.ofSeconds(10), "the reader to wait for the client", () -> {
      Thread t = reader.get();
      return t != null && in.available() == 0 && (t.getState() == Thread.State.TIMED_WAITING
          || t.getState() == Thread.State.WAITING);
    });
  }

  /**
   * A ticker whose periodic task runs only when the test calls {@link #tick}, and a time that
   * moves only when the test {@link #advance}s it.
   */
  private static final class ManualTicker extends ScheduledThreadPoolExecutor
      implements AutoCloseable {
    private final AtomicLong nanos = new AtomicLong();
    private volatile Runnable task;

    ManualTicker() {
      super(1);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay,
        long delay, TimeUnit unit) {
      task = command;
      return schedule(() -> { }, 1, TimeUnit.DAYS);
    }

    long nanoTime() {
      return nanos.get();
    }

    void advance(Duration d) {
      nanos.addAndGet(d.toNanos());
    }

    Duration elapsed() {
      return Duration.ofNanos(nanos.get());
    }

    void tick() {
      task.run();
    }

    @Override
    public void close() {
      shutdownNow();
    }
  }

  @Test
  void manyStalledClientsAreAllEnded() throws Exception {
    CompletableFuture<?>[] reads = new CompletableFuture<?>[8];
    PipedOutputStream[] clients = new PipedOutputStream[reads.length];
    for (int i = 0; i < reads.length; i++) {
      clients[i] = new PipedOutputStream();
      InputStream in = timeout.watch(new PipedInputStream(clients[i]));
      reads[i] = CompletableFuture.runAsync(() -> {
        try {
          in.read();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, readers);
    }
    for (CompletableFuture<?> r : reads) {
      assertThatThrownBy(() -> r.get(10, TimeUnit.SECONDS))
          .hasRootCauseInstanceOf(InterruptedIOException.class);
    }
  }
}
