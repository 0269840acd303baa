package dev.pushgate.sandbox;

import dev.pushgate.testkit.Wait;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Finding (attack4, medium): a client that leaves right behind its CONNECT to an API name (a
 * close, a half-close, a reset) never gets its tunnel's client side, and the proxy kept the
 * tunnel's far end, to the boundary, for its idle timeout of an hour: a descriptor per CONNECT in
 * the launcher's process (a sandboxed run's proxy) or the appliance's (the shared proxy of runs
 * used by hand). A run's agent looping on it ran the process out of descriptors.
 */
class GoneClientTunnelTest {
  private static final InetAddress LO = InetAddress.getLoopbackAddress();
  private static final String CONNECT =
      "CONNECT api.github.com:443 HTTP/1.1\r\nHost: api.github.com:443\r\n";
  private static final int CLIENTS = 200;

  @TempDir Path tmp;

  @Test
  void aSandboxedRunsProxyClosesTheTunnelOfAClientThatClosedBehindItsConnect() throws Exception {
    try (Boundary boundary = new Boundary()) {
      try (EgressProxy proxy = EgressProxy.start(tmp.resolve("p.sock"),
          EgressPolicy.resolve(true, List.of()), HostResolver.SYSTEM, v -> { }, boundary.run())) {
        long before = descriptors();
        for (int i = 0; i < CLIENTS; i++) {
          try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(proxy.socket()));
            c.write(ByteBuffer.wrap((CONNECT + "\r\n").getBytes(StandardCharsets.US_ASCII)));
          }
        }
        boundary.awaitAcceptedAndDescriptorsBackTo(before);
      }
    }
  }

  @Test
  void theSharedProxyClosesTheTunnelOfAClientThatResetBehindItsConnect() throws Exception {
    String login = Base64.getEncoder().encodeToString(
        "run-1:secret".getBytes(StandardCharsets.UTF_8));
    QueuedThreadPool threads = new QueuedThreadPool(32, 2);
    threads.start();
    try (Boundary boundary = new Boundary();
        EgressProxy shared = EgressProxy.startShared(HostResolver.mapping(Map.of(),
            HostResolver.SYSTEM), (user, password) -> "run-1".equals(user)
                && "secret".equals(password) ? boundary.run() : null, threads)) {
      long before = descriptors();
      for (int i = 0; i < CLIENTS; i++) {
        Socket s = new Socket(LO, shared.port());
        s.getOutputStream().write((CONNECT + "Proxy-Authorization: Basic " + login + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
        s.setSoLinger(true, 0); // a reset, not an orderly close
        s.close();
      }
      boundary.awaitAcceptedAndDescriptorsBackTo(before);
    } finally {
      threads.stop();
    }
  }

  /** A boundary that closes every connection at once, as it does a run's over its 64. */
  private static final class Boundary implements AutoCloseable {
    private final ServerSocket socket = new ServerSocket(0, 1000, LO);
    private final AtomicInteger accepted = new AtomicInteger();

    Boundary() throws IOException {
      Thread accepter = new Thread(() -> {
        while (true) {
          try (Socket s = socket.accept()) {
            accepted.incrementAndGet();
          } catch (IOException e) {
            return; // closed
          }
        }
      });
      accepter.setDaemon(true);
      accepter.start();
    }

    ApiInterception run() {
      return new ApiInterception(List.of("api.github.com"),
          new InetSocketAddress(LO, socket.getLocalPort()), "run-handle");
    }

    void awaitAcceptedAndDescriptorsBackTo(long before) throws Exception {
      Wait.until(Duration.ofSeconds(60), "the boundary accepted " + CLIENTS,
          () -> accepted.get() == CLIENTS);
      // Before the fix they stayed for the tunnels' idle timeout, an hour.
      Wait.until(Duration.ofSeconds(30), "the proxy's descriptors back to " + before,
          () -> descriptors() < before + 20);
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  private static long descriptors() throws IOException {
    try (var fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.count();
    }
  }
}
