package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import dev.pushgate.testkit.Wait;
import java.io.IOException;
import java.net.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Finding (attack5, minor): "a tunnel's far end closes with its client" holds only before the
 * tunnel is made. A client that resets an established tunnel (after the 200, mid-stream) has its
 * far end only half-closed: the proxy keeps both descriptors (client side and far end) until the
 * far end closes or the idle timeout (an hour for the boundary's): two per such tunnel in the
 * proxy's process, for a far end that waits after EOF as this one does.
 */
class ResetTunnelFarEndTest {
  private static final InetAddress LO = InetAddress.getLoopbackAddress();
  private static final int CLIENTS = 50;
  @Test
  void aClientThatResetsAnEstablishedTunnelLeavesNothingOpenInTheProxy() throws Exception {
    List<Socket> held = new CopyOnWriteArrayList<>();
    try (ServerSocket farEnd = new ServerSocket(0, 100, LO); EgressProxy proxy =
        EgressProxy.startLoopback(HostResolver.SYSTEM, new ApiInterception(List.of(
            "api.github.com"), new InetSocketAddress(LO, farEnd.getLocalPort()), "run-handle"))) {
      Thread t = new Thread(() -> { // keeps its sockets, as a server waiting to answer
        try {
          while (true) { held.add(farEnd.accept()); }
        } catch (IOException closed) { /* done */ }
      });
      t.setDaemon(true); t.start();
      long before = descriptors();
      for (int n = 0; n < CLIENTS; n++) {
        Socket s = new Socket(LO, proxy.port());
        s.setSoTimeout(20_000);
        s.getOutputStream().write(ProxyRequestFormsTest.withLogin(proxy, "CONNECT api.github.com"
            + ":443 HTTP/1.1\r\nHost: api.github.com:443\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        assertThat(new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII))
            .isEqualTo("HTTP/1.1 200");
        s.getOutputStream().write("\u0016\u0003\u0001 a ClientHello".getBytes(StandardCharsets.ISO_8859_1));
        s.setSoLinger(true, 0); // a reset: this client can take no answer
        s.close();
      }
      Wait.until(Duration.ofSeconds(60), "the far end accepted all", () -> held.size() == CLIENTS);
      // The far end's own CLIENTS sockets are this process's too; the proxy should hold none.
      Wait.until(Duration.ofSeconds(60), "the proxy's descriptors back",
          () -> descriptors() < before + CLIENTS + 20);
    } finally {
      for (Socket s : held) { s.close(); }
    }
  }

  private static long descriptors() throws IOException {
    try (var fds = Files.list(Path.of("/proc/self/fd"))) { return fds.count(); }
  }
}
