package dev.pushgate.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.gateway.Approvals;
import dev.pushgate.gateway.RefusalCode;
import dev.pushgate.policy.Decision;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The listener's threads are every run's: calls that wait (on a GitHub that never answers, on an
 * approver who does not answer) must not keep another run from being answered, and a call whose
 * run's client has gone must stop waiting and give back its slot and its question. Each call is a
 * real TLS connection naming its run, as the run's proxy opens it.
 */
class ApiBoundarySheddingTest {
  private static final Duration DEADLINE = Duration.ofSeconds(30);

  private final AtomicInteger asked = new AtomicInteger();
  private final AtomicInteger withdrawn = new AtomicInteger();
  /** An approver who never answers: the question waits until its asker stops waiting. */
  private final Approvals neverAnswers = (question, progress) -> {
    asked.incrementAndGet();
    try {
      while (true) {
        Thread.sleep(50);
        progress.accept("still waiting");
      }
    } catch (InterruptedException e) {
      withdrawn.incrementAndGet();
      return Approvals.ApprovalAnswer.refuse(RefusalCode.APPROVAL_CANCELLED, "withdrawn");
    }
  };

  /** The approver the boundary asks: {@link #neverAnswers} unless a test sets another. */
  private volatile Approvals approver = neverAnswers;

  private RunCa ca;
  private FakeUpstream upstream;
  private ApiBoundary listener;
  private final List<Socket> open = new ArrayList<>();

  @BeforeEach
  void start() throws IOException {
    ca = RunCa.create("runs", ApiUpstream.of(URI.create("https://api.github.com")).hostNames(),
        Duration.ofHours(1));
    // GitHub never answers /never; anything else at once.
    upstream = FakeUpstream.start((r, out) -> r.head().startsWith("GET /never")
        || FakeUpstream.answer(out, 200, "Content-Type: application/json\r\n", "{}"));
    ApiUpstream to = new ApiUpstream(upstream.base(), upstream.base(), null);
    listener = ApiBoundary.start(new ApiBoundary.Shared(to, (q, p) -> approver.ask(q, p),
        records -> { },
        UpstreamClient.start(to, null, UpstreamClient.ANSWER_TIMEOUT), Clock.systemUTC()));
  }

  @AfterEach
  void stop() throws IOException {
    for (Socket s : open) {
      s.close();
    }
    listener.close();
    upstream.close();
  }

  /**
   * 13 runs × 16 calls GitHub never answers held every listener thread before: a 14th run's
   * connection could not even finish TLS. Now past half the boundary's bound a run holding its
   * busy share is answered 429 at once, and the 14th run's call is answered.
   */
  @Test
  void runsWhoseCallsNeverEndLeaveRoomForAnotherRunsCall() throws Exception {
    List<Run> runs = new ArrayList<>();
    int held = 0;
    for (int i = 0; i < 13; i++) {
      Run run = open("run-" + i, Decision.ALLOW);
      runs.add(run);
      for (int c = 0; c < ApiBoundary.MAX_CALLS; c++) {
        send(run, "/never");
      }
      // 4 runs take half the bound whole, the 9 others their busy share each: one run after
      // another, so that which calls are held does not depend on the order they are taken in.
      held += held < ApiBoundary.MAX_BUSY_CALLS / 2 ? ApiBoundary.MAX_CALLS
          : ApiBoundary.BUSY_SHARE;
      int heldNow = held;
      await(() -> upstream.received().size() == heldNow, heldNow + " held calls reach GitHub");
    }

    String refused = readAnswer(send(runs.get(12), "/repos/acme/app"));
    assertThat(refused).startsWith("HTTP/1.1 429 ").contains("Retry-After: 5")
        .contains("\"message\":\"pushgate is busy with other runs' GitHub API calls (this run has "
            + ApiBoundary.BUSY_SHARE + " in progress); retry after 5 s\"");

    String answered = readAnswer(send(open("run-13", Decision.ALLOW), "/repos/acme/app"));
    assertThat(answered).startsWith("HTTP/1.1 200 ").endsWith("{}");
    assertThat(upstream.received()).hasSize(held + 1);
  }

  /** A call waiting on GitHub whose run's client has gone gives its slot back. */
  @Test
  void aCallWaitingOnGitHubWhoseClientHasGoneGivesItsSlotBack() throws Exception {
    Run run = open("run-a", Decision.ALLOW);
    List<Socket> first = holdEveryCall(run, () -> upstream.received().size());
    assertThat(readAnswer(send(run, "/never"))).startsWith("HTTP/1.1 429 ");
    for (Socket s : first) {
      s.close();
    }
    await(() -> answeredWith(run, "HTTP/1.1 200 "), "a call of the run is answered again");
  }

  /** An asked call whose run's client has gone withdraws its question and gives its slot back. */
  @Test
  void anAskedCallWhoseClientHasGoneWithdrawsItsQuestionAndGivesItsSlotBack() throws Exception {
    Run run = open("run-a", Decision.ASK);
    List<Socket> first = holdEveryCall(run, asked::get);
    assertThat(readAnswer(send(run, "/repos/acme/app"))).startsWith("HTTP/1.1 429 ");
    for (Socket s : first) {
      s.close();
    }
    await(() -> withdrawn.get() == ApiBoundary.MAX_CALLS, "every question is withdrawn");
    send(run, "/repos/acme/app");
    await(() -> asked.get() == ApiBoundary.MAX_CALLS + 1, "the run's next call is asked");
  }

  /**
   * attackshed: an approval that comes after the call's client has gone (within the approvers'
   * keepalive, when the wait last looked) sends nothing upstream: the connection is looked at
   * once more after the answer, however recently it was looked at before.
   */
  @Test
  void anApprovalThatComesAfterTheClientHasGoneSendsNothing() throws Exception {
    java.util.concurrent.CountDownLatch clientGone = new java.util.concurrent.CountDownLatch(1);
    approver = (question, progress) -> {
      asked.incrementAndGet();
      progress.accept("waiting"); // the wait looks at the connection: the client is still there
      try {
        clientGone.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return Approvals.ApprovalAnswer.allow("alice");
    };
    Run run = open("run-a", Decision.ASK);
    Socket call = send(run, "/repos/acme/app");
    await(() -> asked.get() == 1, "the call is asked");
    call.close();
    clientGone.countDown();

    await(() -> answeredWith(open("run-b", Decision.ALLOW), "HTTP/1.1 200 "),
        "another call is answered");
    assertThat(upstream.received()).hasSize(1); // run-b's only
  }

  private record Run(String id, String sentinel, BoundaryRun boundary) {}

  /** MAX_CALLS calls of {@code run}, each waiting once {@code waiting} has counted it. */
  private List<Socket> holdEveryCall(Run run, java.util.function.IntSupplier waiting)
      throws Exception {
    List<Socket> held = new ArrayList<>();
    for (int c = 0; c < ApiBoundary.MAX_CALLS; c++) {
      held.add(send(run, "/never"));
    }
    await(() -> waiting.getAsInt() == ApiBoundary.MAX_CALLS, "every call of the run waits");
    return held;
  }

  private Run open(String id, Decision decision) {
    String sentinel = ApiSentinel.newValue();
    BoundaryRun boundary = listener.open(ca, new ApiBoundary.RunApi(id, "ws-1",
        ApiSentinel.of(sentinel), call -> new ApiJudgement(List.of(new ApiJudgement.ApiAction(
            "read", "acme/app", "#1", decision, "the rule says " + decision)), false),
        new ReadOnlyTokens("read-token-of-" + id)));
    return new Run(id, sentinel, boundary);
  }

  /** A GET of {@code path} on a new connection of {@code run}, sent and left open. */
  private Socket send(Run run, String path) throws Exception {
    Socket plain = new Socket(listener.address().getAddress(), listener.address().getPort());
    open.add(plain);
    plain.getOutputStream().write(dev.pushgate.types.BoundaryHandle.proxyHeader(
        run.boundary().handle()));
    SSLSocket s = OneRunBoundary.tlsOver(plain, ca, "api.github.com");
    open.add(s);
    s.setSoTimeout((int) DEADLINE.toMillis());
    s.startHandshake();
    s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: api.github.com\r\n"
        + "Authorization: token " + run.sentinel() + "\r\nConnection: close\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    return s;
  }

  /** Whether a new call of {@code run} is answered with {@code statusLine}; other answers retry. */
  private boolean answeredWith(Run run, String statusLine) {
    try (Socket s = send(run, "/repos/acme/app")) {
      String answer = readAnswer(s);
      assertThat(answer).startsWith("HTTP/1.1 ");
      return answer.startsWith(statusLine);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** What the boundary answered on {@code s} up to its close, waiting at most the deadline. */
  private static String readAnswer(Socket s) throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    s.getInputStream().transferTo(all);
    return all.toString(StandardCharsets.UTF_8);
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long end = System.nanoTime() + DEADLINE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("not within " + DEADLINE.toSeconds() + " s: " + what);
      }
      Thread.sleep(20);
    }
  }
}
