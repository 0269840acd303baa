package dev.pushgate.gateway.api;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.pushgate.gateway.Approvals;
import dev.pushgate.policy.Mode;
import dev.pushgate.testkit.ClosedByPeer;
import dev.pushgate.types.BoundaryHandle;
import dev.pushgate.types.UnnamedConnections;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two runs on the one listener: a connection is a run's only when its PROXY header names that
 * run's handle, and then it is shown that run's certificate and judged by that run's rules; every
 * other connection is closed before TLS.
 */
class ApiBoundaryListenerTest {
  private WireMockServer github;
  private ApiBoundary listener;
  private Run a;
  private Run b;

  private record Run(String id, RunCa ca, String sentinel, BoundaryRun boundary) {}

  @BeforeEach
  void start() throws IOException {
    github = StubGitHub.answeringAll(aResponse().withStatus(200)
        .withHeader("Content-Type", "application/json").withBody("{\"ok\":true}"));
    listener = ApiBoundary.start(new ApiBoundary.Shared(StubGitHub.upstream(github),
        Approvals.NONE, records -> { }, Clock.systemUTC()));
    a = open("run-a");
    b = open("run-b");
  }

  @AfterEach
  void stop() {
    listener.close();
    github.stop();
  }

  @Test
  void aConnectionThatNamesNoRunIsClosedBeforeTls() throws Exception {
    byte[] v1 = "PROXY TCP4 127.0.0.1 127.0.0.1 1 2\r\n".getBytes(StandardCharsets.US_ASCII);
    List<byte[]> headers = List.of(new byte[0], v1,
        BoundaryHandle.proxyHeader(BoundaryHandle.newValue()),
        BoundaryHandle.proxyHeader(a.id()));
    for (byte[] header : headers) {
      Socket plain = connect(header);
      assertThatThrownBy(() -> handshake(plain, a.ca()))
          .as(new String(header, StandardCharsets.US_ASCII))
          .isInstanceOf(IOException.class).isNotInstanceOf(SocketTimeoutException.class);
    }
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).isEmpty();
  }

  /**
   * A PROXY header that names two handles names no run, whichever of them Jetty's parser would
   * keep (it keeps one value per TLV type): the handle is read from the header as sent.
   */
  @Test
  void aHeaderNamingTwoHandlesIsClosedBeforeTls() throws Exception {
    for (Run[] twice : new Run[][] {{a, a}, {a, b}, {b, a}}) {
      byte[] header = header(twice[0]);
      byte[] second = BoundaryHandle.proxyHeader(twice[1].boundary().handle());
      byte[] tlv = java.util.Arrays.copyOfRange(second, 16 + 12, second.length);
      byte[] both = java.util.Arrays.copyOf(header, header.length + tlv.length);
      System.arraycopy(tlv, 0, both, header.length, tlv.length);
      int length = both.length - 16;
      both[14] = (byte) (length >>> 8);
      both[15] = (byte) length;
      for (Run shown : twice) {
        Socket plain = connect(both);
        assertThatThrownBy(() -> handshake(plain, shown.ca()))
            .isInstanceOf(IOException.class).isNotInstanceOf(SocketTimeoutException.class);
      }
    }
    assertThat(get(a, a.sentinel())).as("a header naming one still does")
        .startsWith("HTTP/1.1 200");
  }

  @Test
  void eachConnectionIsShownItsOwnRunsCertificate() throws Exception {
    assertThatThrownBy(() -> handshake(connect(header(a)), b.ca()))
        .isInstanceOf(SSLHandshakeException.class);
    try (SSLSocket s = handshake(connect(header(b)), b.ca())) {
      assertThat(s.getSession().getPeerCertificates()[1]).isEqualTo(b.ca().certificate());
    }
  }

  @Test
  void aRunsConnectionIsJudgedByItsOwnRunOnly() throws Exception {
    // Run a's connection with run b's sentinel: not b's boundary, a's, which knows only a's.
    assertThat(get(a, b.sentinel())).startsWith("HTTP/1.1 401");
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).isEmpty();
    assertThat(get(a, a.sentinel())).startsWith("HTTP/1.1 200");
    assertThat(get(b, b.sentinel())).startsWith("HTTP/1.1 200");
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).hasSize(2);
  }

  @Test
  void anEndedRunsConnectionsAreDroppedAndItsHandleNamesNothing() throws Exception {
    SSLSocket held = handshake(connect(header(a)), a.ca());
    a.boundary().close();
    held.setSoTimeout(10_000);
    try (held) {
      assertThat(readAll(held)).isEmpty();
    }
    assertThatThrownBy(() -> handshake(connect(header(a)), a.ca()))
        .isInstanceOf(IOException.class).isNotInstanceOf(SocketTimeoutException.class);
    assertThat(get(b, b.sentinel())).startsWith("HTTP/1.1 200");
    assertThat(listener.openRuns()).isEqualTo(1);
  }

  /**
   * Finding (attack35l): a connection that names no run costs the listener a descriptor for as
   * long as it trickles its PROXY header, one byte inside each idle timeout; nothing bounds how
   * many such connections anything on loopback holds, so a few thousand of them exhaust the
   * appliance's descriptors and every run's API calls, fetches and pushes fail. A header must
   * arrive whole within a deadline of its own, however it is paced.
   */
  @Test
  void aConnectionThatTricklesItsProxyHeaderIsClosedByAHeaderDeadline() throws Exception {
    byte[] header = BoundaryHandle.proxyHeader(a.boundary().handle());
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    try (Socket s = new Socket(listener.address().getAddress(), listener.address().getPort())) {
      boolean closed = false;
      for (int i = 0; i < header.length - 1 && System.nanoTime() < deadline && !closed; i++) {
        s.getOutputStream().write(header[i]);
        s.getOutputStream().flush();
        s.setSoTimeout(2_000); // the attacker's pace: one byte every 2 s, well inside 30 s idle
        try {
          closed = s.getInputStream().read() == -1;
        } catch (SocketTimeoutException stillOpen) {
          // the listener still holds the connection
        } catch (IOException reset) {
          closed = true;
        }
      }
      assertThat(closed).as("a header trickled for 20 s is still being waited for").isTrue();
    }
  }

  /**
   * However fast they are opened, connections that have named no run yet are bounded across the
   * listener: one over {@link UnnamedConnections#MAX} has the oldest closed (before its deadline
   * could close it), so a run's own connection, which names its run at once, gets through a
   * bound held full (attack of 2026-12-07), and is taken again once they have met theirs.
   */
  @Test
  void connectionsThatNameNoRunAreBoundedAtAccept() throws Exception {
    List<Socket> held = new ArrayList<>();
    try {
      for (int i = 0; i < UnnamedConnections.MAX; i++) {
        held.add(new Socket(listener.address().getAddress(), listener.address().getPort()));
      }
      long deadline = System.nanoTime() + UnnamedConnections.DEADLINE.toNanos() / 2;
      while (listener.unnamedConnections() < UnnamedConnections.MAX
          && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(listener.unnamedConnections()).isEqualTo(UnnamedConnections.MAX);
      // a run's own connection gets through: the oldest unnamed one is closed for it (which is
      // oldest is the order the listener's selectors took them in, not quite the test's)
      assertThat(get(a, a.sentinel())).startsWith("HTTP/1.1 200");
      dev.pushgate.testkit.Wait.until(UnnamedConnections.DEADLINE.dividedBy(2),
          "an unnamed connection closed for the run's", () -> ClosedByPeer.count(held) >= 1);
      long released = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (listener.unnamedConnections() > 0 && System.nanoTime() < released) {
        Thread.sleep(20);
      }
      assertThat(get(a, a.sentinel())).startsWith("HTTP/1.1 200");
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
  }

  private Run open(String id) {
    RunCa ca = RunCa.create(id, List.of("api.github.com"), Duration.ofHours(1));
    String sentinel = ApiSentinel.newValue();
    BoundaryRun boundary = listener.open(ca, new ApiBoundary.RunApi(id, "ws-1",
        ApiSentinel.of(sentinel), ApiJudgeFixture.judge(ApiJudgeFixture.STRICT, Mode.CHAT),
        new ReadOnlyTokens("read-token-of-" + id)));
    return new Run(id, ca, sentinel, boundary);
  }

  private static byte[] header(Run run) {
    return BoundaryHandle.proxyHeader(run.boundary().handle());
  }

  private Socket connect(byte[] header) throws IOException {
    Socket s = new Socket(listener.address().getAddress(), listener.address().getPort());
    s.getOutputStream().write(header);
    s.getOutputStream().flush();
    return s;
  }

  private String get(Run run, String sentinel) throws Exception {
    try (SSLSocket s = handshake(connect(header(run)), run.ca())) {
      s.getOutputStream().write(("GET /repos/acme/widget/pulls HTTP/1.1\r\nHost: api.github.com"
          + "\r\nAuthorization: token " + sentinel + "\r\nConnection: close\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      return readAll(s);
    }
  }

  private static String readAll(SSLSocket s) throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    try {
      s.getInputStream().transferTo(all);
    } catch (IOException e) {
      // a reset after the answer, or the connection dropped
    }
    return all.toString(StandardCharsets.UTF_8);
  }

  /** TLS over {@code plain} for api.github.com, trusting {@code ca} alone, handshaken. */
  private static SSLSocket handshake(Socket plain, RunCa ca) throws Exception {
    SSLSocket s = OneRunBoundary.tlsOver(plain, ca, "api.github.com");
    s.setSoTimeout(10_000);
    s.startHandshake();
    return s;
  }
}
