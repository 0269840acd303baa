package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
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

  @Test
  void aStalledReadFailsAfterTheTimeoutAndLeavesNoInterruptBehind() throws Exception {
    PipedOutputStream client = new PipedOutputStream();
    InputStream in = timeout.watch(new PipedInputStream(client));
    client.write(new byte[] {1, 2});

    CompletableFuture<String> reader = CompletableFuture.supplyAsync(() -> {
      try {
        byte[] b = new byte[2];
        assertThat(in.readNBytes(b, 0, 2)).isEqualTo(2);
        long start = System.nanoTime();
        try {
          in.read();
          return "read past a stall";
        } catch (InterruptedIOException e) {
          long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
          return e.getMessage() + "; after >= 300 ms: " + (ms >= 290)
              + "; interrupted: " + Thread.currentThread().isInterrupted();
        }
      } catch (Exception e) {
        return e.toString();
      }
    }, readers);

    assertThat(reader.get(10, TimeUnit.SECONDS)).isEqualTo(
        "the client sent nothing for 300 ms; after >= 300 ms: true; interrupted: false");
    client.write(3);
    assertThatThrownBy(in::read).isInstanceOf(InterruptedIOException.class);
  }

  @Test
  void theBoundIsPerReadSoASlowButSteadyClientIsServed() throws Exception {
    PipedOutputStream client = new PipedOutputStream();
    InputStream in = timeout.watch(new PipedInputStream(client));
    CompletableFuture<Integer> reader = CompletableFuture.supplyAsync(() -> {
      try {
        return in.readAllBytes().length;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, readers);

    long start = System.nanoTime();
    for (int i = 0; i < 10; i++) {
      client.write(i);
      client.flush();
      Thread.sleep(100);
    }
    client.close();

    assertThat(reader.get(10, TimeUnit.SECONDS)).isEqualTo(10);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(900));
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
