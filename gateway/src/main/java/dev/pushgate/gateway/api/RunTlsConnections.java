package dev.pushgate.gateway.api;

import dev.pushgate.http.ClosedAtOnce;
import dev.pushgate.types.BoundaryHandle;
import java.security.GeneralSecurityException;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.ProxyConnectionFactory;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * TLS for the shared boundary listener, one run per connection: the run is the one whose handle
 * the connection's PROXY v2 header names ({@link BoundaryHandle#TLV_TYPE}), and the connection is
 * shown that run's certificate. A connection with no PROXY header, a v1 one, a LOCAL one, one
 * naming two handles or whose TLVs overrun it, or a handle of no open run, is closed before a TLS
 * byte is read: anything on loopback can connect
 * here, and only a run's proxy knows its handle. So is a run's connection over
 * {@link ApiBoundary#MAX_CONNECTIONS}.
 */
final class RunTlsConnections extends SslConnectionFactory {
  private final Function<String, BoundaryRun> runs;
  private final ProxyHeaderDeadline headers;

  RunTlsConnections(Function<String, BoundaryRun> runs, ProxyHeaderDeadline headers,
      String nextProtocol) {
    super(protocolsOnly(), nextProtocol);
    this.runs = runs;
    this.headers = headers;
  }

  @Override
  public Connection newConnection(Connector connector, EndPoint endPoint) {
    // The peer the listener accepted: a PROXY header's own addresses are whatever it says.
    ProxyConnectionFactory.ProxyEndPoint proxied =
        endPoint instanceof ProxyConnectionFactory.ProxyEndPoint p ? p : null;
    ProxyHeaderTap tap = proxied != null && proxied.unwrap() instanceof ProxyHeaderTap t ? t
        : null;
    EndPoint accepted = tap != null ? tap.unwrap() : proxied == null ? endPoint : proxied.unwrap();
    headers.named(accepted);
    // Read from the header as sent, not from Jetty's parse: one handle, or none (two, say).
    String handle = tap == null ? null : BoundaryHandle.fromProxyHeader(tap.head());
    BoundaryRun run = handle == null ? null : runs.apply(handle);
    if (run == null) {
      long refusals = headers.refusalToLog();
      if (refusals > 0) {
        ApiBoundary.LOG.warn("GitHub API boundary: refused {} connection(s) that name no live"
            + " run, the last from {} (a run's proxy names its run; nothing else may connect"
            + " here)", refusals, accepted.getRemoteSocketAddress());
      }
      return new ClosedAtOnce(endPoint, connector);
    }
    if (!run.admit(endPoint)) {
      ApiBoundary.LOG.warn("run {}: refused a GitHub API connection: the run has ended or holds"
          + " {} open already", run.runId(), ApiBoundary.MAX_CONNECTIONS);
      return new ClosedAtOnce(endPoint, connector);
    }
    return tls(connector, endPoint, run, false);
  }

  /**
   * The run's TLS connection on {@code endPoint}, and the HTTP connection inside it. {@code
   * admitOnOpen}: the run has not counted the connection yet and does when it opens, closing it
   * if the run has ended or holds its most by then (a connection taken over from the shared
   * proxy, {@link ApiBoundary#takeOver}, which may never open: its client can leave first).
   */
  Connection tls(Connector connector, EndPoint endPoint, BoundaryRun run, boolean admitOnOpen) {
    SSLEngine engine = run.newEngine();
    SslContextFactory.Server settings = getSslContextFactory();
    settings.customize(engine);
    RunSslConnection tls = new RunSslConnection(connector, settings, endPoint, engine, run,
        admitOnOpen, isDirectBuffersForEncryption(), isDirectBuffersForDecryption());
    tls.setRenegotiationAllowed(settings.isRenegotiationAllowed());
    tls.setRenegotiationLimit(settings.getRenegotiationLimit());
    tls.addEventListener(new Connection.Listener() {
      @Override
      public void onClosed(Connection connection) {
        run.release(endPoint);
      }
    });
    configure(tls, connector, endPoint);
    ConnectionFactory next = connector.getConnectionFactory(getNextProtocol());
    EndPoint decrypted = tls.getSslEndPoint();
    decrypted.setConnection(next.newConnection(connector, decrypted));
    return tls;
  }

  /** The run whose connection a request came on; null when it came on none of a run's. */
  static BoundaryRun runOf(org.eclipse.jetty.server.Request request) {
    EndPoint e = request.getConnectionMetaData().getConnection().getEndPoint();
    return e instanceof SslConnection.SslEndPoint s
        && s.getSslConnection() instanceof RunSslConnection r ? r.run : null;
  }

  /**
   * The protocols and cipher suites every run's engine is given ({@link
   * SslContextFactory#customize(SSLEngine)}); the context here shows no certificate and makes no
   * engine: each run's is its own.
   */
  private static SslContextFactory.Server protocolsOnly() {
    SslContextFactory.Server tls = new SslContextFactory.Server();
    try {
      SSLContext none = SSLContext.getInstance("TLS");
      none.init(null, null, null);
      tls.setSslContext(none);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM has no TLS: " + e.getMessage(), e);
    }
    tls.setIncludeProtocols("TLSv1.3", "TLSv1.2");
    return tls;
  }

  /** A TLS connection that knows its run. */
  private static final class RunSslConnection extends SslConnection {
    final BoundaryRun run;
    private final boolean admitOnOpen;

    RunSslConnection(Connector connector, SslContextFactory settings, EndPoint endPoint,
        SSLEngine engine, BoundaryRun run, boolean admitOnOpen, boolean directEncryption,
        boolean directDecryption) {
      super(connector.getByteBufferPool(), connector.getExecutor(), settings, endPoint, engine,
          directEncryption, directDecryption);
      this.run = run;
      this.admitOnOpen = admitOnOpen;
    }

    @Override
    public void onOpen() {
      if (admitOnOpen && !run.admit(getEndPoint())) {
        ApiBoundary.LOG.warn("run {}: closed a GitHub API connection: the run has ended or holds"
            + " {} open already", run.runId(), ApiBoundary.MAX_CONNECTIONS);
        getEndPoint().close();
        return;
      }
      super.onOpen();
    }
  }
}
