package dev.pushgate.sandbox;

import dev.pushgate.testkit.Wait;
import java.io.IOException;
import java.net.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Finding (attack4, medium): the appliance's shared loopback proxy (runs used by hand) keeps the
 * boundary tunnel of a CONNECT to an API name whose client reset its connection right after
 * sending it, also once the boundary has closed its end (the run proxy's hour-long backstop, not
 * Jetty's 30 s, ends it). A run's agent with its own login leaks one appliance descriptor per
 * CONNECT + RST, as fast as it likes; the launch's loopback proxy (backend none) does the same.
 */
class SharedProxyResetClientTest {
  @Test
  void aTunnelWhoseClientResetAfterItsConnectIsClosed() throws Exception {
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
      accepter.setDaemon(true);
      accepter.start();
      ApiInterception run = new ApiInterception(List.of("api.github.com"),
          new InetSocketAddress(lo, boundary.getLocalPort()), "run-handle");
      String login = Base64.getEncoder().encodeToString("run-1:secret".getBytes(StandardCharsets.UTF_8));
      try (EgressProxy shared = EgressProxy.startShared(HostResolver.mapping(Map.of(), HostResolver.SYSTEM),
          (user, password) -> "run-1".equals(user) && "secret".equals(password) ? run : null)) {
        long before = descriptors();
        for (int i = 0; i < 200; i++) {
          Socket s = new Socket(lo, shared.port());
          s.getOutputStream().write(("CONNECT api.github.com:443 HTTP/1.1\r\nHost: api.github.com:443\r\n"
              + "Proxy-Authorization: Basic " + login + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
          s.setSoLinger(true, 0);
          s.close();
        }
        Wait.until(Duration.ofSeconds(60), "the boundary accepted 200", () -> accepted.get() == 200);
        Wait.until(Duration.ofSeconds(30), "the proxy's descriptors back (before: " + before + ")",
            () -> descriptors() < before + 20);
      }
    }
  }

  private static long descriptors() throws IOException {
    try (var fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.count();
    }
  }
}
