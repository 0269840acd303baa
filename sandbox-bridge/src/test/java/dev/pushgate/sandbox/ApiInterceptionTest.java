package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The run proxy's CONNECT to a GitHub API name reaches the boundary, not the named host. */
class ApiInterceptionTest {
  @Test
  void onlyTheApiNamesOnPort443AreIntercepted() {
    ApiInterception i = new ApiInterception(List.of("api.github.com", "Uploads.GitHub.com"),
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 1));
    assertThat(i.target("API.github.com", 443)).isNotNull();
    assertThat(i.target("api.github.com.", 443)).isNotNull();
    assertThat(i.target("uploads.github.com", 443)).isNotNull();
    assertThat(i.target("api.github.com", 80)).isNull();
    assertThat(i.target("github.com", 443)).isNull();
    assertThat(i.target("evil-api.github.com", 443)).isNull();
  }

  @Test
  void theLoopbackProxyTunnelsApiNamesToTheBoundaryAndOthersToTheirHost() throws Exception {
    try (ServerSocket boundary = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
        ServerSocket elsewhere = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
      HostResolver resolver = HostResolver.mapping(
          Map.of("other.test", InetAddress.getLoopbackAddress()), HostResolver.SYSTEM);
      ApiInterception interception = new ApiInterception(List.of("api.github.com"),
          new InetSocketAddress(InetAddress.getLoopbackAddress(), boundary.getLocalPort()));
      try (EgressProxy proxy = EgressProxy.startLoopback(resolver, interception)) {
        assertThat(proxy.port()).isPositive();
        assertThat(tunnel(proxy.port(), "api.github.com:443", boundary)).isEqualTo("ping");
        assertThat(tunnel(proxy.port(), "other.test:" + elsewhere.getLocalPort(), elsewhere))
            .isEqualTo("ping");
      }
    }
  }

  /** CONNECTs through the proxy, sends "ping", and returns what {@code expected} received. */
  private static String tunnel(int proxyPort, String authority, ServerSocket expected)
      throws Exception {
    CompletableFuture<String> got = CompletableFuture.supplyAsync(() -> {
      try (Socket s = expected.accept()) {
        return new String(s.getInputStream().readNBytes(4), StandardCharsets.US_ASCII);
      } catch (Exception e) {
        return "failed: " + e;
      }
    });
    try (Socket c = new Socket(InetAddress.getLoopbackAddress(), proxyPort)) {
      c.setSoTimeout(10_000);
      OutputStream out = c.getOutputStream();
      out.write(("CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = c.getInputStream();
      StringBuilder head = new StringBuilder();
      while (!head.toString().endsWith("\r\n\r\n")) {
        int b = in.read();
        if (b < 0) {
          break;
        }
        head.append((char) b);
      }
      assertThat(head.toString()).startsWith("HTTP/1.1 200");
      out.write("ping".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      return got.get(10, TimeUnit.SECONDS);
    }
  }
}
