package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.types.UnnamedConnections;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The shared loopback proxy of the runs used by hand: anything on the host can connect to it, so
 * a connection that has shown no run's login is bounded (finding of attack35l: 3,000 half-sent
 * requests held, each a descriptor, for as long as a byte came inside each idle timeout).
 */
class LoopbackProxyDeadlineTest {
  private ServerSocket boundary;
  private ApiInterception run;
  private EgressProxy shared;
  private final QueuedThreadPool threads = new QueuedThreadPool(32, 2);

  @BeforeEach
  void start() throws Exception {
    threads.start();
    boundary = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
    run = new ApiInterception(List.of("api.github.com"),
        new InetSocketAddress(InetAddress.getLoopbackAddress(), boundary.getLocalPort()),
        "run-handle");
    shared = EgressProxy.startShared(HostResolver.mapping(
        java.util.Map.of("other.test", InetAddress.getLoopbackAddress()), HostResolver.SYSTEM),
        (user, password) -> "run-1".equals(user) && "secret".equals(password) ? run : null,
        threads);
  }

  @AfterEach
  void stop() throws Exception {
    shared.close();
    boundary.close();
    threads.stop();
  }

  /** A request header trickled one byte a second, well inside the idle timeout, is cut off. */
  @Test
  void aRequestTrickledWithoutALoginIsClosedByTheDeadline() throws Exception {
    byte[] request = ("CONNECT api.github.com:443 HTTP/1.1\r\nHost: api.github.com:443\r\n"
        + "X-Padding: " + "a".repeat(40) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    try (Socket s = connect()) {
      s.setSoTimeout(1_000);
      boolean closed = false;
      for (int i = 0; i < request.length - 1 && System.nanoTime() < deadline && !closed; i++) {
        try {
          s.getOutputStream().write(request[i]);
          s.getOutputStream().flush();
          closed = s.getInputStream().read() == -1;
        } catch (SocketTimeoutException stillOpen) {
          // the proxy still holds the connection
        } catch (IOException reset) {
          closed = true;
        }
      }
      assertThat(closed).as("a request trickled for 20 s without a login is still read").isTrue();
    }
  }

  /**
   * One connection over the bound has the oldest closed, before its deadline could close it, and
   * is served: a run's connection, which shows its login at once, gets through a bound held full
   * by idle ones (attack of 2026-12-07); a connection that shows a run's login is no longer
   * counted.
   */
  @Test
  void connectionsWithoutALoginAreBoundedAndALoginLeavesTheCount() throws Exception {
    List<Socket> held = new ArrayList<>();
    String login = java.util.Base64.getEncoder()
        .encodeToString("run-1:secret".getBytes(StandardCharsets.UTF_8));
    try (ServerSocket elsewhere = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
      for (int i = 0; i < UnnamedConnections.MAX; i++) {
        held.add(connect());
      }
      waitFor(() -> shared.unnamedConnections() == UnnamedConnections.MAX,
          UnnamedConnections.DEADLINE.dividedBy(2));
      try (Socket run = connect()) {
        run.setSoTimeout((int) UnnamedConnections.DEADLINE.toMillis() / 2);
        String target = "other.test:" + elsewhere.getLocalPort();
        run.getOutputStream().write(("CONNECT " + target + " HTTP/1.1\r\nHost: " + target
            + "\r\nProxy-Authorization: Basic " + login + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
        try (Socket far = elsewhere.accept()) {
          assertThat(new String(run.getInputStream().readNBytes(12), StandardCharsets.US_ASCII))
              .isEqualTo("HTTP/1.1 200");
        }
        // the oldest, closed for it: oldest in the order the proxy's selectors took them in
        dev.pushgate.testkit.Wait.until(UnnamedConnections.DEADLINE.dividedBy(2),
            "an unnamed connection closed for the run's",
            () -> dev.pushgate.testkit.ClosedByPeer.count(held) >= 1);
      }
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
    waitFor(() -> shared.unnamedConnections() == 0, Duration.ofSeconds(20));
    try (Socket s = connect()) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write(("CONNECT api.github.com:443 HTTP/1.1\r\nHost: api.github.com:443"
          + "\r\nProxy-Authorization: Basic " + login + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      try (Socket tunnel = boundary.accept()) {
        assertThat(new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII))
            .isEqualTo("HTTP/1.1 200");
        assertThat(shared.unnamedConnections()).isZero();
      }
    }
  }

  /**
   * Finding (attack35l): a tunnel to a host other than the API names is judged once, at its
   * CONNECT; it must not outlive the run whose login opened it.
   */
  @Test
  void aRunsTunnelToAnotherHostEndsWithTheRun() throws Exception {
    try (ServerSocket elsewhere = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
        Socket s = connect()) {
      s.setSoTimeout(10_000);
      String login = java.util.Base64.getEncoder()
          .encodeToString("run-1:secret".getBytes(StandardCharsets.UTF_8));
      String target = "other.test:" + elsewhere.getLocalPort();
      s.getOutputStream().write(("CONNECT " + target + " HTTP/1.1\r\nHost: " + target
          + "\r\nProxy-Authorization: Basic " + login + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      try (Socket far = elsewhere.accept()) {
        far.setSoTimeout(10_000);
        assertThat(new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII))
            .isEqualTo("HTTP/1.1 200");
        waitFor(() -> shared.connectionEndsOf(run) == 2, Duration.ofSeconds(10));
        shared.closeTunnelsOf(run);
        assertThat(far.getInputStream().read()).isEqualTo(-1);
      }
    }
  }

  /**
   * Finding (attack of 2026-12-07): one run's login opened 10,600 tunnels to a host of its own
   * and held every descriptor of the appliance. A run holds at most {@link
   * RunConnections#MAX_PER_RUN}; the next CONNECT is refused with why, and one more is admitted
   * once one closes.
   */
  @Test
  void aRunHoldsAtMostItsShareOfTunnels() throws Exception {
    String login = java.util.Base64.getEncoder()
        .encodeToString("run-1:secret".getBytes(StandardCharsets.UTF_8));
    List<Socket> held = new ArrayList<>();
    try (ServerSocket elsewhere = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress())) {
      String target = "other.test:" + elsewhere.getLocalPort();
      byte[] connect = ("CONNECT " + target + " HTTP/1.1\r\nHost: " + target
          + "\r\nProxy-Authorization: Basic " + login + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII);
      for (int i = 0; i <= RunConnections.MAX_PER_RUN; i++) {
        Socket s = connect();
        held.add(s);
        s.setSoTimeout(10_000);
        s.getOutputStream().write(connect);
        String answer = new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
        if (i < RunConnections.MAX_PER_RUN) {
          assertThat(answer).as("tunnel " + i).isEqualTo("HTTP/1.1 200");
          held.add(elsewhere.accept()); // the tunnel's far end, in order
        } else {
          assertThat(answer + new String(s.getInputStream().readAllBytes(),
              StandardCharsets.UTF_8)).startsWith("HTTP/1.1 429")
              .contains("this run holds 256 connections through the proxy already");
        }
      }
      // closed by the proxy outright, though its client keeps its end open
      waitFor(() -> shared.acceptedConnections() == RunConnections.MAX_PER_RUN,
          Duration.ofSeconds(20));
      held.get(0).close(); // a tunnel ends when both its ends have
      held.get(1).close();
      waitFor(() -> shared.connectionEndsOf(run) < 2 * RunConnections.MAX_PER_RUN,
          Duration.ofSeconds(20));
      try (Socket again = connect()) {
        again.setSoTimeout(10_000);
        again.getOutputStream().write(connect);
        assertThat(new String(again.getInputStream().readNBytes(12), StandardCharsets.US_ASCII))
            .isEqualTo("HTTP/1.1 200");
      }
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
  }

  /**
   * Finding (attack of 2026-12-07): plain-HTTP requests were not counted, and one run's 20,000
   * keep-alive {@code GET http://…} connections took every descriptor of the appliance. The
   * connections that carry a run's forwarded requests count among its {@link
   * RunConnections#MAX_PER_RUN}, each once however many requests it carries.
   */
  @Test
  void aRunsForwardedRequestsCountAmongItsConnections() throws Exception {
    com.sun.net.httpserver.HttpServer origin = HelloOrigin.start();
    String login = java.util.Base64.getEncoder()
        .encodeToString("run-1:secret".getBytes(StandardCharsets.UTF_8));
    String target = "other.test:" + origin.getAddress().getPort();
    byte[] get = ("GET http://" + target + "/ HTTP/1.1\r\nHost: " + target
        + "\r\nProxy-Authorization: Basic " + login + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
    List<Socket> held = new ArrayList<>();
    try {
      for (int i = 0; i <= RunConnections.MAX_PER_RUN; i++) {
        Socket s = connect();
        held.add(s);
        s.setSoTimeout(10_000);
        s.getOutputStream().write(get);
        if (i < RunConnections.MAX_PER_RUN) {
          assertThat(answer(s)).as("connection " + i).startsWith("HTTP/1.1 200")
              .endsWith("hello\n");
        } else {
          assertThat(answer(s)).startsWith("HTTP/1.1 429")
              .contains("this run holds 256 connections through the proxy already");
        }
      }
      // The refused connection, which its client keeps open, is closed by the proxy outright:
      // half-closed, it held a descriptor uncounted until the idle timeout.
      waitFor(() -> shared.acceptedConnections() == RunConnections.MAX_PER_RUN,
          Duration.ofSeconds(20));
      Socket first = held.get(0); // a connection counted already carries more requests
      first.getOutputStream().write(get);
      assertThat(answer(first)).startsWith("HTTP/1.1 200");

      first.close();
      waitFor(() -> shared.connectionEndsOf(run) < RunConnections.MAX_PER_RUN,
          Duration.ofSeconds(20));
      try (Socket again = connect()) {
        again.setSoTimeout(10_000);
        again.getOutputStream().write(get);
        assertThat(answer(again)).startsWith("HTTP/1.1 200");
      }
    } finally {
      for (Socket s : held) {
        s.close();
      }
      origin.stop(0);
    }
  }

  /**
   * Finding (attack of 2026-12-07): the forward kept its connections onward in a pool, every
   * run's, and one run's 4,000 requests to as many ports kept 4,000 of them, past every bound.
   * The connection onward closes once its answer is in, though the host would keep it.
   */
  @Test
  void theForwardsConnectionOnwardClosesWithItsAnswer() throws Exception {
    String login = java.util.Base64.getEncoder()
        .encodeToString("run-1:secret".getBytes(StandardCharsets.UTF_8));
    try (ServerSocket origin = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
        Socket s = connect()) {
      String target = "other.test:" + origin.getLocalPort();
      s.setSoTimeout(10_000);
      s.getOutputStream().write(("GET http://" + target + "/ HTTP/1.1\r\nHost: " + target
          + "\r\nProxy-Authorization: Basic " + login + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      try (Socket onward = origin.accept()) {
        onward.setSoTimeout(20_000);
        dev.pushgate.testkit.RawHttp.head(onward.getInputStream());
        onward.getOutputStream().write(("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n"
            + "Connection: keep-alive\r\n\r\nok\n").getBytes(StandardCharsets.US_ASCII));
        assertThat(answer(s)).startsWith("HTTP/1.1 200").endsWith("ok\n");
        assertThat(onward.getInputStream().read()).as("the proxy's end of the connection onward")
            .isEqualTo(-1);
      }
    }
  }

  /**
   * Finding (attack of 2026-12-07): {@code OPTIONS *} with a run's login reached Jetty's forward,
   * which threw, and each one was logged with its stack: 37 MB of log in 10 s from one run. It
   * is refused saying what to send.
   */
  @Test
  void aTargetThatIsNotAPathIsRefusedSayingWhatToSend() throws Exception {
    String login = java.util.Base64.getEncoder()
        .encodeToString("run-1:secret".getBytes(StandardCharsets.UTF_8));
    try (Socket s = connect()) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write(("OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1:1\r\n"
          + "Proxy-Authorization: Basic " + login + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      assertThat(answer(s)).startsWith("HTTP/1.1 400")
          .contains("send absolute http:// URLs, or CONNECT for https");
    }
  }

  /** A port no host can listen on is refused saying so, never read as port 80. */
  @Test
  void aForwardToPortZeroOrPastTheLastIsRefused() throws Exception {
    String login = java.util.Base64.getEncoder()
        .encodeToString("run-1:secret".getBytes(StandardCharsets.UTF_8));
    for (String target : List.of("other.test:0", "other.test:99999")) {
      try (Socket s = connect()) {
        s.setSoTimeout(10_000);
        // Host without the port: Jetty's parser refuses such a port in a Host header itself
        s.getOutputStream().write(("GET http://" + target + "/ HTTP/1.1\r\nHost: other.test"
            + "\r\nProxy-Authorization: Basic " + login + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
        assertThat(answer(s)).as(target).startsWith("HTTP/1.1 400")
            .contains("names no port a host can listen on");
      }
    }
  }

  /**
   * A plain-HTTP request to a host that cannot be reached is answered with why, as a CONNECT's
   * is (Jetty's own answer was a bare "Bad Gateway").
   */
  @Test
  void aForwardToAHostThatRefusesSaysWhy() throws Exception {
    int closed;
    try (ServerSocket gone = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = gone.getLocalPort();
    }
    String login = java.util.Base64.getEncoder()
        .encodeToString("run-1:secret".getBytes(StandardCharsets.UTF_8));
    String target = "other.test:" + closed;
    try (Socket s = connect()) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write(("GET http://" + target + "/ HTTP/1.1\r\nHost: " + target
          + "\r\nProxy-Authorization: Basic " + login + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      assertThat(answer(s)).startsWith("HTTP/1.1 502").endsWith(
          "pushgate: could not connect to " + target + ": the connection was refused\n");
    }
  }

  private static String answer(Socket s) throws IOException {
    return HelloOrigin.answer(s.getInputStream());
  }

  private Socket connect() throws IOException {
    return new Socket(InetAddress.getLoopbackAddress(), shared.port());
  }

  private static void waitFor(java.util.function.BooleanSupplier condition, Duration within)
      throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(condition.getAsBoolean()).as("within " + within).isTrue();
  }
}
