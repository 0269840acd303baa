package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The run proxy's CONNECT to a GitHub API name reaches the boundary, not the named host. */
class ApiInterceptionTest {
  @Test
  void onlyTheApiNamesOnPort443AreIntercepted() {
    ApiInterception i = new ApiInterception(List.of("api.github.com", "Uploads.GitHub.com"),
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 1), "run-handle");
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
          new InetSocketAddress(InetAddress.getLoopbackAddress(), boundary.getLocalPort()), "run-handle");
      try (EgressProxy proxy = EgressProxy.startLoopback(resolver, interception)) {
        assertThat(proxy.port()).isPositive();
        // The boundary is every run's: the tunnel starts with the PROXY header naming the run.
        assertThat(ProxyRequestFormsTest.tunnelToBoundary(proxy,
            "CONNECT api.github.com:443 HTTP/1.1\r\nHost: api.github.com:443\r\n\r\n",
            boundary)).isEqualTo("ping");
        assertThat(tunnel(proxy, "other.test:" + elsewhere.getLocalPort(), elsewhere))
            .isEqualTo("ping");
      }
    }
  }

  private static String tunnel(EgressProxy proxy, String authority, ServerSocket expected)
      throws Exception {
    return ProxyRequestFormsTest.tunnel(proxy,
        "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n", expected);
  }
}
