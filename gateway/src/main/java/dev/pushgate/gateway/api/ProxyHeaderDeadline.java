package dev.pushgate.gateway.api;

import dev.pushgate.types.UnnamedConnections;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.ProxyConnectionFactory;

/**
 * The boundary listener's PROXY header reader, with the bound and deadline of {@link
 * UnnamedConnections}: a connection is counted from its accept until {@link RunTlsConnections}
 * has read whose it is (or refused it), and closed if that has not happened within {@link
 * UnnamedConnections#DEADLINE}; over {@link UnnamedConnections#MAX} the next is closed at accept.
 */
final class ProxyHeaderDeadline extends ProxyConnectionFactory {
  private final UnnamedConnections unnamed = new UnnamedConnections();

  ProxyHeaderDeadline(String nextProtocol) {
    super(nextProtocol);
  }

  @Override
  public Connection newConnection(Connector connector, EndPoint endPoint) {
    if (!unnamed.admit(endPoint, endPoint::close, (delay, task) -> connector.getScheduler()
        .schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS))) {
      long refusals = unnamed.refusalToLog();
      if (refusals > 0) {
        ApiBoundary.LOG.warn(UnnamedConnections.refusedAtAccept("GitHub API boundary", refusals,
            endPoint.getRemoteSocketAddress()));
      }
      return new RunTlsConnections.Refused(endPoint, connector);
    }
    // the PROXY header as sent, for RunTlsConnections to read the handle from (ProxyHeaderTap)
    return super.newConnection(connector, new ProxyHeaderTap(endPoint));
  }

  /**
   * The connection accepted as {@code accepted} has said whose it is, or been refused for what
   * it said: no longer counted, no deadline.
   */
  void named(EndPoint accepted) {
    unnamed.named(accepted);
  }

  /** Connections held now that have not named a run. */
  int unnamed() {
    return unnamed.open();
  }

  /** Whether a refusal that names no run should be logged now, and for how many. */
  long refusalToLog() {
    return unnamed.refusalToLog();
  }
}
