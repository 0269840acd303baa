package dev.pushgate.gateway;

import jakarta.servlet.ServletRequest;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.EndPoint;

/**
 * Whether the client of a request has gone: Jetty reported the request failed (the connection
 * closed or timed out) or the connection's end point is no longer open. A judgement nobody waits
 * for is abandoned on it (see {@link JudgementBudget}) rather than holding a core for minutes.
 */
final class ClientGone {
  private ClientGone() {}

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
    AtomicBoolean failed = new AtomicBoolean();
    jetty.addFailureListener(t -> failed.set(true));
    EndPoint endPoint = jetty.getConnectionMetaData().getConnection().getEndPoint();
    return () -> failed.get() || !endPoint.isOpen();
  }
}
