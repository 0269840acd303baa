package dev.pushgate.gateway;

import jakarta.servlet.ServletRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.BufferUtil;

/**
 * Whether the client of a push, or of a GitHub API call, has gone: Jetty reported the request failed, the connection's end
 * point is closed, or the client closed its side of the connection while the push is judged.
 *
 * <p>Jetty does not read a connection while its handler runs, so it never sees a killed git's
 * FIN by itself, and a write does not tell either: JGit buffers the answer (up to 32 KiB) before
 * anything reaches the socket (docs/push-path.md, "The judge's budget"). So the judgement, which
 * asks at every step, looks at the connection itself, at most once a second ({@link #PROBE_EVERY_NANOS}): once
 * the request's body has ended (git sends nothing more until it has its answer), a non-blocking
 * read of the end point returns end of stream when the client has closed. Any byte that arrives
 * instead is not git's (git never sends a request before the answer to the last one), cannot be
 * given back to Jetty, and so closes the connection after the answer.
 *
 * <p>Only the judging thread calls the signal, and it is the request's own thread: nothing else
 * reads the connection meanwhile. Only an HTTP/1 connection is read so (the gateway serves no
 * other); a connection shared by several requests would give this one another's bytes.
 */
public final class ClientGone implements BooleanSupplier {
  /** How often the connection is looked at: a gone client's judgement ends within about this. */
  static final long PROBE_EVERY_NANOS = 1_000_000_000L;

  private final Request request;
  /** Marks the connection to be closed after the answer (a byte not the client's was read). */
  private final Runnable closeAfterAnswer;
  private final EndPoint endPoint;
  private final LongSupplier nanoTime;
  /** HTTP/1: the connection carries this request alone, so reading it takes nobody else's. */
  private final boolean ownConnection;
  private final AtomicBoolean failed = new AtomicBoolean();
  private final ByteBuffer probe = BufferUtil.allocate(1);
  private long lastProbe;
  private boolean bodyEnded;
  private boolean gone;

  private ClientGone(Request request, Runnable closeAfterAnswer, LongSupplier nanoTime) {
    this.request = request;
    this.closeAfterAnswer = closeAfterAnswer;
    this.endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
    this.nanoTime = nanoTime;
    HttpVersion version = request.getConnectionMetaData().getHttpVersion();
    this.ownConnection = version == HttpVersion.HTTP_1_1 || version == HttpVersion.HTTP_1_0;
    this.lastProbe = nanoTime.getAsLong() - PROBE_EVERY_NANOS;
    request.addFailureListener(t -> failed.set(true));
  }

  /** The signal for {@code req}; never true for a request Jetty did not serve (a test's). */
  static BooleanSupplier of(ServletRequest req) {
    ServletContextRequest jetty;
    try {
      jetty = ServletContextRequest.getServletContextRequest(req);
    } catch (IllegalStateException notJetty) {
      jetty = null;
    }
    if (jetty == null) {
      return () -> false; // the budget still bounds the judgement
    }
    ServletContextRequest servlet = jetty;
    return new ClientGone(jetty,
        () -> servlet.getHttpServletResponse().setHeader("Connection", "close"),
        System::nanoTime);
  }

  /** The signal for a request a core Jetty handler serves, answered by {@code response}. */
  public static ClientGone of(Request request, Response response) {
    return new ClientGone(request,
        () -> response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString()),
        System::nanoTime);
  }

  /**
   * Whether the client has gone, looking at the connection now however recently it was looked at:
   * before an act its client must still be there for (an approved call about to be sent).
   */
  public synchronized boolean goneNow() {
    lastProbe = nanoTime.getAsLong() - PROBE_EVERY_NANOS;
    return getAsBoolean();
  }

  @Override
  public synchronized boolean getAsBoolean() {
    if (gone || failed.get() || !endPoint.isOpen()) {
      return gone = true;
    }
    long now = nanoTime.getAsLong();
    if (!ownConnection || now - lastProbe < PROBE_EVERY_NANOS) {
      return false;
    }
    lastProbe = now;
    try {
      gone = bodyEnded ? closedAfterBody() : bodyEndedOrGone();
    } catch (IOException | RuntimeException e) {
      gone = true; // a connection that cannot be read has no one waiting on it
    }
    return gone;
  }

  /**
   * Reads what is left of the request's body without blocking: what JGit did not read is past
   * the pack (the end of a chunked body, or bytes git does not send). True when the body ended
   * in a failure: the client went before it had sent all of it.
   */
  private boolean bodyEndedOrGone() throws IOException {
    while (true) {
      Content.Chunk chunk = request.read();
      if (chunk == null) {
        return false; // nothing yet; the next probe reads again
      }
      try {
        if (Content.Chunk.isFailure(chunk)) {
          return true;
        }
        if (chunk.hasRemaining()) {
          closeAfterAnswer();
        }
        if (chunk.isLast()) {
          bodyEnded = true;
          return closedAfterBody();
        }
      } finally {
        chunk.release();
      }
    }
  }

  /** True when the client closed its side; a byte read instead closes after the answer. */
  private boolean closedAfterBody() throws IOException {
    BufferUtil.clear(probe);
    int n = endPoint.fill(probe);
    if (n > 0) {
      closeAfterAnswer();
    }
    return n < 0;
  }

  /** Jetty cannot be given back what was read; the connection is not used for another request. */
  private void closeAfterAnswer() {
    closeAfterAnswer.run(); // ignored once committed
  }
}
