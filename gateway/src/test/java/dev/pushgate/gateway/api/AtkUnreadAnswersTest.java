package dev.pushgate.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.policy.Decision;
import dev.pushgate.testkit.Wait;
import dev.pushgate.types.BoundaryHandle;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/**
 * Attack (attack2, target 1), severity LOW: an answer of up to 64 KiB written on arrival
 * ({@code AnswerOnArrival}) to a run that does not read it waits in the run's connection with
 * its call's slot given back and nothing of it in the listener's buffered bytes. One run,
 * pipelining calls on each of its connections and reading none, keeps about 64 KiB (and its TLS
 * copy) per connection held (up to MAX_CONNECTIONS, for as long as it reads a byte every idle
 * timeout), beyond every bound the boundary sets on what calls hold; every run can.
 */
class AtkUnreadAnswersTest {
  @Test
  void answersWaitingForARunThatDoesNotReadThemAreCountedInTheBufferedBytes() throws Exception {
    RunCa ca = RunCa.create("runs", ApiUpstream.of(URI.create("https://api.github.com"))
        .hostNames(), Duration.ofHours(1));
    String big = "\"" + "a".repeat(60_000) + "\"";
    try (FakeUpstream upstream = FakeUpstream.start((r, out) -> FakeUpstream.answer(out, 200,
        "Content-Type: application/json\r\n", big))) {
      ApiUpstream to = new ApiUpstream(upstream.base(), upstream.base(), null);
      ApiBoundary listener = ApiBoundary.start(new ApiBoundary.Shared(to, (q, p) -> null,
          records -> { }, UpstreamClient.start(to, null, UpstreamClient.ANSWER_TIMEOUT),
          Clock.systemUTC()), Duration.ofSeconds(20),
          BufferedBytes.sizedFor(Runtime.getRuntime().maxMemory()), ApiBoundary.IDLE_TIMEOUT);
      String sentinel = ApiSentinel.newValue();
      BoundaryRun run = listener.open(ca, new ApiBoundary.RunApi("run-a", "ws-1",
          ApiSentinel.of(sentinel), call -> new ApiJudgement(List.of(new ApiJudgement.ApiAction(
              "read", "acme/app", "#1", Decision.ALLOW, "ok")), false),
          new ReadOnlyTokens("read-token")));
      byte[] calls = ("GET /repos/acme/app HTTP/1.1\r\nHost: api.github.com\r\nAuthorization:"
          + " token " + sentinel + "\r\n\r\n").repeat(60).getBytes(StandardCharsets.US_ASCII);
      int connections = ApiBoundary.MAX_CALLS + 4;
      for (int c = 0; c < connections; c++) {
        Socket plain = new Socket();
        plain.setReceiveBufferSize(2048); // its window fills after a few answers
        plain.connect(listener.address());
        plain.getOutputStream().write(BoundaryHandle.proxyHeader(run.handle()));
        SSLSocket s = OneRunBoundary.tlsOver(plain, ca, "api.github.com");
        Thread t = new Thread(() -> { // pipelined, never read
          try {
            s.getOutputStream().write(calls);
          } catch (java.io.IOException e) {
            // closed at the end
          }
        });
        t.setDaemon(true);
        t.start();
      }
      Wait.until(Duration.ofSeconds(60), "the answers the run does not read are counted",
          () -> listener.bufferedBytes() >= (long) connections * 60_000);
      assertThat(listener.bufferedBytes()).isPositive();
      listener.close();
    }
  }
}
