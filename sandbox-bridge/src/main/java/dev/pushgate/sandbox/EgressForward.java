package dev.pushgate.sandbox;

import java.io.IOException;
import java.util.List;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.transport.HttpClientTransportDynamic;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.proxy.ProxyHandler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plain HTTP requests in absolute form, forwarded by Jetty's client. The connection they come
 * on counts among its run's ({@link RunConnections}). On a proxy shared by every run, the host
 * is looked up within the run's share ({@link HostResolver#resolve(String, Object)}) before the
 * request goes on: the client's own lookup then finds the JDK's cached answer.
 */
final class EgressForward extends ProxyHandler.Forward {
  private static final Logger LOG = LoggerFactory.getLogger(EgressForward.class);
  private final EgressProxy.Gate gate;
  private final ProxyLogins logins;
  private final LoginDeadline connections;
  private final RunConnections held;

  EgressForward(EgressProxy.Gate gate, ProxyLogins logins, LoginDeadline connections,
      RunConnections held) {
    this.gate = gate;
    this.logins = logins;
    this.connections = connections;
    this.held = held;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    ApiInterception run = null;
    if (logins != null) {
      run = logins.runOf(request);
      if (run == null) {
        response.getHeaders().put(HttpHeader.PROXY_AUTHENTICATE, ProxyLogins.CHALLENGE);
        return text(response, callback, 407, EgressProxy.LOGIN_REQUIRED + "\n");
      }
      connections.loggedIn(request);
    }
    if (held != null) {
      RunConnections.Admission admission = held.admit(run == null ? RunConnections.ONE_RUN : run,
          request.getConnectionMetaData().getConnection().getEndPoint());
      if (admission != RunConnections.Admission.COUNTED) {
        return text(response, RunConnections.closingAfter(request, callback), admission.status,
            admission.refusal + "\n");
      }
    }
    HttpURI uri = request.getHttpURI();
    // "*" (OPTIONS *) or any target that is not a path: Jetty's forward would throw on it, and
    // log each one with its stack (attack of 2026-12-07: 37 MB of log in 10 s from one run)
    if (uri.getHost() == null || !"http".equalsIgnoreCase(uri.getScheme())
        || uri.getPath() == null || !uri.getPath().startsWith("/")) {
      return text(response, callback, 400,
          "pushgate: this is an egress proxy; send absolute http:// URLs, or CONNECT for https\n");
    }
    int port = uri.getPort() > 0 ? uri.getPort() : 80;
    if (uri.getPort() == 0 || port > 65535) {
      return text(response, callback, 400, "pushgate: " + uri.getAuthority()
          + " names no port a host can listen on (1 to 65535)\n");
    }
    String refused = gate.admit(uri.getHost(), port, request.getMethod());
    if (refused != null) {
      return text(response, callback, 403, "pushgate: egress refused: " + refused + "\n");
    }
    if (run != null) {
      try {
        gate.address(uri.getHost(), port, run);
      } catch (IOException | RuntimeException e) {
        return unreachable(response, callback, uri.getAuthority(), e);
      }
    }
    try {
      return super.handle(request, response, callback);
    } catch (RuntimeException e) {
      if (response.isCommitted()) {
        throw e;
      }
      // a target Jetty's forward cannot make a request of: the client's doing, not the proxy's
      LOG.debug("cannot forward a request to {}: {}", uri.getHost(), e.toString());
      return text(response, callback, 400,
          "pushgate: this proxy cannot forward that request: its target is not a URL it can"
              + " send onward\n");
    }
  }

  @Override
  protected HttpClient newHttpClient() {
    ClientConnector connector = new ClientConnector();
    QueuedThreadPool threads = new QueuedThreadPool(16, 1);
    threads.setName("pushgate-egress-client");
    connector.setExecutor(threads);
    HttpClient client = new HttpClient(new HttpClientTransportDynamic(connector));
    if (held != null) {
      client.addBean(held.forwardedConnections());
    }
    client.setSocketAddressResolver((host, port, context, promise) -> {
      try {
        promise.succeeded(List.of(gate.address(host, port, null)));
      } catch (IOException | RuntimeException e) {
        promise.failed(e);
      }
    });
    return client;
  }

  /**
   * The absolute URI decides where a request goes, so it also names the host the server is
   * told: a client's {@code Host} is dropped and Jetty's client writes the URI's. And the
   * connection onward is closed once the answer is in: a pool of kept ones is every run's, so
   * no run's bound would hold it (attack of 2026-12-07: one run's 4,000 requests to as many ports
   * kept 4,000 pooled). One onward connection per request under way, each on a connection the
   * run's bound counts ({@link RunConnections}); a keep-alive client keeps its own connection
   * to the proxy.
   */
  @Override
  protected void copyRequestHeaders(
      Request clientToProxyRequest, org.eclipse.jetty.client.Request proxyToServerRequest) {
    super.copyRequestHeaders(clientToProxyRequest, proxyToServerRequest);
    proxyToServerRequest.headers(h -> {
      h.remove(HttpHeader.HOST);
      h.put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE);
    });
  }

  @Override
  protected void addProxyHeaders(
      Request clientToProxyRequest, org.eclipse.jetty.client.Request proxyToServerRequest) {
    // A run's requests leave as they are: no Via or Forwarded naming this host.
  }

  @Override
  protected void onServerToProxyResponseFailure(
      Request clientToProxyRequest,
      org.eclipse.jetty.client.Request proxyToServerRequest,
      org.eclipse.jetty.client.Response serverToProxyResponse,
      Response proxyToClientResponse,
      Callback proxyToClientCallback,
      Throwable failure) {
    if (!proxyToClientResponse.isCommitted()) {
      unreachable(proxyToClientResponse, proxyToClientCallback,
          proxyToServerRequest.getHost() + ":" + proxyToServerRequest.getPort(), failure);
      return;
    }
    super.onServerToProxyResponseFailure(clientToProxyRequest, proxyToServerRequest,
        serverToProxyResponse, proxyToClientResponse, proxyToClientCallback, failure);
  }

  /**
   * A host the proxy may not or could not reach: 403 in the gate's words, else as a tunnel's
   * CONNECT is answered ({@link EgressUnreachable}; Jetty's own was a bare "Bad Gateway"). A
   * failure once the answer has begun is Jetty's to end.
   */
  private static boolean unreachable(Response response, Callback callback, String target,
      Throwable failure) {
    if (failure instanceof EgressProxy.Refused r) {
      return text(response, callback, 403, "pushgate: egress refused: " + r.getMessage() + "\n");
    }
    return text(response, callback, EgressUnreachable.status(failure),
        EgressUnreachable.line(target, failure) + "\n");
  }

  private static boolean text(Response response, Callback callback, int status, String body) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
    response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE);
    Content.Sink.write(response, true, body, callback);
    return true;
  }
}
