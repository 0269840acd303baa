package dev.pushgate.gateway.api;

import dev.pushgate.gateway.ClientGone;
import dev.pushgate.gateway.RunSlots;
import dev.pushgate.gateway.WriteTokenLease;
import dev.pushgate.types.BoundedBody;
import dev.pushgate.types.Secret;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * One call across a run's API boundary, from its arrival to its answer: the request as received,
 * and what the steps learn of it in turn (its body, the call the judge read, the judgement, the
 * request for upstream). It holds what must be given back however the call ends, the body bytes
 * counted against the run's budget and every run's, its call slot and a write token, until
 * {@link #close}.
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

  private final Semaphore runBodies;
  private final BufferedBodies everyRunsBodies;
  /** Guarded by this: the body is read on Jetty's threads, the deadline may close the call. */
  private int heldBodyBytes;
  /** Which budget last refused body bytes: every run's (true) or the run's own. */
  private boolean overEveryRunsBodies;
  private boolean closed;
  private RunSlots.Slot slot;
  private byte[] body = new byte[0];
  private ApiCall call;
  private ApiJudgement judgement;
  private WriteTokenLease lease;
  private Secret token;
  private org.eclipse.jetty.client.Request upstream;

  ApiExchange(Request request, Response response, Callback callback, Semaphore runBodies,
      BufferedBodies everyRunsBodies) {
    this.request = request;
    this.response = response;
    this.callback = callback;
    this.runBodies = runBodies;
    this.everyRunsBodies = everyRunsBodies;
    this.host = Request.getServerName(request);
    this.method = request.getMethod();
    this.path = request.getHttpURI().getPath() == null ? "/" : request.getHttpURI().getPath();
    this.query = request.getHttpURI().getQuery();
    this.clientGone = ClientGone.of(request, response);
  }

  /**
   * The budget the call's body is read against: its run's buffered bytes and every run's
   * ({@link BufferedBodies}), each byte taken from both before it is held.
   */
  BoundedBody.Budget bodyBudget() {
    return new BoundedBody.Budget() {
      @Override
      public boolean take(int bytes) {
        return holdBodyBytes(bytes);
      }

      @Override
      public void give(int bytes) {
        giveBodyBytes(bytes);
      }
    };
  }

  /**
   * Counts {@code n} more body bytes against the run's budget and every run's; false when either
   * has not them, or when the call has ended (its body's deadline passed while a chunk was
   * arriving).
   */
  private synchronized boolean holdBodyBytes(int n) {
    if (closed) {
      return false;
    }
    if (!runBodies.tryAcquire(n)) {
      overEveryRunsBodies = false;
      return false;
    }
    if (!everyRunsBodies.tryTake(n)) {
      runBodies.release(n);
      overEveryRunsBodies = true;
      return false;
    }
    heldBodyBytes += n;
    return true;
  }

  private synchronized void giveBodyBytes(int n) {
    int given = Math.min(n, heldBodyBytes);
    heldBodyBytes -= given;
    runBodies.release(given);
    everyRunsBodies.give(given);
  }

  /** Whether the body was refused by every run's budget rather than its run's. */
  synchronized boolean overEveryRunsBodies() {
    return overEveryRunsBodies;
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
          request.getHeaders().get(HttpHeader.CONTENT_TYPE), body);
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
        giveBodyBytes(heldBodyBytes);
        if (slot != null) {
          slot.close();
        }
      }
    }
  }
}
