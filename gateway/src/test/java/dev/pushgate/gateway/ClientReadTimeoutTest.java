package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.testkit.Wait;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.UncheckedIOException;
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
    try (ManualClient c = new ManualClient()) {
      CompletableFuture<String> reader = c.read(in -> {
        int first = in.read();
        try {
          in.read();
          return "read past a stall";
        } catch (InterruptedIOException e) {
          return "read " + first + "; then " + e.getMessage() + "; interrupted: "
              + Thread.currentThread().isInterrupted();
        }
      });

      c.awaitWaiting();
      c.ticker.advance(Duration.ofMillis(300));
      c.ticker.tick();
      c.client.write(7);
      c.client.flush();
      c.awaitWaiting();
      c.ticker.advance(Duration.ofMillis(301));
      c.ticker.tick();

      assertThat(reader.get(10, TimeUnit.SECONDS)).isEqualTo(
          "read 7; then the client sent nothing for 300 ms; interrupted: false");
      c.client.write(3);
      assertThatThrownBy(c.in::read).isInstanceOf(InterruptedIOException.class);
    }
  }

  /** Ten bytes 200 ms apart on a time moved by hand: 2 s in all, each read under the bound. */
  @Test
  void theBoundIsPerReadSoASlowButSteadyClientIsServed() throws Exception {
    try (ManualClient c = new ManualClient()) {
      CompletableFuture<Integer> reader = c.read(in -> in.readAllBytes().length);

      for (int i = 0; i < 10; i++) {
        c.awaitWaiting();
        c.ticker.advance(Duration.ofMillis(200));
        c.ticker.tick();
        c.client.write(i);
        c.client.flush();
      }
      c.client.close();

      assertThat(reader.get(10, TimeUnit.SECONDS)).isEqualTo(10);
      assertThat(c.ticker.elapsed()).isEqualTo(Duration.ofSeconds(2));
    }
  }

  /** What a read of the client's body does with it, on the reader thread. */
  private interface ClientRead<T> {
    T from(InputStream in) throws IOException;
  }

  /**
   * A client's body watched with the 300 ms bound on a {@link ManualTicker}, and the one thread
   * that reads it.
   */
  private final class ManualClient implements AutoCloseable {
    final ManualTicker ticker = new ManualTicker();
    final ClientReadTimeout timeout =
        new ClientReadTimeout(Duration.ofMillis(300), ticker, ticker::nanoTime);
    final PipedOutputStream client = new PipedOutputStream();
    final InputStream in;
    private final AtomicReference<Thread> reader = new AtomicReference<>();

    ManualClient() throws IOException {
      in = timeout.watch(new PipedInputStream(client));
    }

    <T> CompletableFuture<T> read(ClientRead<T> read) {
      return CompletableFuture.supplyAsync(() -> {
        reader.set(Thread.currentThread());
        try {
          return read.from(in);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }, readers);
    }

    /**
     * Waits for the reader to have taken everything sent and to block in its next read: from
     * then on only a tick may end that read.
     */
    void awaitWaiting() throws Exception {
      Wait.until(Duration.ofSeconds(10), "the reader to wait for the client", () -> {
        Thread t = reader.get();
        return t != null && in.available() == 0 && (t.getState() == Thread.State.TIMED_WAITING
            || t.getState() == Thread.State.WAITING);
      });
    }

    @Override
    public void close() {
      timeout.close();
      ticker.close();
    }
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
