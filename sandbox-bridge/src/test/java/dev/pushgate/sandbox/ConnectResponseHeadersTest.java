package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Finding (attack5, nit): the egress proxy's 200 to a CONNECT carries {@code Content-Length: 0},
 * which RFC 9110 section 9.3.6 says a server MUST NOT send in a 2xx to CONNECT (clients must
 * ignore it; a strict one may read the tunnel as a zero-length body).
 */
class ConnectResponseHeadersTest {
  @Test
  void theTwoHundredOfAConnectHasNoContentLength() throws Exception {
    InetAddress lo = InetAddress.getLoopbackAddress();
    try (ServerSocket far = new ServerSocket(0, 5, lo); EgressProxy proxy = EgressProxy.startLoopback(
        HostResolver.SYSTEM, new ApiInterception(List.of("api.github.com"),
            new InetSocketAddress(lo, far.getLocalPort()), "run-handle"));
        Socket s = new Socket(lo, proxy.port())) {
      s.setSoTimeout(20_000);
      s.getOutputStream().write(ProxyRequestFormsTest.withLogin(proxy, "CONNECT api.github.com:443"
          + " HTTP/1.1\r\nHost: api.github.com:443\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      StringBuilder head = new StringBuilder();
      while (!head.toString().endsWith("\r\n\r\n")) {
        int b = s.getInputStream().read();
        assertThat(b).as("the head so far: %s", head).isNotNegative();
        head.append((char) b);
      }
      assertThat(head.toString()).startsWith("HTTP/1.1 200").doesNotContainIgnoringCase(
          "Content-Length").doesNotContainIgnoringCase("Transfer-Encoding");
    }
  }
}
