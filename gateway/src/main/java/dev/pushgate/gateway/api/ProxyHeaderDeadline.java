package dev.pushgate.gateway.api;

import dev.pushgate.http.UnnamedAtAccept;
import dev.pushgate.types.UnnamedConnections;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.ProxyConnectionFactory;

/**
 * The boundary listener's PROXY header reader, with the bound and deadline of {@link
 * UnnamedConnections}: a connection is counted from its accept until {@link RunTlsConnections}
 * has read whose it is (or refused it), and closed if that has not happened within {@link
 * UnnamedConnections#DEADLINE}; over {@link UnnamedConnections#MAX} the oldest is closed for the
 * next.
 */
final class ProxyHeaderDeadline extends ProxyConnectionFactory {
  private final UnnamedAtAccept unnamed =
      new UnnamedAtAccept("GitHub API boundary", ApiBoundary.LOG::warn);

  ProxyHeaderDeadline(String nextProtocol) {
    super(nextProtocol);
  }

  @Override
  public Connection newConnection(Connector connector, EndPoint endPoint) {
    // the PROXY header as sent, for RunTlsConnections to read the handle from (ProxyHeaderTap)
    return unnamed.accept(connector, endPoint,
        () -> super.newConnection(connector, new ProxyHeaderTap(endPoint)));
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
