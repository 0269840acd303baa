package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.RawHttp;
import dev.pushgate.types.BoundaryHandle;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The request forms proxy clients send, against both of a run's proxies (the sandbox's gated one
 * on a Unix socket and the loopback one of a run without an OS sandbox): RFC 9110 authority-form
 * CONNECT with or without a {@code Host}, and a {@code Host} with or without the port, as undici
 * (Octokit's proxy recipe) sends it. The CONNECT target decides, never the header.
 */
class ProxyRequestFormsTest {
  @TempDir Path tmp;
  private ServerSocket boundary;
  private ServerSocket allowed;
  private EgressProxy gated;
  private EgressProxy loopback;
  private final List<SandboxViolation> violations = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    InetAddress lo = InetAddress.getLoopbackAddress();
    boundary = new ServerSocket(0, 5, lo);
    allowed = new ServerSocket(0, 5, lo);
    HostResolver resolver = HostResolver.mapping(
        Map.of("allowed.test", lo, "denied.test", lo), HostResolver.SYSTEM);
    ApiInterception interception = new ApiInterception(List.of("api.github.com"),
        new InetSocketAddress(lo, boundary.getLocalPort()), "run-handle");
    // allowed.test is reached on this host's loopback: only an egressAllowlist entry may do that.
    gated = EgressProxy.start(tmp.resolve("proxy.sock"),
        EgressPolicy.resolve(true, List.of("allowed.test")), resolver, violations::add,
        interception);
    loopback = EgressProxy.startLoopback(resolver, interception);
  }

  @AfterEach
  void stop() throws IOException {
    gated.close();
    loopback.close();
    boundary.close();
    allowed.close();
  }

  @Test
  void undicisConnectWithAHostWithoutThePortReachesTheBoundaryThroughBothProxies()
      throws Exception {
    String undici = "CONNECT api.github.com:443 HTTP/1.1\r\nHost: api.github.com\r\n"
        + "Proxy-Connection: keep-alive\r\n\r\n";
    assertThat(tunnelToBoundary(gated, undici, boundary)).isEqualTo("ping");
    assertThat(tunnelToBoundary(loopback, undici, boundary)).isEqualTo("ping");
  }

  @Test
  void aConnectWithoutAHostHeaderOrWithThePortIsTunnelled() throws Exception {
    String target = "allowed.test:" + allowed.getLocalPort();
    for (EgressProxy proxy : List.of(gated, loopback)) {
      assertThat(tunnel(proxy, "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n",
          allowed)).isEqualTo("ping");
      assertThat(tunnel(proxy, "CONNECT " + target + " HTTP/1.0\r\n\r\n", allowed))
          .isEqualTo("ping");
    }
    assertThat(violations).isEmpty();
  }

  @Test
  void aHostHeaderNamingAnAllowedHostDoesNotOpenATargetTheAllowlistRefuses() throws Exception {
    String head = send(gated, "CONNECT denied.test:" + allowed.getLocalPort() + " HTTP/1.1\r\n"
        + "Host: allowed.test:" + allowed.getLocalPort() + "\r\n\r\n");
    assertThat(head).startsWith("HTTP/1.1 403");
    assertThat(violations).singleElement()
        .satisfies(v -> assertThat(v.target()).isEqualTo("denied.test"));
  }

  @Test
  void aHostHeaderNamingTheApiDoesNotTurnAnotherTargetIntoTheBoundary() throws Exception {
    String target = "allowed.test:" + allowed.getLocalPort();
    String request = "CONNECT " + target + " HTTP/1.1\r\nHost: api.github.com:443\r\n\r\n";
    assertThat(tunnel(gated, request, allowed)).isEqualTo("ping");
    assertThat(tunnel(loopback, request, allowed)).isEqualTo("ping");
  }

  @Test
  void aConnectTargetThatIsNotHostAndPortIsRefusedSayingWhatToSend() throws Exception {
    for (EgressProxy proxy : List.of(gated, loopback)) {
      for (String target : List.of("api.github.com", "api.github.com:", "api.github.com:0",
          "api.github.com:99999")) {
        String answer = send(proxy, "CONNECT " + target + " HTTP/1.1\r\nHost: api.github.com\r\n"
            + "\r\n");
        assertThat(answer).as(target).startsWith("HTTP/1.1 400")
            .contains("CONNECT api.github.com:443");
      }
    }
  }

  @Test
  void aForwardedRequestGoesToItsAbsoluteUriAndTellsTheServerThatHostNotTheClientsHeader()
      throws Exception {
    String target = "allowed.test:" + allowed.getLocalPort();
    CompletableFuture<String> seen = CompletableFuture.supplyAsync(() -> {
      try (Socket s = allowed.accept()) {
        String request = RawHttp.head(s.getInputStream());
        s.getOutputStream().write("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII));
        return request;
      } catch (Exception e) {
        return "failed: " + e;
      }
    });
    String answer = send(gated, "GET http://" + target + "/x HTTP/1.1\r\nHost: denied.test\r\n"
        + "Connection: close\r\n\r\n");
    assertThat(answer).startsWith("HTTP/1.1 204");
    assertThat(seen.get(10, TimeUnit.SECONDS)).containsIgnoringCase("\r\nHost: " + target + "\r\n")
        .doesNotContain("denied.test");
    assertThat(violations).isEmpty();
  }

  @Test
  void anHttp11ConnectWithoutHostIsRefusedAsRfc9112AsksSayingWhatIsMissing() throws Exception {
    for (EgressProxy proxy : List.of(gated, loopback)) {
      String answer = send(proxy, "CONNECT allowed.test:" + allowed.getLocalPort()
          + " HTTP/1.1\r\n\r\n");
      assertThat(answer).startsWith("HTTP/1.1 400").endsWith("\r\n\r\npushgate: this proxy "
          + "cannot take the request: an HTTP/1.1 request needs a Host header "
          + "(RFC 9112 section 3.2)\n");
    }
  }

  /**
   * Sends {@code request} (a CONNECT) through the proxy, expects 200, sends "ping", and returns
   * what {@code expected} received (ApiInterceptionTest's tunnels too).
   */
  static String tunnel(EgressProxy proxy, String request, ServerSocket expected)
      throws Exception {
    return tunnel(proxy, request, expected, new byte[0]);
  }

  /**
   * A tunnel to the API boundary, whose listener is every run's: what it receives starts with the
   * PROXY header naming the run ({@code "run-handle"} in these tests), then the client's bytes.
   */
  static String tunnelToBoundary(EgressProxy proxy, String request, ServerSocket boundary)
      throws Exception {
    return tunnel(proxy, request, boundary, BoundaryHandle.proxyHeader("run-handle"));
  }

  private static String tunnel(EgressProxy proxy, String request, ServerSocket expected,
      byte[] header) throws Exception {
    CompletableFuture<String> got = CompletableFuture.supplyAsync(() -> {
      try (Socket s = expected.accept()) {
        byte[] first = s.getInputStream().readNBytes(header.length);
        if (!java.util.Arrays.equals(first, header)) {
          return "not the run's PROXY header: "
              + new String(first, StandardCharsets.ISO_8859_1);
        }
        return new String(s.getInputStream().readNBytes(4), StandardCharsets.US_ASCII);
      } catch (Exception e) {
        return "failed: " + e;
      }
    });
    try (Connection c = connect(proxy)) {
      c.out.write(withLogin(proxy, request).getBytes(StandardCharsets.US_ASCII));
      c.out.flush();
      assertThat(RawHttp.head(c.in)).startsWith("HTTP/1.1 200");
      c.out.write("ping".getBytes(StandardCharsets.US_ASCII));
      c.out.flush();
      return got.get(10, TimeUnit.SECONDS);
    }
  }

  /** Sends {@code request} and returns the whole answer, up to the proxy's close. */
  static String send(EgressProxy proxy, String request) throws Exception {
    try (Connection c = connect(proxy)) {
      c.out.write(withLogin(proxy, request).getBytes(StandardCharsets.US_ASCII));
      c.out.flush();
      return new String(c.in.readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }

  /**
   * {@code request} with a launch's loopback proxy's login after its request line, as a client
   * given the run's {@code HTTPS_PROXY} sends it; unchanged for a proxy that wants none.
   */
  static String withLogin(EgressProxy proxy, String request) {
    int line = request.indexOf("\r\n");
    if (proxy.login() == null || line < 0) {
      return request;
    }
    String login = java.util.Base64.getEncoder().encodeToString((EgressProxy.LAUNCH_USER + ":"
        + proxy.login().reveal()).getBytes(StandardCharsets.UTF_8));
    return request.substring(0, line + 2) + "Proxy-Authorization: Basic " + login + "\r\n"
        + request.substring(line + 2);
  }

  private static Connection connect(EgressProxy proxy) throws IOException {
    if (proxy.socket() == null) {
      Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
      s.setSoTimeout(10_000);
      return new Connection(s, s.getInputStream(), s.getOutputStream());
    }
    SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
    ch.connect(UnixDomainSocketAddress.of(proxy.socket()));
    return new Connection(ch, Channels.newInputStream(ch), Channels.newOutputStream(ch));
  }

  private record Connection(AutoCloseable channel, InputStream in, OutputStream out)
      implements AutoCloseable {
    @Override
    public void close() throws Exception {
      channel.close();
    }
  }
}
