package dev.pushgate.sandbox;

import dev.pushgate.http.UnnamedAtAccept;
import dev.pushgate.types.UnnamedConnections;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP for a loopback proxy that wants a run's login, with the bound and deadline of {@link
 * UnnamedConnections}: a connection is counted from its accept until one of its requests has
 * shown a live run's login ({@link #loggedIn}), and closed if none has within {@link
 * UnnamedConnections#DEADLINE}; over {@link UnnamedConnections#MAX} the oldest is closed for the
 * next.
 * Anything on the host's loopback can connect here; only a run's login earns more time.
 */
final class LoginDeadline extends HttpConnectionFactory {
  private static final Logger LOG = LoggerFactory.getLogger(LoginDeadline.class);

  private final UnnamedAtAccept unnamed = new UnnamedAtAccept("loopback proxy", LOG::warn);

  LoginDeadline(HttpConfiguration config) {
    super(config);
  }

  @Override
  public Connection newConnection(Connector connector, EndPoint endPoint) {
    return unnamed.accept(connector, endPoint, () -> super.newConnection(connector, endPoint));
  }

  /** {@code request} showed a live run's login: its connection is no longer counted. */
  void loggedIn(Request request) {
    unnamed.named(request.getConnectionMetaData().getConnection().getEndPoint());
  }

  /** Connections held now that have shown no run's login. */
  int unnamed() {
    return unnamed.open();
  }
}
