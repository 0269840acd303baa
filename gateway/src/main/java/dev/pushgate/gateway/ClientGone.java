package dev.pushgate.gateway;

import jakarta.servlet.ServletRequest;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.EndPoint;

/**
 * Whether the client of a request has gone, as far as Jetty knows: it reported the request failed
 * or the connection's end point is no longer open. A judgement is abandoned on it (see {@link
 * JudgementBudget}). Jetty learns of a closed connection only when it reads or writes it, which
 * it does not while a push is judged (docs/push-path.md, "The judge's budget"): this catches a
 * connection Jetty itself closed, not yet a git client killed mid-judgement.
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
