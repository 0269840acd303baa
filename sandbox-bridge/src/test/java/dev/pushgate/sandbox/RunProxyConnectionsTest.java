package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.pushgate.testkit.Wait;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sandboxed launch's own proxy, on its Unix socket: for a launch over the control API it runs
 * in the appliance's process, so a run's connections through it take the appliance's
 * descriptors as those through the shared proxy do (the shared proxy's bound,
 * {@code LoopbackProxyDeadlineTest}, is the same door's other spelling).
 */
class RunProxyConnectionsTest {
  @TempDir Path tmp;
  private HttpServer origin;
  private EgressProxy proxy;
  private byte[] get;
  private final List<SocketChannel> held = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    InetAddress lo = InetAddress.getLoopbackAddress();
    origin = HelloOrigin.start();
    // allowed.test is reached on this host's loopback: only an egressAllowlist entry may do that.
    proxy = EgressProxy.start(tmp.resolve("proxy.sock"),
        EgressPolicy.resolve(true, List.of("allowed.test")),
        HostResolver.mapping(Map.of("allowed.test", lo), HostResolver.SYSTEM), v -> { });
    String target = "allowed.test:" + origin.getAddress().getPort();
    get = ("GET http://" + target + "/ HTTP/1.1\r\nHost: " + target + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  @AfterEach
  void stop() throws IOException {
    for (SocketChannel c : held) {
      c.close();
    }
    proxy.close();
    origin.stop(0);
  }

  /** The 257th connection carrying requests is refused with why; a kept one carries more. */
  @Test
  void aRunsOwnProxyHoldsAtMostItsShareOfConnections() throws Exception {
    for (int i = 0; i <= RunConnections.MAX_PER_RUN; i++) {
      SocketChannel c = connect();
      String answer = exchange(c);
      if (i < RunConnections.MAX_PER_RUN) {
        assertThat(answer).as("connection " + i).startsWith("HTTP/1.1 200").endsWith("hello\n");
      } else {
        assertThat(answer).startsWith("HTTP/1.1 429")
            .contains("this run holds 256 connections through the proxy already");
      }
    }
    assertThat(exchange(held.get(0))).startsWith("HTTP/1.1 200");
  }

  /**
   * Connections that never send a request are not counted by one, and are bounded where the
   * proxy accepts: past the bound the next waits unaccepted (in the kernel, holding none of the
   * proxy's descriptors) until one closes.
   */
  @Test
  void connectionsThatSendNothingAreBoundedAtAccept() throws Exception {
    int bound = RunConnections.MAX_PER_RUN + 64;
    for (int i = 0; i < bound; i++) {
      connect();
    }
    SocketChannel over = connect();
    over.write(java.nio.ByteBuffer.wrap(get));
    over.configureBlocking(false);
    Wait.until(Duration.ofSeconds(20), bound + " connections accepted",
        () -> proxy.acceptedConnections() == bound);

    held.get(0).close();
    java.nio.ByteBuffer first = java.nio.ByteBuffer.allocate(1);
    Wait.until(Duration.ofSeconds(20), "the waiting connection to be answered", () -> {
      assertThat(proxy.acceptedConnections()).isLessThanOrEqualTo(bound);
      return over.read(first) != 0;
    });
    assertThat(first.get(0)).isEqualTo((byte) 'H');
  }

  private SocketChannel connect() throws IOException {
    SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
    c.connect(UnixDomainSocketAddress.of(proxy.socket()));
    held.add(c);
    return c;
  }

  /** Sends the GET on {@code c} and reads its answer whole. */
  private String exchange(SocketChannel c) throws IOException {
    OutputStream out = Channels.newOutputStream(c);
    out.write(get);
    out.flush();
    return HelloOrigin.answer(Channels.newInputStream(c));
  }
}
