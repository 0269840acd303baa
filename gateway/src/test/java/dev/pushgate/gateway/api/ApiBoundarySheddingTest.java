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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
  /** The listener's body deadline here: short, so that a dripped body is cut without a long wait. */
  private static final Duration BODY_DEADLINE = Duration.ofSeconds(1);

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
    // GitHub never answers /never, answers /slow after SLOW_ANSWER, anything else at once.
    upstream = FakeUpstream.start((r, out) -> {
      if (r.head().startsWith("GET /never")) {
        return true;
      }
      if (r.head().startsWith("GET /repos/acme/app/contents/")) {
        return contentsAnswer(r, out);
      }
      if (r.head().startsWith("GET /slow")) {
        try {
          Thread.sleep(SLOW_ANSWER.toMillis()); // GitHub taking its time, not the test waiting
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return FakeUpstream.answer(out, 200, "Content-Type: application/json\r\n", "{}");
    });
    listener = start(BODY_DEADLINE, BufferedBytes.sizedFor(Runtime.getRuntime().maxMemory()),
        ApiBoundary.IDLE_TIMEOUT);
  }

  /** GitHub's answer to /slow comes this late: longer than {@link #SHORT_IDLE}. */
  private static final Duration SLOW_ANSWER = Duration.ofMillis(2500);
  /** An idle timeout a test sets so that outliving it takes no 30 s. */
  private static final Duration SHORT_IDLE = Duration.ofSeconds(1);
  private static final int MIB = 1024 * 1024;

  private ApiBoundary start(Duration bodyDeadline, BufferedBytes bodies, Duration idle)
      throws IOException {
    ApiUpstream to = new ApiUpstream(upstream.base(), upstream.base(), null);
    return ApiBoundary.start(new ApiBoundary.Shared(to, (q, p) -> approver.ask(q, p),
        records -> { },
        UpstreamClient.start(to, null, UpstreamClient.ANSWER_TIMEOUT), Clock.systemUTC()),
        bodyDeadline, bodies, idle);
  }

  /** The listener again, with another body deadline, budget for every run and idle timeout. */
  private void restart(Duration bodyDeadline, BufferedBytes bodies, Duration idle)
      throws IOException {
    listener.close();
    listener = start(bodyDeadline, bodies, idle);
  }

  @AfterEach
  void stop() throws IOException {
    answersGo.countDown();
    for (Socket s : open) {
      s.close();
    }
    listener.close();
    upstream.close();
    readers.shutdownNow();
  }

  /**
   * apidos: 4 runs holding 16 calls GitHub never answers, then 16 runs holding 4, took all 128
   * slots: a 21st run's call was answered 429 until one of theirs ended. Now the busy share (4)
   * holds only up to the last 32 slots, which go to runs holding none, one each; the 21st run's
   * call is answered.
   */
  @Test
  void twentyRunsWhoseCallsNeverEndLeaveASlotForAnotherRunsCall() throws Exception {
    Run last = null;
    for (int i = 0; i < 20; i++) {
      Run run = open("run-" + i, Decision.ALLOW);
      int held = 0;
      for (int c = 0; c < (i < 4 ? ApiBoundary.MAX_CALLS : ApiBoundary.BUSY_SHARE); c++) {
        Call call = sendWatched(run, "/never");
        if (call.answer().isDone()) {
          assertThat(call.answer().get()).startsWith("HTTP/1.1 429 ").contains(
              "\"message\":\"pushgate is busy with other runs' GitHub API calls (this run has "
                  + held + " in progress); retry after 5 s\"");
        } else {
          held++;
        }
      }
      // half the slots to the first 4 runs, the busy share to the next 8, then one a run
      assertThat(held).as(run.id()).isEqualTo(i < 4 ? ApiBoundary.MAX_CALLS
          : i < 12 ? ApiBoundary.BUSY_SHARE : 1);
      last = run;
    }

    String refused = readAnswer(send(last, "/repos/acme/app"));
    assertThat(refused).startsWith("HTTP/1.1 429 ").contains("Retry-After: 5")
        .contains("\"message\":\"pushgate is busy with other runs' GitHub API calls (this run has"
            + " 1 in progress); retry after 5 s\"");

    int held = upstream.received().size();
    String answered = readAnswer(send(open("run-20", Decision.ALLOW), "/repos/acme/app"));
    assertThat(answered).startsWith("HTTP/1.1 200 ").endsWith("{}");
    assertThat(upstream.received()).hasSize(held + 1);
  }

  /**
   * apidos: a call held its slot while its body arrived, and a body dripped a byte at a time
   * within the idle timeout held it for as long as the client liked: a run's 16 such calls
   * refused its every other call. Now the body is read before the call takes a slot, on no
   * thread, and a body not all in by the body deadline is answered 408 however it is paced;
   * nothing of it goes to GitHub.
   */
  @Test
  void bodiesDrippedPastTheDeadlineHoldNoSlotAndAreCutAtIt() throws Exception {
    Run run = open("run-a", Decision.ALLOW);
    List<Call> dripped = new ArrayList<>();
    for (int c = 0; c < ApiBoundary.MAX_CALLS; c++) {
      SSLSocket s = connect(run);
      s.getOutputStream().write(("POST /repos/acme/app/issues HTTP/1.1\r\n"
          + "Host: api.github.com\r\nAuthorization: token " + run.sentinel() + "\r\n"
          + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
          .getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      dripped.add(new Call(s, CompletableFuture.supplyAsync(() -> answerOf(s), readers)));
    }
    // A byte every 100 ms on each: well within the 30 s idle timeout, never the whole body.
    Thread drip = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        for (Call call : dripped) {
          try {
            call.socket().getOutputStream().write(' ');
            call.socket().getOutputStream().flush();
          } catch (IOException closed) {
            // answered and closed: nothing more to drip on it
          }
        }
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    drip.start();
    try {
      assertThat(readAnswer(send(run, "/repos/acme/app"))).as("the run's next call")
          .startsWith("HTTP/1.1 200 ");
      for (Call call : dripped) {
        assertThat(call.answer().get(DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
            .startsWith("HTTP/1.1 408 ").contains("Connection: close").contains(
                "\"message\":\"pushgate reads a call's whole body within 1 s of its head, and"
                    + " this one's had not all arrived: send the body at once, with the"
                    + " request\"");
      }
    } finally {
      drip.interrupt();
      drip.join();
    }
    assertThat(upstream.received()).extracting(FakeUpstream.Received::head)
        .allMatch(h -> h.startsWith("GET /repos/acme/app ")).hasSize(1);
    assertThat(listener.callsInProgress(run.id())).isZero();
  }

  /**
   * A body that comes in parts is read on the thread its last part came on, which then takes
   * the slot, judges the call and waits for GitHub's answer.
   */
  @Test
  void aBodyThatArrivesInPartsIsSentWholeAndItsAnswerCopiedBack() throws Exception {
    Run run = open("run-a", Decision.ALLOW);
    SSLSocket s = connect(run);
    s.getOutputStream().write(("POST /repos/acme/app/issues HTTP/1.1\r\n"
        + "Host: api.github.com\r\nAuthorization: token " + run.sentinel() + "\r\n"
        + "Content-Type: application/json\r\nContent-Length: 13\r\nConnection: close\r\n\r\n"
        + "{\"title\":").getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    Call call = new Call(s, CompletableFuture.supplyAsync(() -> answerOf(s), readers));
    s.getOutputStream().write("\"a\"}".getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();

    assertThat(call.answer().get(DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
        .startsWith("HTTP/1.1 200 ").endsWith("{}");
    assertThat(upstream.received()).extracting(FakeUpstream.Received::body)
        .containsExactly("{\"title\":\"a\"}");
    await(() -> listener.callsInProgress(run.id()) == 0, "the call's slot is given back");
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

  /**
   * attack36: an asked call is given up at the listener's 30 s idle timeout while its approver
   * is still deciding (the keepalives going): the connection is closed with no answer and the
   * question withdrawn, though the docs hold it until the question's timeout (5 min by default).
   * An approver who allows after several idle timeouts (here the listener's is 1 s, so that
   * the test takes 4 s, not 32) must see the call sent and its answer reach the run.
   */
  @Test
  void anAskedCallOutlivesTheIdleTimeoutWhileItsApproverDecides() throws Exception {
    restart(BODY_DEADLINE, BufferedBytes.sizedFor(Runtime.getRuntime().maxMemory()), SHORT_IDLE);
    Duration deciding = SHORT_IDLE.multipliedBy(4);
    approver = (question, progress) -> {
      asked.incrementAndGet();
      long end = System.nanoTime() + deciding.toNanos();
      try {
        while (System.nanoTime() < end) {
          progress.accept("still deciding");
          Thread.sleep(250);
        }
      } catch (InterruptedException e) {
        withdrawn.incrementAndGet();
        return Approvals.ApprovalAnswer.refuse(RefusalCode.APPROVAL_CANCELLED, "withdrawn");
      }
      return Approvals.ApprovalAnswer.allow("alice");
    };
    Run run = open("run-a", Decision.ASK);
    Socket call = send(run, "/repos/acme/app");
    call.setSoTimeout(60_000);
    assertThat(readAnswer(call)).as("the call's answer after an approval of four idle timeouts")
        .startsWith("HTTP/1.1 200 ");
    assertThat(withdrawn.get()).isZero();
  }

  /**
   * attack36: bodies are read before a slot, and the only bound on them was each run's 20 MiB:
   * ~40 runs each holding two 10 MiB bodies (all but the last byte) took a 1 GiB heap to
   * OutOfMemoryError. Now every run's bodies together take at most the listener's budget, a
   * declared length all of it before a byte is held; a body past it is answered 429 with
   * Retry-After, and the budget is given back however each call ends: answered, its client gone,
   * cut at the body deadline.
   */
  @Test
  void everyRunsBodiesTogetherStayWithinTheListenersBudgetAndItIsGivenBackHoweverTheyEnd()
      throws Exception {
    restart(Duration.ofSeconds(10), new BufferedBytes(4L * MIB), ApiBoundary.IDLE_TIMEOUT);
    List<Call> held = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      SSLSocket s = post(open("run-" + i, Decision.ALLOW), MIB);
      s.getOutputStream().write(new byte[MIB - 1]); // all but the last byte
      s.getOutputStream().flush();
      held.add(new Call(s, CompletableFuture.supplyAsync(() -> answerOf(s), readers)));
    }
    await(() -> listener.bufferedBytes() == 4L * MIB, "four runs' bodies are held");

    for (int i = 4; i < 8; i++) {
      // Refused at its head: its declared length is taken before any of it is held.
      assertThat(readAnswer(post(open("run-" + i, Decision.ALLOW), MIB))).as("run-" + i)
          .startsWith("HTTP/1.1 429 ").contains("Retry-After: 5").contains("\"message\":"
              + "\"pushgate is holding as many request bodies as it can for every run together;"
              + " retry after 5 s, or send a smaller body\"");
      assertThat(listener.bufferedBytes()).isEqualTo(4L * MIB);
    }

    held.get(0).socket().getOutputStream().write('x'); // whole: judged and sent
    held.get(0).socket().getOutputStream().flush();
    assertThat(held.get(0).answer().get(DEADLINE.toSeconds(),
        java.util.concurrent.TimeUnit.SECONDS)).startsWith("HTTP/1.1 200 ");
    held.get(1).socket().close(); // its client gone
    for (Call cut : held.subList(2, 4)) {
      assertThat(cut.answer().get(DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
          .startsWith("HTTP/1.1 408 ");
    }
    await(() -> listener.bufferedBytes() == 0, "every body's bytes are given back");
    assertThat(upstream.received()).extracting(r -> r.body().length()).containsExactly(MIB);
  }

  /**
   * A body of no declared length takes every run's budget as it grows (and its length again
   * while its chunks are joined into one): one that outgrows it is answered 429, one within it is
   * sent whole; both give it all back.
   */
  @Test
  void aChunkedBodyTakesTheListenersBudgetAsItGrowsAndGivesItBack() throws Exception {
    restart(Duration.ofSeconds(10), new BufferedBytes(MIB), ApiBoundary.IDLE_TIMEOUT);
    Run run = open("run-a", Decision.ALLOW);

    SSLSocket over = chunkedPost(run);
    // 1 MiB and a chunk: the last one is refused, and the answer may come and the connection
    // close while that chunk is still being written (a broken pipe, CI under load): the chunks
    // are written beside the read of the answer, and a write the refusal cut short is expected.
    java.util.concurrent.CompletableFuture.runAsync(() -> {
      try {
        sendChunks(over, 17, 64 * 1024);
      } catch (IOException refusedMidway) {
        // the server answered and closed
      }
    });
    // The budget is smaller than a run's own bound: it is the run's bound here.
    assertThat(readAnswer(over)).startsWith("HTTP/1.1 429 ").contains("\"message\":\"pushgate"
        + " is already holding " + MIB + " bytes of this run's request bodies; send fewer large"
        + " calls at once\"");
    await(() -> listener.bufferedBytes() == 0, "the refused body's bytes are given back");

    SSLSocket within = chunkedPost(run);
    sendChunks(within, 3, 100 * 1024);
    within.getOutputStream().write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    within.getOutputStream().flush();
    assertThat(readAnswer(within)).startsWith("HTTP/1.1 200 ");
    assertThat(upstream.received()).extracting(r -> r.body().length())
        .containsExactly(300 * 1024);
    await(() -> listener.bufferedBytes() == 0, "the sent body's bytes are given back");
  }

  /**
   * The upstream side of attack36: a call whose GitHub answers later than the listener's idle
   * timeout gets that answer (the docs give GitHub 2 min), and a connection idle between calls
   * is still closed at the idle timeout.
   */
  @Test
  void aCallOutlivesTheIdleTimeoutWhileGitHubAnswersAndAnIdleConnectionStillCloses()
      throws Exception {
    restart(BODY_DEADLINE, new BufferedBytes(4L * MIB), SHORT_IDLE);
    Run run = open("run-a", Decision.ALLOW);
    assertThat(readAnswer(send(run, "/slow"))).as("GitHub's answer after " + SLOW_ANSWER)
        .startsWith("HTTP/1.1 200 ").endsWith("{}");

    SSLSocket kept = connect(run);
    kept.getOutputStream().write(("GET /repos/acme/app HTTP/1.1\r\nHost: api.github.com\r\n"
        + "Authorization: token " + run.sentinel() + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    kept.getOutputStream().flush();
    // Read to the close: the answer, then the listener closing the idle connection (or the
    // socket's 30 s timeout, failing the test).
    assertThat(readAnswer(kept)).startsWith("HTTP/1.1 200 ").endsWith("{}");
  }

  /**
   * Issue 35's review: the body budget had no share per run. With the installed unit's 128 MiB, 7
   * runs holding their 20 MiB each (their bodies declared and never sent, until the body
   * deadline) filled it, and every other run's call with a body was answered 429 meanwhile. Now
   * a run's share shrinks as the budget fills, as the call slots' does: the first runs get their
   * 20 MiB while less than half is held, then one 10 MiB body each, and the last quarter takes
   * none of theirs, so another run's JSON call is sent. The run's own 20 MiB still holds.
   */
  @Test
  void aFewRunsHoldingTheirWholeBodyBoundLeaveRoomForOtherRunsCalls() throws Exception {
    restart(Duration.ofSeconds(20), new BufferedBytes(128L * MIB), ApiBoundary.IDLE_TIMEOUT);
    int body = ApiBoundary.MAX_BODY;
    List<String> refused = new ArrayList<>();
    long held = 0;
    for (int i = 0; i < 7; i++) {
      Run run = open("run-" + i, Decision.ALLOW);
      // Two bodies of the largest judged, and the last run what would fill the budget exactly.
      for (int length : i < 6 ? List.of(body, body) : List.of(8 * MIB)) {
        SSLSocket s = post(run, length);
        long before = held;
        CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> answerOf(s),
            readers);
        await(() -> answer.isDone() || listener.bufferedBytes() == before + length,
            run.id() + "'s body is held or refused");
        if (answer.isDone()) {
          refused.add(run.id() + ": " + answer.get());
        } else {
          held += length;
        }
      }
    }
    assertThat(held).as("three runs' 20 MiB, then a body each for two more").isEqualTo(90L * MIB);
    // run-3, run-4 and run-5 their second body (past half, a run's share is one body), run-6 all
    assertThat(refused).hasSize(4).allSatisfy(a -> assertThat(a).contains("HTTP/1.1 429 ")
        .contains("Retry-After: 5").contains("\"message\":\"pushgate is holding the request"
            + " bodies of many runs at once, and this body is more than this run's share of"
            + " what is left (it holds "));

    String other = readAnswer(postWhole(open("run-7", Decision.ALLOW), "{\"title\":\"a\"}"));
    assertThat(other).as("another run's JSON call").startsWith("HTTP/1.1 200 ");
    assertThat(upstream.received()).extracting(FakeUpstream.Received::body)
        .containsExactly("{\"title\":\"a\"}");

    // Every held body's connection closes with the listener: the budget starts again empty.
    restart(Duration.ofSeconds(20), new BufferedBytes(128L * MIB), ApiBoundary.IDLE_TIMEOUT);
    Run first = open("run-0b", Decision.ALLOW);
    for (int c = 0; c < 2; c++) {
      post(first, body);
    }
    long twoBodies = 2L * body;
    await(() -> listener.bufferedBytes() == twoBodies, "the run's 20 MiB are held");
    assertThat(readAnswer(post(first, 1))).as("the run's own bound, the budget nearly empty")
        .startsWith("HTTP/1.1 429 ").contains("\"message\":\"pushgate is already holding "
            + ApiBoundary.BUFFERED_BYTES + " bytes of this run's request bodies; send fewer"
            + " large calls at once\"");
  }

  /**
   * Issue 35's review: an answer the boundary reads for download links was read with no bound:
   * 16 contents reads of a 14 MB file at once took the heap. Now what the reader holds of each
   * answer (the value it is reading) is taken from the run's share of the buffered bytes as it is
   * read: a run whose answers hold more than its share gets 503 with Retry-After for the next,
   * nothing of that answer passed on, while another run's answer is read; the others are passed
   * on whole, their links' tokens stripped, and every byte is given back. The answers carry no
   * length: they end when GitHub closes.
   */
  @Test
  void answersReadForLinksTakeTheRunsShareOfTheBufferedBytesAndAreRefusedPastIt()
      throws Exception {
    restart(BODY_DEADLINE, new BufferedBytes(32L * MIB), ApiBoundary.IDLE_TIMEOUT);
    valueBytes = 768 * 1024; // counted four times over: 3 MiB held by each answer
    Run a = open("run-a", Decision.ALLOW);
    Run b = open("run-b", Decision.ALLOW);
    List<Call> held = new ArrayList<>();
    for (int c = 0; c < 5; c++) { // 15 MiB: less than half of 32
      held.add(sendWatched(a, "/repos/acme/app/contents/f" + c));
      int answers = held.size();
      await(() -> listener.bufferedBytes() > (answers * 3L - 1) * MIB, "answer " + answers
          + " is being read");
    }
    String sixth = readAnswer(send(a, "/repos/acme/app/contents/f5"));
    assertThat(sixth).startsWith("HTTP/1.1 503 ").contains("Retry-After: 5")
        .contains("\"message\":\"pushgate is reading as many GitHub answers and holding as many"
            + " request bodies as it can for this run or every run together; retry after 5 s\"")
        .doesNotContain("AAAA").doesNotContain("SECRET");
    held.add(sendWatched(b, "/repos/acme/app/contents/g"));
    await(() -> listener.bufferedBytes() > 17L * MIB, "run-b's answer is being read");

    answersGo.countDown();
    for (int i = 0; i < held.size(); i++) {
      String answer = held.get(i).answer().get(DEADLINE.toSeconds(),
          java.util.concurrent.TimeUnit.SECONDS);
      assertThat(answer).as("answer " + i).startsWith("HTTP/1.1 200 ");
      assertThat(dechunked(answer)).contains("\"content\":\"" + "A".repeat(valueBytes) + "\"")
          .contains("\"download_url\":\"https://raw.githubusercontent.com/acme/app/main/f\"")
          .doesNotContain("SECRET");
    }
    await(() -> listener.bufferedBytes() == 0, "every answer's bytes are given back");
  }

  /** A value longer than the boundary reads is not passed on, nor any of its answer. */
  @Test
  void anAnswerWithAValueLongerThanPushgateReadsIsNotPassedOn() throws Exception {
    valueBytes = CountedAnswer.MAX_VALUE + 1;
    answersGo.countDown();
    String answer = readAnswer(send(open("run-a", Decision.ALLOW),
        "/repos/acme/app/contents/big"));
    assertThat(answer).startsWith("HTTP/1.1 502 ").contains("\"message\":\"GitHub's answer holds"
        + " a value longer than the 2097152 bytes pushgate reads for download links, so none of"
        + " it is passed on (a file's bytes: ask for Accept: application/vnd.github.raw)\"")
        .doesNotContain("AAAA");
    await(() -> listener.bufferedBytes() == 0, "the answer's bytes are given back");
  }

  /**
   * A compressed answer of a route read for links is neither decoded (a gzip bomb inflates
   * nowhere) nor passed on: its links could not be read.
   */
  @Test
  void aCompressedAnswerOfARouteReadForLinksIsNotPassedOn() throws Exception {
    String answer = readAnswer(send(open("run-a", Decision.ALLOW),
        "/repos/acme/app/contents/gzip"));
    assertThat(answer).startsWith("HTTP/1.1 502 ").contains("\"message\":\"GitHub's answer is"
        + " compressed (Content-Encoding), and pushgate reads this route's answer for its"
        + " download links and decodes none\"");
  }

  /** Bytes of the {@code content} value GitHub's contents answers carry here. */
  private volatile int valueBytes = 16;
  /** Opened to let the contents answers end: until then each stops inside its value. */
  private final java.util.concurrent.CountDownLatch answersGo =
      new java.util.concurrent.CountDownLatch(1);

  /**
   * A contents answer of no declared length: a file whose {@code content} is {@link
   * #valueBytes} bytes, sent up to its end, the rest (and a download link with a token) once
   * {@link #answersGo} opens. {@code /contents/gzip} answers compressed, as asked not to.
   */
  private boolean contentsAnswer(FakeUpstream.Received r, java.io.OutputStream out)
      throws IOException {
    if (r.head().startsWith("GET /repos/acme/app/contents/gzip ")) {
      ByteArrayOutputStream gz = new ByteArrayOutputStream();
      try (java.util.zip.GZIPOutputStream z = new java.util.zip.GZIPOutputStream(gz)) {
        z.write(new byte[1 << 20]);
      }
      out.write(("HTTP/1.1 200 X\r\nContent-Type: application/json\r\nContent-Encoding: gzip"
          + "\r\nContent-Length: " + gz.size() + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.write(gz.toByteArray());
      out.flush();
      return true;
    }
    out.write(("HTTP/1.1 200 X\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
        + "{\"type\":\"file\",\"encoding\":\"base64\",\"content\":\"" + "A".repeat(valueBytes))
        .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    try {
      answersGo.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    out.write(("\",\"download_url\":\"https://raw.githubusercontent.com/acme/app/main/f"
        + "?token=SECRET\"}").getBytes(StandardCharsets.US_ASCII));
    out.flush();
    return false;
  }

  /** The body of a chunked answer, its chunks joined. */
  private static String dechunked(String answer) {
    String rest = answer.substring(answer.indexOf("\r\n\r\n") + 4);
    StringBuilder body = new StringBuilder();
    while (true) {
      int line = rest.indexOf("\r\n");
      int size = Integer.parseInt(rest.substring(0, line).trim(), 16);
      if (size == 0) {
        return body.toString();
      }
      body.append(rest, line + 2, line + 2 + size);
      rest = rest.substring(line + 2 + size + 2);
    }
  }

  /** A POST of {@code json}, whole, on a new connection of {@code run}. */
  private SSLSocket postWhole(Run run, String json) throws Exception {
    SSLSocket s = post(run, json.getBytes(StandardCharsets.UTF_8).length);
    s.getOutputStream().write(json.getBytes(StandardCharsets.UTF_8));
    s.getOutputStream().flush();
    return s;
  }

  /** A POST of a {@code length}-byte body on a new connection of {@code run}: its head only. */
  private SSLSocket post(Run run, int length) throws Exception {
    SSLSocket s = connect(run);
    s.getOutputStream().write(("POST /repos/acme/app/issues HTTP/1.1\r\n"
        + "Host: api.github.com\r\nAuthorization: token " + run.sentinel() + "\r\n"
        + "Content-Type: application/json\r\nContent-Length: " + length
        + "\r\nConnection: close\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    return s;
  }

  /** A POST of a chunked body on a new connection of {@code run}: its head only. */
  private SSLSocket chunkedPost(Run run) throws Exception {
    SSLSocket s = connect(run);
    s.getOutputStream().write(("POST /repos/acme/app/issues HTTP/1.1\r\n"
        + "Host: api.github.com\r\nAuthorization: token " + run.sentinel() + "\r\n"
        + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
        + "Connection: close\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    return s;
  }

  private static void sendChunks(Socket s, int chunks, int size) throws IOException {
    for (int c = 0; c < chunks; c++) {
      s.getOutputStream().write((Integer.toHexString(size) + "\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().write(new byte[size]);
      s.getOutputStream().write("\r\n".getBytes(StandardCharsets.US_ASCII));
    }
    s.getOutputStream().flush();
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

  /** A call sent and left open, and its answer as it comes. */
  private record Call(Socket socket, CompletableFuture<String> answer) {}

  /** Reads the answers of calls left open; a held call's reader waits until the test ends. */
  private final ExecutorService readers = Executors.newCachedThreadPool();

  /**
   * A GET of {@code path} on a new connection of {@code run}, once the boundary has decided it:
   * it answered it, or GitHub has it.
   */
  private Call sendWatched(Run run, String path) throws Exception {
    int before = upstream.received().size();
    Socket s = send(run, path);
    Call call = new Call(s, CompletableFuture.supplyAsync(() -> answerOf(s), readers));
    await(() -> call.answer().isDone() || upstream.received().size() > before,
        "the call is answered or reaches GitHub");
    return call;
  }

  private static String answerOf(Socket s) {
    try {
      return readAnswer(s);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** A GET of {@code path} on a new connection of {@code run}, sent and left open. */
  private Socket send(Run run, String path) throws Exception {
    SSLSocket s = connect(run);
    s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: api.github.com\r\n"
        + "Authorization: token " + run.sentinel() + "\r\nConnection: close\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    return s;
  }

  /** A new TLS connection of {@code run}, as its proxy opens it. */
  private SSLSocket connect(Run run) throws Exception {
    Socket plain = new Socket(listener.address().getAddress(), listener.address().getPort());
    open.add(plain);
    plain.getOutputStream().write(dev.pushgate.types.BoundaryHandle.proxyHeader(
        run.boundary().handle()));
    SSLSocket s = OneRunBoundary.tlsOver(plain, ca, "api.github.com");
    open.add(s);
    s.setSoTimeout((int) DEADLINE.toMillis());
    s.startHandshake();
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
