package dev.pushgate.gateway.api;

import dev.pushgate.gateway.ClientGone;
import dev.pushgate.gateway.RunShares;
import dev.pushgate.gateway.RunSlots;
import dev.pushgate.gateway.WriteTokenLease;
import dev.pushgate.types.BoundedBody;
import dev.pushgate.types.Secret;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * One call across a run's API boundary, from its arrival to its answer: the request as received,
 * and what the steps learn of it in turn (its body, the call the judge read, the judgement, the
 * request for upstream). It holds what must be given back however the call ends, the bytes it
 * buffers (its body, its answer's values read for links), its call slot and a write token, until
 * {@link #close}; and what its whole answer, GitHub's or the boundary's own error, holds until
 * Jetty has written it ({@link #writeWhole}).
 */
final class ApiExchange implements AutoCloseable {
  final Request request;
  final Response response;
  final Callback callback;
  /** When the call arrived: its audit records how long the boundary took. */
  final long started = System.nanoTime();
  final String host;
  final String method;
  /** As sent, still percent-encoded: the judge and upstream read the same bytes. */
  final String path;
  final String query;
  /**
   * True once the run's client has gone (its connection closed): a call waiting on GitHub or an
   * approver is then given up, so that it holds no thread, slot or question for nobody.
   */
  final ClientGone clientGone;

  private final String runId;
  private final BufferedBytes buffered;
  /** The listener's call slots: the call's own, or one its answer takes ({@link #writeWhole}). */
  private final RunSlots slots;
  /** Guarded by this: the body is read on Jetty's threads, the deadline may close the call. */
  private int heldBytes;
  /** Why bytes were last refused; null while none were. */
  private RunShares.Take refused;
  private boolean closed;
  private RunSlots.Slot slot;
  /** The call's whole answer waits in Jetty for the run to read it, holding the call's slot. */
  private boolean slotKeptForAnswer;
  private byte[] body = new byte[0];
  private ApiCall call;
  private ApiJudgement judgement;
  private WriteTokenLease lease;
  private Secret token;
  private org.eclipse.jetty.client.Request upstream;

  ApiExchange(Request request, Response response, Callback callback, String runId,
      ApiBoundary.Admission admission) {
    this.request = request;
    this.response = response;
    this.callback = callback;
    this.runId = runId;
    this.buffered = admission.bodies();
    this.slots = admission.slots();
    this.host = Request.getServerName(request);
    this.method = request.getMethod();
    this.path = request.getHttpURI().getPath() == null ? "/" : request.getHttpURI().getPath();
    this.query = request.getHttpURI().getQuery();
    this.clientGone = ClientGone.of(request, response);
  }

  /**
   * The budget the call's body is read against: the bytes every run's calls buffer ({@link
   * BufferedBytes}), of which the run's share, each byte taken before it is held. A body's bytes
   * are refused at once (429).
   */
  BoundedBody.Budget bodyBudget() {
    return budget(Duration.ZERO);
  }

  /**
   * The same budget for the values of the call's answer read for links ({@link CountedAnswer}):
   * a value the run has half of waits up to {@link #ANSWER_WAIT} for other calls to give bytes
   * back, rather than fail the answer at once.
   */
  BoundedBody.Budget answerBudget() {
    return budget(ANSWER_WAIT);
  }

  /** How long an answer's value waits for bytes; past it the answer is refused (503). */
  static final Duration ANSWER_WAIT = Duration.ofSeconds(ApiBoundary.RETRY_AFTER_SECONDS);

  private BoundedBody.Budget budget(Duration maxWait) {
    return new BoundedBody.Budget() {
      @Override
      public boolean take(int bytes) {
        return hold(bytes, maxWait);
      }

      @Override
      public void give(int bytes) {
        giveBack(bytes);
      }
    };
  }

  /**
   * Counts {@code n} more bytes against the run's share of the buffered bytes; false when it
   * has not them (within {@code maxWait}), or when the call has ended (its body's deadline passed
   * while a chunk was arriving). The wait holds no lock of the call's: it may close meanwhile.
   */
  private boolean hold(int n, Duration maxWait) {
    synchronized (this) {
      if (closed) {
        return false;
      }
    }
    RunShares.Take t;
    try {
      t = buffered.take(runId, n, maxWait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    synchronized (this) {
      if (t != RunShares.Take.TAKEN) {
        refused = t;
        return false;
      }
      if (closed) {
        buffered.give(runId, n);
        return false;
      }
      heldBytes += n;
      return true;
    }
  }

  private synchronized void giveBack(int n) {
    int given = Math.min(n, heldBytes);
    heldBytes -= given;
    buffered.give(runId, given);
  }

  /** Why bytes were last refused ({@link RunShares.Take}); null while none were. */
  synchronized RunShares.Take refused() {
    return refused;
  }

  /** Bytes the run's calls hold buffered now, this one's among them. */
  long runHolds() {
    return buffered.held(runId);
  }

  /** The most the run's calls may hold buffered, whatever other runs hold. */
  long runMayHold() {
    return buffered.perRun();
  }

  /**
   * Writes the call's whole answer: its head as set on {@link #response} and {@code body}, in one
   * piece, whether GitHub's ({@link Forward}) or the boundary's own error ({@link GitHubError}).
   * Jetty holds what it has not written until the run reads it (one that reads none: until the
   * idle timeout), after the call has ended: those bytes, the head's with the body's, are taken
   * from the run's share of the buffered bytes until the write completes, however it does
   * (written, failed, the connection closed, aborted or idle). With no room for them the call's
   * slot is kept until then instead, as a streamed answer keeps it while it is written; a call
   * refused before it took one (a 401, a 429 of the slots or of the bytes) takes one for its
   * answer. A run that has neither, all of both held by answers it has not read, gets none: its
   * connection is closed unanswered. Either way what waits for a run to read it is within a bound
   * of the boundary's. Never waits: it may run on the upstream client's thread ({@link
   * AnswerOnArrival}), a selector's or the body deadline's timer.
   */
  void writeWhole(ByteBuffer body) {
    int held = body.remaining() + headBytes();
    if (takeNow(held)) {
      response.write(true, body, afterWrite(() -> buffered.give(runId, held)));
    } else if (keepSlotForAnswer()) {
      response.write(true, body, afterWrite(this::answerGone));
    } else {
      closeUnanswered(response.getStatus());
    }
  }

  /**
   * What Jetty holds of the answer's head, as near as can be told before it is written: the
   * headers set, and the status line and what Jetty adds ({@code Date}, {@code Content-Length},
   * {@code Connection}).
   */
  private int headBytes() {
    int n = HEAD_JETTY_WRITES;
    for (HttpField f : response.getHeaders()) {
      n += f.getName().length() + String.valueOf(f.getValue()).length() + 4; // ": ", CRLF
    }
    return n;
  }

  /** The status line, {@code Date}, {@code Content-Length}, {@code Connection}, the blank line. */
  static final int HEAD_JETTY_WRITES = 128;

  /** Keeps the call's slot, or takes one for its answer, until the answer is written. */
  private synchronized boolean keepSlotForAnswer() {
    if (slot == null) {
      Optional<RunSlots.Slot> s = slots.tryTake(runId);
      if (s.isEmpty()) {
        return false;
      }
      slot = s.get();
    }
    slotKeptForAnswer = true;
    return true;
  }

  /**
   * Ends the call with no answer and closes its connection, so Jetty writes none of its own
   * either: the run's calls and unread answers hold all it may have of the buffered bytes and of
   * the slots.
   */
  private void closeUnanswered(int status) {
    ApiBoundary.LOG.info("run {}: {} {} not answered {}, its connection closed: the run's calls"
        + " and the answers it has not read hold all it may have of the buffered bytes and of the"
        + " call slots", runId, method, path, status);
    // Quiet: Jetty then neither logs it nor writes an error page of its own.
    EofException why = new EofException("the run holds all it may of unread answers");
    request.getConnectionMetaData().getConnection().getEndPoint().close(why);
    callback.failed(why);
  }

  private boolean takeNow(int bytes) {
    try {
      return buffered.take(runId, bytes, Duration.ZERO) == RunShares.Take.TAKEN;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** The call's callback, {@code release} run first: the next call then finds what it held. */
  private Callback afterWrite(Runnable release) {
    return new Callback.Nested(callback) {
      @Override
      public void succeeded() {
        release.run();
        super.succeeded();
      }

      @Override
      public void failed(Throwable x) {
        release.run();
        super.failed(x);
      }
    };
  }

  private synchronized void answerGone() {
    slotKeptForAnswer = false;
    if (closed) {
      releaseSlot();
    }
  }

  private synchronized void releaseSlot() {
    if (slot != null) {
      slot.close();
    }
  }

  /** Holds one of the listener's call slots until the call ends. */
  synchronized void slot(RunSlots.Slot s) {
    slot = s;
  }

  void body(byte[] bytes) {
    body = bytes;
  }

  byte[] body() {
    return body;
  }

  /** The call as the judge reads it, made once from what was received. */
  ApiCall call() {
    if (call == null) {
      call = new ApiCall(method, host.toLowerCase(Locale.ROOT), path, query,
          request.getHeaders().get(HttpHeader.CONTENT_TYPE), body,
          String.join(",", request.getHeaders().getValuesList(HttpHeader.ACCEPT)));
    }
    return call;
  }

  void judgement(ApiJudgement j) {
    judgement = j;
  }

  /** What the judge decided; null until the call was judged. */
  ApiJudgement judgement() {
    return judgement;
  }

  /** Holds a write token, the one the call is sent with, until it is revoked or the call ends. */
  void lease(WriteTokenLease l) {
    lease = l;
    token = l.token();
  }

  /** Whether the call holds a write token ({@link #lease}) not revoked yet. */
  boolean holdsWriteToken() {
    return lease != null;
  }

  /** Sends the call with the run's read token. */
  void token(Secret t) {
    token = t;
  }

  /** The real token the call is sent with; null until one is in hand. */
  Secret token() {
    return token;
  }

  /** Revokes the call's write token, if it holds one; once. */
  void revokeToken() {
    if (lease != null) {
      WriteTokenLease l = lease;
      lease = null;
      l.close();
    }
  }

  void upstream(org.eclipse.jetty.client.Request r) {
    upstream = r;
  }

  /** The request made ready for upstream, with the real token; null until then. */
  org.eclipse.jetty.client.Request upstream() {
    return upstream;
  }

  @Override
  public void close() {
    try {
      revokeToken();
    } finally {
      synchronized (this) {
        closed = true;
        giveBack(heldBytes);
        if (!slotKeptForAnswer) {
          releaseSlot();
        }
      }
    }
  }
}
