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

/** Plain HTTP requests in absolute form, forwarded by Jetty's client. */
final class EgressForward extends ProxyHandler.Forward {
  private final EgressProxy.Gate gate;
  private final ProxyLogins logins;
  private final LoginDeadline connections;

  EgressForward(EgressProxy.Gate gate, ProxyLogins logins, LoginDeadline connections) {
    this.gate = gate;
    this.logins = logins;
    this.connections = connections;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    if (logins != null) {
      if (logins.runOf(request) == null) {
        response.getHeaders().put(HttpHeader.PROXY_AUTHENTICATE, ProxyLogins.CHALLENGE);
        return text(response, callback, 407, EgressProxy.LOGIN_REQUIRED + "\n");
      }
      connections.loggedIn(request);
    }
    HttpURI uri = request.getHttpURI();
    if (uri.getHost() == null || !"http".equalsIgnoreCase(uri.getScheme())) {
      return text(response, callback, 400,
          "pushgate: this is an egress proxy; send absolute http:// URLs, or CONNECT for https\n");
    }
    int port = uri.getPort() > 0 ? uri.getPort() : 80;
    String refused = gate.admit(uri.getHost(), port, request.getMethod());
    if (refused != null) {
      return text(response, callback, 403, "pushgate: egress refused: " + refused + "\n");
    }
    return super.handle(request, response, callback);
  }

  @Override
  protected HttpClient newHttpClient() {
    ClientConnector connector = new ClientConnector();
    QueuedThreadPool threads = new QueuedThreadPool(16, 1);
    threads.setName("pushgate-egress-client");
    connector.setExecutor(threads);
    HttpClient client = new HttpClient(new HttpClientTransportDynamic(connector));
    client.setSocketAddressResolver((host, port, context, promise) -> {
      try {
        promise.succeeded(List.of(gate.address(host, port)));
      } catch (IOException | RuntimeException e) {
        promise.failed(e);
      }
    });
    return client;
  }

  /**
   * The absolute URI decides where a request goes, so it also names the host the server is
   * told: a client's {@code Host} is dropped and Jetty's client writes the URI's.
   */
  @Override
  protected void copyRequestHeaders(
      Request clientToProxyRequest, org.eclipse.jetty.client.Request proxyToServerRequest) {
    super.copyRequestHeaders(clientToProxyRequest, proxyToServerRequest);
    proxyToServerRequest.headers(h -> h.remove(HttpHeader.HOST));
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
    if (failure instanceof EgressProxy.Refused r && !proxyToClientResponse.isCommitted()) {
      text(proxyToClientResponse, proxyToClientCallback, 403,
          "pushgate: egress refused: " + r.getMessage() + "\n");
      return;
    }
    super.onServerToProxyResponseFailure(clientToProxyRequest, proxyToServerRequest,
        serverToProxyResponse, proxyToClientResponse, proxyToClientCallback, failure);
  }

  private static boolean text(Response response, Callback callback, int status, String body) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
    response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE);
    Content.Sink.write(response, true, body, callback);
    return true;
  }
}
