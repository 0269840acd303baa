package dev.pushgate.gateway.api;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.pushgate.gateway.Approvals;
import dev.pushgate.policy.Mode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The boundary attacked with raw HTTP/1.1 over TLS and the real judge (ApiJudgeFixture.STRICT:
 * pull requests allowed, tracker denied, main denied): what must not reach upstream unjudged or
 * judged as something milder, and what one run must not be able to hold of the appliance.
 */
class ApiBoundaryAttackTest {
  private static final String READ_TOKEN = "ghs_REALreadTOKEN000000000000000000000";

  private WireMockServer github;
  private RunCa ca;
  private OneRunBoundary boundary;
  private final String sentinel = ApiSentinel.newValue();
  private final List<ApiRecord> audited = new ArrayList<>();

  @BeforeEach
  void start() throws IOException {
    github = StubGitHub.answeringAll(aResponse().withStatus(200).withBody("{}"));
    ca = RunCa.create("run-1", ApiUpstream.of(URI.create("https://api.github.com")).hostNames(),
        Duration.ofHours(1));
    boundary = OneRunBoundary.start(ca,
        new ApiBoundary.RunApi("run-1", "ws-1", ApiSentinel.of(sentinel),
            ApiJudgeFixture.judge(ApiJudgeFixture.STRICT, Mode.CHAT),
            new ReadOnlyTokens(READ_TOKEN)),
        new ApiBoundary.Shared(StubGitHub.upstream(github), Approvals.NONE, audited::addAll,
            Clock.systemUTC()));
  }

  @AfterEach
  void stop() {
    boundary.close();
    github.stop();
  }

  // ---- findings ----

  @Test
  void aMethodOverrideHeaderIsRefusedUnforwarded() throws Exception {
    // POST .../pulls is allowed (open-pull-request); an upstream honouring the override would
    // run another method on that path than the one judged.
    for (String header : List.of("X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override",
        "x-http-method-override")) {
      String a = send("api.github.com", "POST /repos/acme/widget/pulls HTTP/1.1\r\n"
          + "Host: api.github.com\r\n" + auth() + header + ": DELETE\r\n"
          + "Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
      assertThat(status(a)).as(header).isEqualTo(400);
      assertThat(a).contains("\"message\":\"pushgate does not forward method overrides")
          .contains("documentation_url");
    }
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).isEmpty();
  }

  @Test
  void aMethodOverrideQueryParameterIsRefused() throws Exception {
    String a = getFromApi("/repos/acme/widget/pulls/1/merge?_method=PUT");
    assertThat(status(a)).isEqualTo(400);
    assertThat(a).contains("pushgate does not forward method overrides");
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).isEmpty();
  }

  @Test
  void aReadWithABodyIsRefused() throws Exception {
    // A read is judged by its path alone; its body is not read, so it is not forwarded.
    String body = "{\"query\":\"mutation{mergePullRequest(input:{pullRequestId:\\\"x\\\"}){clientMutationId}}\"}";
    for (String method : List.of("GET", "HEAD")) {
      String a = send("api.github.com", method + " /repos/acme/widget/pulls HTTP/1.1\r\n"
          + "Host: api.github.com\r\n" + auth() + "Content-Type: application/json\r\n"
          + "Content-Length: " + body.length() + "\r\nConnection: close\r\n\r\n" + body);
      assertThat(status(a)).as(method).isEqualTo(400);
    }
    String chunked = send("api.github.com", "GET /repos/acme/widget/pulls HTTP/1.1\r\n"
        + "Host: api.github.com\r\n" + auth() + "Transfer-Encoding: chunked\r\n"
        + "Connection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
    assertThat(status(chunked)).isEqualTo(400);
    assertThat(chunked).contains("a GET request with a body");
    // Refused at its head (attack38): a declared body that never comes is neither waited for
    // until the body deadline (a 408) nor taken from the run's budget meanwhile.
    String declared = send("api.github.com", "GET /repos/acme/widget/pulls HTTP/1.1\r\n"
        + "Host: api.github.com\r\n" + auth() + "Content-Length: 10485760\r\n"
        + "Connection: close\r\n\r\n");
    assertThat(status(declared)).isEqualTo(400);
    assertThat(declared).contains("a GET request with a body");
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).isEmpty();
  }

  @Test
  void anEncodedBodyIsRefused() throws Exception {
    // The judge reads the bytes as sent; an upstream inflating them would read another document.
    for (String encoding : List.of("gzip", "br", "deflate", "identity, gzip")) {
      String a = send("api.github.com", "POST /repos/acme/widget/pulls HTTP/1.1\r\n"
          + "Host: api.github.com\r\n" + auth() + "Content-Encoding: " + encoding + "\r\n"
          + "Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
      assertThat(status(a)).as(encoding).isEqualTo(415);
      assertThat(a).contains("pushgate does not forward encoded request bodies");
    }
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).isEmpty();
  }

  @Test
  void oneRunCannotHoldMoreConnectionsThanItsLimit() throws Exception {
    List<Socket> held = new ArrayList<>();
    try {
      for (int i = 0; i < ApiBoundary.MAX_CONNECTIONS; i++) {
        held.add(handshaken("api.github.com", 5000));
      }
      // One more is closed before TLS: the run holds its most (others' connections are not
      // counted against it; ApiBoundaryListenerTest).
      try (SSLSocket extra = tlsOver(boundary.connect(), "api.github.com")) {
        extra.setSoTimeout(5000);
        assertThatThrownBy(extra::startHandshake).isInstanceOf(IOException.class)
            .isNotInstanceOf(SocketTimeoutException.class);
      }
      // A connection closed frees its place: a new one is served again once the boundary has
      // seen it close.
      held.remove(0).close();
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
      while (true) {
        try (Socket again = handshaken("api.github.com", 5000)) {
          assertThat(again.isConnected()).isTrue();
          break;
        } catch (IOException e) {
          if (System.nanoTime() > deadline) {
            throw e;
          }
          Thread.sleep(50);
        }
      }
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
  }

  @Test
  void oneRunCannotMakeTheBoundaryBufferMoreThanItsBodyBudget() throws Exception {
    // Bodies are held whole in memory to be judged: a run sending many big ones at once must not
    // be able to exhaust the appliance's heap, which every run shares.
    List<Socket> held = new ArrayList<>();
    try {
      int big = ApiBoundary.MAX_BODY;
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      String refused = null;
      while (refused == null && System.nanoTime() < deadline) {
        SSLSocket s = handshaken("api.github.com", 5000);
        held.add(s);
        OutputStream out = s.getOutputStream();
        out.write(("POST /repos/acme/widget/git/blobs HTTP/1.1\r\nHost: api.github.com\r\n" + auth()
            + "Content-Type: application/json\r\nContent-Length: " + big + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
        try {
          out.write(new byte[big - 1]); // all but the last byte: the boundary buffers and waits
          out.flush();
        } catch (IOException answeredAlready) {
          // refused before it was all sent: the answer is read below
        }
        s.setSoTimeout(200);
        try {
          String answer = readSome(s.getInputStream());
          if (!answer.isEmpty()) {
            refused = answer;
          }
        } catch (SocketTimeoutException stillReading) {
          // held by the boundary; send another
        }
        assertThat(held.size()).as("bodies buffered before a refusal").isLessThanOrEqualTo(
            (int) (ApiBoundary.BUFFERED_BYTES / big) + 1);
      }
      assertThat(refused).isNotNull();
      assertThat(status(refused)).isEqualTo(429);
      assertThat(refused).contains("\"message\":\"pushgate is already holding");
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).isEmpty();
  }

  // ---- what held (regression guards) ----

  @Test
  void contentLengthAndChunkedTogetherOrTwiceNeverReachUpstreamUnjudged() throws Exception {
    // A smuggled second request hidden in the first's body: refused as a whole, or parsed as a
    // request of its own and judged (here: a tracker write, denied).
    String smuggled = "POST /repos/acme/widget/issues HTTP/1.1\r\nHost: api.github.com\r\n"
        + auth() + "Content-Length: 2\r\n\r\n{}";
    String both = send("api.github.com", "GET /repos/acme/widget HTTP/1.1\r\nHost: api.github.com\r\n"
        + auth() + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled);
    String twice = send("api.github.com", "GET /repos/acme/widget HTTP/1.1\r\nHost: api.github.com\r\n"
        + auth() + "Content-Length: 0\r\nContent-Length: " + smuggled.length() + "\r\n\r\n"
        + smuggled);
    assertThat(status(both)).isEqualTo(400);
    assertThat(status(twice)).isEqualTo(400);
    assertThat(github.findAll(anyRequestedFor(anyUrl())))
        .noneMatch(r -> r.getUrl().contains("issues"));
  }

  @Test
  void theHostHeaderNotTheSniOrTheTunnelIsWhatIsJudgedAndWhereItGoes() throws Exception {
    // A tunnel opened for api.github.com naming uploads.github.com in Host: judged as an upload.
    String a = send("api.github.com", "GET /repos/acme/widget/pulls HTTP/1.1\r\n"
        + "Host: uploads.github.com\r\n" + auth() + "Connection: close\r\n\r\n");
    assertThat(status(a)).isEqualTo(403);
    // An absolute-form target names the host that counts: another host is not answered.
    String abs = getFromApi("https://evil.example/repos/acme/widget");
    assertThat(status(abs)).isIn(400, 421);
    // No Host at all (HTTP/1.0): not answered.
    String none = send("api.github.com", "GET /repos/acme/widget HTTP/1.0\r\n" + auth() + "\r\n");
    assertThat(status(none)).isIn(400, 421);
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).isEmpty();
  }

  @Test
  void aFullyQualifiedHostNameTheProxyInterceptsIsAnsweredByTheBoundary() throws Exception {
    // The proxy intercepts "api.github.com." (HostNames.normalised on both sides): the boundary
    // must answer it as api.github.com, not 421, and judge it the same way.
    String a = send("api.github.com", "GET /repos/acme/widget/pulls HTTP/1.1\r\n"
        + "Host: API.GitHub.com.\r\n" + auth() + "Connection: close\r\n\r\n");
    String write = send("api.github.com", "POST /repos/acme/other/issues HTTP/1.1\r\n"
        + "Host: api.github.com.\r\n" + auth() + "Content-Length: 2\r\n"
        + "Connection: close\r\n\r\n{}");

    assertThat(status(a)).isNotEqualTo(421).isNotEqualTo(403);
    assertThat(status(write)).isEqualTo(403);
    assertThat(github.findAll(anyRequestedFor(anyUrl())))
        .noneMatch(r -> r.getUrl().contains("issues"));
  }

  @Test
  void pathSpellingsOfAMergeAreJudgedAsTheMergeOrRefused() throws Exception {
    for (String path : List.of("/repos/acme/widget/pulls/1/%6derge", "/repos/acme/widget/pulls/1/merge/",
        "/repos/acme/widget//pulls/1/merge", "/repos/acme/widget/pulls/1/./merge",
        "/repos/acme/widget/pulls/2/../1/merge", "/repos/acme/widget/pulls/1/merge;x=1",
        "/repos/acme/widget/pulls/1%2fmerge", "/repos/ACME/WIDGET/pulls/1/merge",
        "/repos/acme/widget/pulls/1/MERGE", "/api/v3/repos/acme/widget/pulls/1/merge",
        "/repos/acme/widget/pulls/1/merge%00", "/repos/acme/widget/pulls/1/merge%252f")) {
      String a = send("api.github.com", "PUT " + path + " HTTP/1.1\r\nHost: api.github.com\r\n"
          + auth() + "Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close"
          + "\r\n\r\n{}");
      assertThat(status(a)).as(path).isIn(400, 403);
    }
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).isEmpty();
  }

  @Test
  void graphQlOverGetBatchesAndMultipartAreDenied() throws Exception {
    String get = getFromApi("/graphql?query=mutation%7BmergePullRequest%7D");
    assertThat(status(get)).isEqualTo(403);
    String batch = "[{\"query\":\"{viewer{login}}\"},{\"query\":\"mutation{mergePullRequest(input:"
        + "{pullRequestId:\\\"x\\\"}){clientMutationId}}\"}]";
    String b = send("api.github.com", "POST /graphql HTTP/1.1\r\nHost: api.github.com\r\n" + auth()
        + "Content-Type: application/json\r\nContent-Length: " + batch.length()
        + "\r\nConnection: close\r\n\r\n" + batch);
    assertThat(status(b)).isEqualTo(403);
    String multipart = "--x\r\nContent-Disposition: form-data; name=\"operations\"\r\n\r\n"
        + "{\"query\":\"mutation{mergePullRequest(input:{pullRequestId:\\\"x\\\"}){clientMutationId}}\"}"
        + "\r\n--x--\r\n";
    String m = send("api.github.com", "POST /graphql HTTP/1.1\r\nHost: api.github.com\r\n" + auth()
        + "Content-Type: multipart/form-data; boundary=x\r\nContent-Length: " + multipart.length()
        + "\r\nConnection: close\r\n\r\n" + multipart);
    assertThat(status(m)).isEqualTo(403);
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).isEmpty();
  }

  @Test
  void pipelinedRequestsAreEachJudged() throws Exception {
    String a = send("api.github.com", "GET /repos/acme/widget HTTP/1.1\r\nHost: api.github.com\r\n"
        + auth() + "\r\nPOST /repos/acme/widget/issues HTTP/1.1\r\nHost: api.github.com\r\n" + auth()
        + "Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
        false);
    assertThat(a).startsWith("HTTP/1.1 200").contains("HTTP/1.1 403");
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).extracting(LoggedRequest::getUrl)
        .containsExactly("/repos/acme/widget");
  }

  @Test
  void aRedirectIsHandedToTheRunNotFollowedWithTheRealToken() throws Exception {
    github.stubFor(any(com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo(
        "/repos/acme/widget")).willReturn(aResponse().withStatus(307)
        .withHeader("Location", github.baseUrl() + "/elsewhere")));
    String a = getFromApi("/repos/acme/widget");
    assertThat(status(a)).isEqualTo(307);
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).extracting(LoggedRequest::getUrl)
        .containsExactly("/repos/acme/widget");
    assertThat(a).doesNotContain(READ_TOKEN);
  }

  @Test
  void upgradesAndExpectationsAreNotForwarded() throws Exception {
    String ws = send("api.github.com", "GET /repos/acme/widget HTTP/1.1\r\nHost: api.github.com\r\n"
        + auth() + "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: websocket, h2c\r\n"
        + "HTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\nSec-WebSocket-Version: 13\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n");
    assertThat(status(ws)).isEqualTo(200);
    String expect = send("api.github.com", "POST /repos/acme/widget/issues HTTP/1.1\r\n"
        + "Host: api.github.com\r\n" + auth() + "Expect: 100-continue\r\n"
        + "Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
    assertThat(expect).contains("HTTP/1.1 403");
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).singleElement().satisfies(r -> {
      assertThat(r.getUrl()).isEqualTo("/repos/acme/widget");
      // (Java's client may ask a plain-http stand-in for h2c itself: its own values, not ours.)
      assertThat(r.getHeader("Upgrade")).isIn(null, "h2c");
      assertThat(r.getHeader("HTTP2-Settings")).isNotEqualTo("AAMAAABkAAQCAAAAAAIAAAAA");
    });
  }

  @Test
  void hugeHeadersAreRefusedBeforeAnythingIsJudged() throws Exception {
    String a = send("api.github.com", "GET /repos/acme/widget HTTP/1.1\r\nHost: api.github.com\r\n"
        + auth() + "X-Pad: " + "a".repeat(64 * 1024) + "\r\nConnection: close\r\n\r\n");
    assertThat(status(a)).isEqualTo(431);
    assertThat(github.findAll(anyRequestedFor(anyUrl()))).isEmpty();
  }

  // ---- the raw client ----

  /** {@code GET target} sent to api.github.com with the run's sentinel, and its answer. */
  private String getFromApi(String target) throws Exception {
    return send("api.github.com", "GET " + target + " HTTP/1.1\r\nHost: api.github.com\r\n"
        + auth() + "Connection: close\r\n\r\n");
  }

  private String auth() {
    return "Authorization: token " + sentinel + "\r\n";
  }

  private static int status(String raw) {
    assertThat(raw).as("an HTTP answer").startsWith("HTTP/1.1 ");
    return Integer.parseInt(raw.substring(9, 12));
  }

  /** Sends {@code raw} over TLS (SNI {@code sni}) and reads until the boundary closes. */
  private String send(String sni, String raw) throws Exception {
    return send(sni, raw, true);
  }

  /**
   * {@code raw} on a new connection, and what came back until the boundary closed it. With
   * {@code halfClose} the run's side is closed after the request; without, the request must ask
   * to close ({@code Connection: close}). A half-closed run is one that has gone to a call that
   * waits (docs/github-api.md): a call that must be answered waits with it open.
   */
  private String send(String sni, String raw, boolean halfClose) throws Exception {
    try (SSLSocket s = handshaken(sni, 10_000)) {
      OutputStream out = s.getOutputStream();
      try {
        out.write(raw.getBytes(StandardCharsets.UTF_8));
        out.flush();
        if (halfClose) {
          s.shutdownOutput();
        }
      } catch (IOException e) {
        // the boundary may answer and close before reading it all
      }
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      try {
        s.getInputStream().transferTo(all);
      } catch (IOException e) {
        // a reset after the answer
      }
      return all.toString(StandardCharsets.UTF_8);
    }
  }

  private static String readSome(InputStream in) throws IOException {
    byte[] b = new byte[4096];
    int n = in.read(b);
    return n <= 0 ? "" : new String(b, 0, n, StandardCharsets.UTF_8);
  }

  private SSLSocket handshaken(String sni, int timeoutMillis) throws Exception {
    Socket plain = boundary.connect();
    SSLSocket s = tlsOver(plain, sni);
    s.setSoTimeout(timeoutMillis);
    s.startHandshake();
    return s;
  }

  private SSLSocket tlsOver(Socket plain, String sni) throws Exception {
    return OneRunBoundary.tlsOver(plain, ca, sni);
  }
}
