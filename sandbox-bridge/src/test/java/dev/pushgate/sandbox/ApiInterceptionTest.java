package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
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

  /**
   * Finding (attack35l): the loopback proxy of a run launched without an OS sandbox takes no
   * login, so any process on the host (another run's agent) tunnels through it to the boundary
   * under this run's handle. Without the run's sentinel its calls are 401, but its connections
   * count against this run's 64: holding them (a request header trickled inside the idle
   * timeout) closes this run's own API calls before TLS for as long as it likes. A request
   * without the run's login must be answered 407, as the shared proxy answers it.
   */
  @Test
  void aLaunchsLoopbackProxyLendsItsRunsHandleToNoOneWithoutItsLogin() throws Exception {
    try (ServerSocket boundary = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
      ApiInterception interception = new ApiInterception(List.of("api.github.com"),
          new InetSocketAddress(InetAddress.getLoopbackAddress(), boundary.getLocalPort()),
          "run-handle");
      try (EgressProxy proxy = EgressProxy.startLoopback(HostResolver.SYSTEM, interception);
          Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
        s.setSoTimeout(10_000);
        s.getOutputStream().write("CONNECT api.github.com:443 HTTP/1.1\r\nHost: api.github.com:443\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        String status = new BufferedReader(new InputStreamReader(s.getInputStream(),
            StandardCharsets.US_ASCII)).readLine();
        assertThat(status).startsWith("HTTP/1.1 407");
      }
    }
  }

  /**
   * Finding (attack4, minor): a CONNECT whose target could not be reached was a bare 500 ("the
   * appliance's log says why", which it did not), read as the proxy's own failure. It is a 502
   * saying which target and why, in fixed words.
   */
  @Test
  void aTargetTheProxyCannotReachIsA502SayingWhy() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    HostResolver none = host -> List.of();
    ApiInterception interception = new ApiInterception(List.of("api.github.com"),
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 1), "run-handle");
    try (EgressProxy proxy = EgressProxy.startLoopback(none, interception)) {
      assertThat(ProxyRequestFormsTest.send(proxy, "CONNECT nowhere.test:443 HTTP/1.1\r\n"
          + "Host: nowhere.test:443\r\n\r\n")).startsWith("HTTP/1.1 502 ")
          .contains("pushgate: could not connect to nowhere.test:443: the host name does not resolve");
    }
    try (EgressProxy proxy = EgressProxy.startLoopback(HostResolver.SYSTEM, interception)) {
      assertThat(ProxyRequestFormsTest.send(proxy, "CONNECT 127.0.0.1:" + closed
          + " HTTP/1.1\r\nHost: 127.0.0.1:" + closed + "\r\n\r\n")).startsWith("HTTP/1.1 502 ")
          .contains("pushgate: could not connect to 127.0.0.1:" + closed
              + ": the connection was refused");
    }
  }

  private static String tunnel(EgressProxy proxy, String authority, ServerSocket expected)
      throws Exception {
    return ProxyRequestFormsTest.tunnel(proxy,
        "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n", expected);
  }
}
