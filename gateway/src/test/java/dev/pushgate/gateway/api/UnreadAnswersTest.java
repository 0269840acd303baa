package dev.pushgate.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.policy.Decision;
import dev.pushgate.testkit.Wait;
import dev.pushgate.types.BoundaryHandle;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A whole answer (under 64 KiB) that a run does not read waits in Jetty after its call has ended
 * and given its slot back: its bytes are held in the listener's buffered bytes until Jetty has
 * written them, and given back when the run reads them or its connection goes; with no room
 * for them there, the call keeps its slot until then instead. Before, such an answer was held
 * in neither (fails on 1abeb9b3).
 */
class UnreadAnswersTest {
  /** GitHub's answer to every call: 60,002 bytes, a whole answer. */
  private static final String BIG = "\"" + "a".repeat(60_000) + "\"";
  private static final int CALLS = 200;
  /** Refusals sent on a connection: enough to fill its socket buffers, a few hundred bytes each. */
  private static final int REFUSALS = 500;
  /**
   * The listener's send buffer for the refusals' connections, so that a few dozen refusals fill
   * it (the kernel's own grows to megabytes).
   */
  private static final int SEND_BUFFER = 4096;
  /** The fewest bytes a refusal is counted as: its JSON body and the least of its head. */
  private static final int SMALLEST_REFUSAL = 300;

  private final RunCa ca = RunCa.create("runs",
      ApiUpstream.of(URI.create("https://api.github.com")).hostNames(), Duration.ofHours(1));
  private final String sentinel = ApiSentinel.newValue();
  private FakeUpstream upstream;
  private ApiBoundary listener;
  private BoundaryRun run;
  /** Kept reachable: a socket collected is closed, and its answers with it. */
  private final List<SSLSocket> opened = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    start(BufferedBytes.sizedFor(Runtime.getRuntime().maxMemory()));
  }

  private void start(BufferedBytes budget) throws Exception {
    if (listener != null) {
      stop();
    }
    upstream = FakeUpstream.start((r, out) -> FakeUpstream.answer(out, 200,
        "Content-Type: application/json\r\n", BIG));
    ApiUpstream to = new ApiUpstream(upstream.base(), upstream.base(), null);
    listener = ApiBoundary.start(new ApiBoundary.Shared(to, (q, p) -> null, records -> { },
        UpstreamClient.start(to, null, UpstreamClient.ANSWER_TIMEOUT), Clock.systemUTC()),
        Duration.ofSeconds(20), budget, ApiBoundary.IDLE_TIMEOUT);
    run = listener.open(ca, new ApiBoundary.RunApi("run-a", "ws-1", ApiSentinel.of(sentinel),
        call -> new ApiJudgement(List.of(new ApiJudgement.ApiAction("read", "acme/app", "#1",
            call.path().endsWith("/denied") ? Decision.DENY : Decision.ALLOW, "ok")), false),
        new ReadOnlyTokens("read-token")));
  }

  @AfterEach
  void stop() throws IOException {
    for (SSLSocket s : opened) {
      s.close();
    }
    opened.clear();
    listener.close();
    upstream.close();
  }

  @Test
  void answersARunDoesNotReadAreHeldInTheBufferedBytes() throws Exception {
    // Each connection's answers fill its socket buffers, then one waits in Jetty, counted; its
    // call has ended. Then as many again as the run has slots, and more.
    pipelineUnread(ApiBoundary.MAX_CALLS);
    Wait.until(Duration.ofSeconds(60), "the answers the run does not read are counted",
        () -> listener.bufferedBytes() >= ApiBoundary.MAX_CALLS * 60_000L);
    Wait.until(Duration.ofSeconds(60), "the calls have ended, their slots given back",
        () -> listener.callsInProgress("run-a") == 0);
    pipelineUnread(4);
    Wait.until(Duration.ofSeconds(60), "more answers than the run has slots are counted",
        () -> listener.bufferedBytes() >= (ApiBoundary.MAX_CALLS + 4) * 60_000L);
  }

  @Test
  void theAnswersBytesAreGivenBackWhenTheRunReadsThemOrGoesAway() throws Exception {
    List<SSLSocket> unread = pipelineUnread(2);
    Wait.until(Duration.ofSeconds(60), "an answer waits on each connection",
        () -> listener.bufferedBytes() >= 2 * 60_000L);
    SSLSocket reads = unread.get(0);
    reads.setSoTimeout(60_000);
    for (int i = 0; i < CALLS; i++) {
      assertThat(readAnswer(reads.getInputStream())).isEqualTo(BIG);
    }
    Wait.until(Duration.ofSeconds(60), "what the run read is given back",
        () -> isOneAnswer(listener.bufferedBytes()));
    SSLSocket goes = unread.get(1);
    goes.setSoLinger(true, 0); // aborted: the write pending on it fails
    goes.close();
    Wait.until(Duration.ofSeconds(60), "what the run left is given back",
        () -> listener.bufferedBytes() == 0 && listener.callsInProgress("run-a") == 0);
  }

  @Test
  void withNoRoomInTheBufferedBytesAnUnreadAnswerKeepsItsCallsSlotUntilItIsWritten()
      throws Exception {
    start(new BufferedBytes(100_000)); // room for one answer
    List<SSLSocket> unread = pipelineUnread(2);
    Wait.until(Duration.ofSeconds(60), "one answer counted, the other holding its slot",
        () -> isOneAnswer(listener.bufferedBytes())
            && listener.callsInProgress("run-a") == 1);
    for (SSLSocket s : unread) {
      s.setSoLinger(true, 0);
      s.close();
    }
    Wait.until(Duration.ofSeconds(60), "the bytes and the slot are given back",
        () -> listener.bufferedBytes() == 0 && listener.callsInProgress("run-a") == 0);
  }

  /**
   * The boundary's own refusals follow the same rule: a 403 the run does not read is held in the
   * buffered bytes, and its call's slot is given back. Before, they were held in nothing (fails on
   * ad173691).
   */
  @Test
  void refusalsARunDoesNotReadAreHeldInTheBufferedBytesAsItsAnswersAre() throws Exception {
    listener.sendBufferOfNewConnections(SEND_BUFFER);
    List<SSLSocket> unread = pipelineUnread(4, "/repos/acme/denied", "token " + sentinel,
        REFUSALS);
    Wait.until(Duration.ofSeconds(60), "a refusal waits on each connection, counted",
        () -> listener.bufferedBytes() >= 4L * SMALLEST_REFUSAL
            && listener.callsInProgress("run-a") == 0);
    for (SSLSocket s : unread) {
      s.setSoLinger(true, 0);
      s.close();
    }
    Wait.until(Duration.ofSeconds(60), "what the run left is given back",
        () -> listener.bufferedBytes() == 0 && listener.callsInProgress("run-a") == 0);
  }

  /**
   * A run that never reads its refusals (401s, refused before they take a slot) on every
   * connection it may open holds no more than its share of the buffered bytes and its slots
   * (each refusal past its share takes a slot for its answer): past both, its connection is
   * closed unanswered. Before, every connection held one refusal, counted nowhere.
   */
  @Test
  void aRunThatNeverReadsItsRefusalsHoldsNoMoreThanItsShareAndItsSlots() throws Exception {
    int budget = 4096;
    start(new BufferedBytes(budget));
    listener.sendBufferOfNewConnections(SEND_BUFFER);
    List<SSLSocket> unread = pipelineUnread(ApiBoundary.MAX_CONNECTIONS, "/repos/acme/app", "",
        REFUSALS);
    Wait.until(Duration.ofSeconds(60), "the refusals past the run's bytes hold its slots, and"
        + " the connections past both are closed",
        () -> listener.callsInProgress("run-a") == ApiBoundary.MAX_CALLS
            && listener.bufferedBytes() > budget - 2 * SMALLEST_REFUSAL
            && run.connections() <= ApiBoundary.MAX_CALLS + budget / SMALLEST_REFUSAL);
    assertThat(listener.bufferedBytes()).isLessThanOrEqualTo(budget);
    for (SSLSocket s : unread) {
      s.setSoLinger(true, 0);
      s.close();
    }
    Wait.until(Duration.ofSeconds(60), "the bytes and the slots are given back",
        () -> listener.bufferedBytes() == 0 && listener.callsInProgress("run-a") == 0);
  }

  /** One answer as counted: its body, and its head (at most 1 KiB here). */
  private static boolean isOneAnswer(long bytes) {
    return bytes > BIG.length() && bytes < BIG.length() + 1024;
  }

  /** Connections of the run, each sent {@link #CALLS} allowed calls at once and never read. */
  private List<SSLSocket> pipelineUnread(int connections) throws Exception {
    return pipelineUnread(connections, "/repos/acme/app", "token " + sentinel, CALLS);
  }

  /**
   * Connections of the run, each sent {@code calls} calls of {@code target} with {@code
   * authorization} (none when empty) at once, and never read.
   */
  private List<SSLSocket> pipelineUnread(int connections, String target, String authorization,
      int calls) throws Exception {
    byte[] sent = ("GET " + target + " HTTP/1.1\r\nHost: api.github.com\r\n"
        + (authorization.isEmpty() ? "" : "Authorization: " + authorization + "\r\n")
        + "\r\n").repeat(calls).getBytes(StandardCharsets.US_ASCII);
    List<SSLSocket> these = new ArrayList<>();
    for (int c = 0; c < connections; c++) {
      Socket plain = new Socket();
      plain.setReceiveBufferSize(2048); // its window fills after a few answers
      plain.connect(listener.address());
      plain.getOutputStream().write(BoundaryHandle.proxyHeader(run.handle()));
      SSLSocket s = OneRunBoundary.tlsOver(plain, ca, "api.github.com");
      Thread t = new Thread(() -> {
        try {
          s.getOutputStream().write(sent);
        } catch (IOException e) {
          // closed at the end
        }
      });
      t.setDaemon(true);
      t.start();
      these.add(s);
    }
    opened.addAll(these);
    return these;
  }

  /** One answer's body, its head read up to its Content-Length. */
  private static String readAnswer(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("the connection closed within an answer's head");
      }
      head.write(b);
    }
    String h = head.toString(StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT);
    int at = h.indexOf("content-length:") + "content-length:".length();
    int length = Integer.parseInt(h.substring(at, h.indexOf("\r\n", at)).trim());
    return new String(in.readNBytes(length), StandardCharsets.US_ASCII);
  }
}
