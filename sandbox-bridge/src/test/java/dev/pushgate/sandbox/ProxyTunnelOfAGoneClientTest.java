package dev.pushgate.sandbox;

import dev.pushgate.testkit.Wait;
import java.io.IOException;
import java.net.*;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Finding (attack4, medium): a sandboxed run's proxy (the Unix socket) that gets a CONNECT to an
 * API name from a client that closes right after sending it opens the tunnel to the boundary and
 * keeps it after the boundary closed its end (still after 30 s; also with a half-close or TLS
 * bytes behind the CONNECT): a descriptor each in the launcher's process (exec, or the appliance
 * for /launch and terminals). A run's agent loops on it to exhaust them. df5b7201 fails it too.
 */
class ProxyTunnelOfAGoneClientTest {
  @TempDir Path tmp;
  @Test
  void aTunnelWhoseClientClosedAfterItsConnectIsClosed() throws Exception {
    InetAddress lo = InetAddress.getLoopbackAddress();
    AtomicInteger accepted = new AtomicInteger();
    try (ServerSocket boundary = new ServerSocket(0, 1000, lo)) {
      Thread accepter = new Thread(() -> {
        while (true) { // the boundary closes each connection at once (a run over its 64, say)
          try (Socket s = boundary.accept()) { accepted.incrementAndGet(); } catch (IOException e) {
            return;
          }
        }
      });
      accepter.start();
      ApiInterception run = new ApiInterception(List.of("api.github.com"),
          new InetSocketAddress(lo, boundary.getLocalPort()), "run-handle");
      try (EgressProxy proxy = EgressProxy.start(tmp.resolve("p.sock"), EgressPolicy.resolve(true,
          List.of()), HostResolver.SYSTEM, v -> { }, run)) {
        long before = descriptors();
        for (int i = 0; i < 300; i++) {
          try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(proxy.socket()));
            c.write(ByteBuffer.wrap(("CONNECT api.github.com:443 HTTP/1.1\r\n"
                + "Host: api.github.com:443\r\n\r\n").getBytes(StandardCharsets.US_ASCII)));
          }
        }
        Wait.until(Duration.ofSeconds(60), "the boundary accepted 300", () -> accepted.get() == 300);
        Wait.until(Duration.ofSeconds(30), "the proxy's descriptors back (before: " + before + ")",
            () -> descriptors() < before + 20);
      }
    }
  }

  private static long descriptors() throws IOException {
    try (var fds = Files.list(Path.of("/proc/self/fd"))) { return fds.count(); }
  }
}
