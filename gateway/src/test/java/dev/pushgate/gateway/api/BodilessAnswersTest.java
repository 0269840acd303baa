package dev.pushgate.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.gateway.Approvals;
import dev.pushgate.gateway.api.OneRunBoundary.Answer;
import dev.pushgate.policy.Decision;
import dev.pushgate.testkit.Wait;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * GitHub's answers that end at their head ({@link BodilessAnswer}: a 204, a 304, any answer to a
 * HEAD), from an upstream that sends bytes after them. Before, a 204 announcing a body was
 * Jetty's plain-text 500, and bytes sent after a bodiless head were read as the next call's
 * answer on that pooled connection, and a {@code HEAD} on a contents route lost its {@code
 * Content-Length} (fails on ad173691).
 */
class BodilessAnswersTest {
  private static final String READ_TOKEN = "ghs_REALreadTOKEN000000000000000000000";
  /** A whole answer, as bytes after a bodiless head that a client would take for one. */
  private static final String POSED = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
      + "Content-Length: 15\r\n\r\n{\"posed\":true}\n";

  private final RunCa ca = RunCa.create("run-1",
      ApiUpstream.of(URI.create("https://api.github.com")).hostNames(), Duration.ofHours(1));
  private final String sentinel = ApiSentinel.newValue();
  private final List<ApiRecord> audited = new CopyOnWriteArrayList<>();
  private final CountingTokens tokens = new CountingTokens(READ_TOKEN, "ghs_WRITE");
  private FakeUpstream upstream;
  private OneRunBoundary boundary;

  @AfterEach
  void stop() throws IOException {
    if (boundary != null) {
      boundary.close();
      boundary = null;
    }
    if (upstream != null) {
      upstream.close();
      upstream = null;
    }
  }

  /**
   * A read's answer is written on the upstream client's thread, a write's (it holds a write
   * token) on the call's: either way the run gets GitHub's error shape, the call stays audited
   * as sent, and its slot, buffered bytes and token are given back.
   */
  @Test
  void a204ThatAnnouncesABodyIsA502InGitHubsShapeAndHoldsNothing() throws Exception {
    for (String announced : List.of("Content-Length: 5\r\n\r\nhello",
        "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")) {
      for (String method : List.of("GET", "DELETE")) {
        start((r, out) -> write(out, "HTTP/1.1 204 No Content\r\n" + announced));
        Answer a = boundary.call(method, "api.github.com", "/repos/acme/app/git/refs/heads/x",
            "token " + sentinel, "");
        String as = method + " " + announced;
        assertThat(a.status()).as(as).isEqualTo(502);
        assertThat(a.headers()).as(as).contains("Content-Type: application/json");
        assertThat(a.body()).as(as).contains("\"message\":\"GitHub answered 204 with a body ("
            + (announced.startsWith("Content-Length") ? "Content-Length 5" : "Transfer-Encoding")
            + "), which a 204 cannot carry; pushgate passes on no answer a client cannot read\"")
            .doesNotContain("hello");
        assertThat(audited).as(as).singleElement().satisfies(r -> {
          assertThat(r.decision()).isEqualTo("allowed");
          assertThat(r.status()).as("sent").isEqualTo(CallAudit.SENT);
        });
        Wait.until(Duration.ofSeconds(10), "the call's slot and bytes are given back",
            () -> boundary.listener.callsInProgress("run-1") == 0
                && boundary.listener.bufferedBytes() == 0);
        Wait.until(Duration.ofSeconds(10), "every write token minted is revoked",
            () -> tokens.revoked.get() == tokens.minted.get());
        assertThat(tokens.minted.get()).as(as).isEqualTo(method.equals("DELETE") ? 1 : 0);
        stop();
        audited.clear();
        tokens.minted.set(0);
        tokens.revoked.set(0);
      }
    }
  }

  /**
   * The bytes an upstream sends after a bodiless head, late (here: once the next request on that
   * connection has come), answer no later call: the head's connection was closed at once, and
   * the next call goes on another.
   */
  @Test
  void bytesSentAfterAnAnswerThatEndsAtItsHeadAnswerNoLaterCall() throws Exception {
    for (String[] bodiless : new String[][] {{"GET", "HTTP/1.1 204 No Content\r\n\r\n"},
        {"GET", "HTTP/1.1 304 Not Modified\r\nETag: \"e1\"\r\nContent-Length: 66\r\n\r\n"},
        {"HEAD", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 66"
            + "\r\n\r\n"}}) {
      AtomicInteger calls = new AtomicInteger();
      // FakeUpstream serves each connection on a thread of its own.
      ThreadLocal<Boolean> owesBytes = ThreadLocal.withInitial(() -> false);
      start((r, out) -> {
        if (calls.getAndIncrement() == 0) {
          owesBytes.set(true);
          return write(out, bodiless[1]);
        }
        if (owesBytes.get()) {
          write(out, POSED);
        }
        return FakeUpstream.answer(out, 200, "Content-Type: application/json\r\n",
            "{\"real\":true}");
      });
      Answer first = boundary.call(bodiless[0], "api.github.com", "/repos/acme/app",
          "token " + sentinel, "");
      assertThat(first.raw()).as(bodiless[1]).startsWith(bodiless[1].substring(0, 12));
      Answer next = boundary.call("GET", "api.github.com", "/repos/acme/app",
          "token " + sentinel, "");
      assertThat(next.body()).as(bodiless[1]).isEqualTo("{\"real\":true}");
      assertThat(upstream.connectionsAccepted()).as(bodiless[1]).isEqualTo(2);
      stop();
    }
  }

  /** What a bodiless answer says of the body a GET would get passes on, as GitHub sent it. */
  @Test
  void a304AndAHeadAnswerKeepTheLengthTheyName() throws Exception {
    start((r, out) -> write(out, r.head().startsWith("HEAD")
        ? "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 70000\r\n\r\n"
        : "HTTP/1.1 304 Not Modified\r\nETag: \"e1\"\r\nContent-Length: 66\r\n\r\n"));
    Answer head = boundary.call("HEAD", "api.github.com", "/repos/acme/app/contents/a.json",
        "token " + sentinel, "");
    assertThat(head.status()).isEqualTo(200);
    assertThat(head.headers()).contains("Content-Length: 70000");
    Answer notModified = boundary.call("GET", "api.github.com", "/repos/acme/app",
        "token " + sentinel, "", List.of("If-None-Match: \"e1\""));
    assertThat(notModified.status()).isEqualTo(304);
    assertThat(notModified.headers()).contains("ETag: \"e1\"").contains("Content-Length: 66");
    assertThat(notModified.body()).isEmpty();
  }

  private static boolean write(java.io.OutputStream out, String bytes) throws IOException {
    out.write(bytes.getBytes(StandardCharsets.US_ASCII));
    out.flush();
    return true;
  }

  /** The fake upstream, and one run's boundary allowing every call; a DELETE is a write. */
  private void start(FakeUpstream.Script script) throws IOException {
    upstream = FakeUpstream.start(script);
    ApiUpstream to = new ApiUpstream(upstream.base(), upstream.base(), null);
    boundary = OneRunBoundary.start(ca, new ApiBoundary.RunApi("run-1", "ws-1",
        ApiSentinel.of(sentinel), call -> new ApiJudgement(List.of(new ApiJudgement.ApiAction(
            "read", "acme/app", "#1", Decision.ALLOW, "allowed")),
            call.method().equals("DELETE")), tokens),
        new ApiBoundary.Shared(to, Approvals.NONE, audited::addAll,
            UpstreamClient.start(to, null, UpstreamClient.ANSWER_TIMEOUT), Clock.systemUTC()));
  }
}
