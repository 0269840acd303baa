package dev.pushgate.gateway.api;

import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.URI;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.HttpProxy;
import org.eclipse.jetty.client.Origin;
import org.eclipse.jetty.client.ProxyAuthenticationProtocolHandler;
import org.eclipse.jetty.client.RedirectProtocolHandler;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.WWWAuthenticationProtocolHandler;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The boundary's one client to GitHub, shared by every run: Jetty's HTTP/1.1 client with a pool
 * of kept-alive connections per upstream origin. It replaced the JDK's {@code HttpClient}, which
 * ran every blocking call through its asynchronous pipeline (a selector thread and a worker, two
 * more hand-offs per call) and took 40 % of the boundary's CPU (issue 33, docs/benchmarks.md).
 *
 * <p>It sends exactly what {@link UpstreamRequest} made and reads the answer as it came: no
 * redirect followed, no authentication handled, no cookie kept (a cookie
 * of one run's answer must never ride on another run's call), no {@code User-Agent}, {@code
 * Accept-Encoding} or {@code Content-Type} of its own, no decoding of a compressed answer. TLS
 * trusts what the JVM trusts ({@code SSLContext.getDefault()}, the host name checked), and an
 * upstream origin goes through the HTTP proxy the JVM's default proxy selector names for it
 * (docs/operations.md), as the JDK's client did.
 */
public final class UpstreamClient implements AutoCloseable {
  /** How long a TCP (and TLS) connection upstream may take to open. */
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
  /** How long GitHub may take to start its answer, and to send the next bytes of one. */
  static final Duration ANSWER_TIMEOUT = Duration.ofMinutes(2);
  /**
   * Connections to one origin at once: a call holds one while it is forwarded, and the listener
   * has {@link ApiBoundary#THREADS} threads for calls, so no call waits for a connection.
   */
  static final int CONNECTIONS_PER_ORIGIN = ApiBoundary.THREADS;
  /**
   * The longest head of GitHub's answer taken: what the listener writes of one ({@link
   * HttpConfiguration#getResponseHeaderSize()}), less room for the framing it adds itself.
   */
  static final int MAX_ANSWER_HEAD = new HttpConfiguration().getResponseHeaderSize() - 512;

  private final HttpClient client;
  private final Duration answerTimeout;

  private UpstreamClient(HttpClient client, Duration answerTimeout) {
    this.client = client;
    this.answerTimeout = answerTimeout;
  }

  /** A started client for {@code upstream}'s origins, with the JVM's proxies and trust. */
  public static UpstreamClient start(ApiUpstream upstream) {
    return start(upstream, ProxySelector.getDefault(), ANSWER_TIMEOUT);
  }

  static UpstreamClient start(ApiUpstream upstream, ProxySelector proxies,
      Duration answerTimeout) {
    SslContextFactory.Client tls = new SslContextFactory.Client();
    try {
      tls.setSslContext(javax.net.ssl.SSLContext.getDefault());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JVM has no default TLS context", e);
    }
    tls.setEndpointIdentificationAlgorithm("HTTPS");
    QueuedThreadPool threads = new QueuedThreadPool(CONNECTIONS_PER_ORIGIN, 2);
    threads.setName("pushgate-api-upstream");
    threads.setDaemon(true);
    ClientConnector connector = new ClientConnector();
    connector.setSelectors(1);
    connector.setExecutor(threads);
    connector.setSslContextFactory(tls);
    connector.setConnectTimeout(CONNECT_TIMEOUT);
    HttpClient client = new HttpClient(new HttpClientTransportOverHTTP(connector));
    client.setExecutor(threads);
    client.setFollowRedirects(false);
    client.setHttpCookieStore(new HttpCookieStore.Empty());
    client.setUserAgentField(null);
    client.setDefaultRequestContentType(null);
    client.setIdleTimeout(answerTimeout.toMillis());
    client.setMaxConnectionsPerDestination(CONNECTIONS_PER_ORIGIN);
    // Jetty's client sends at most 8 KiB of request head by default, as much as the listener
    // takes from the run: the real token and upstream's Host must not tip a call over it.
    client.setMaxRequestHeadersSize(2 * new HttpConfiguration().getRequestHeaderSize());
    // The listener writes at most this much of an answer's head: a longer one from upstream
    // would reach the run as Jetty's own 500 page. The client refuses it instead, so the run gets
    // the 502 of an upstream that did not answer, in GitHub's shape.
    client.setMaxResponseHeadersSize(MAX_ANSWER_HEAD);
    for (URI origin : origins(upstream)) {
      Proxy p = proxyFor(proxies, origin);
      if (p != null && p.address() instanceof InetSocketAddress a) {
        HttpProxy proxy = new HttpProxy(new Origin.Address(a.getHostString(), a.getPort()), false);
        proxy.getIncludedAddresses().add(origin.getHost() + ":" + port(origin));
        client.getProxyConfiguration().addProxy(proxy);
      }
    }
    try {
      client.start();
    } catch (Exception e) {
      throw new IllegalStateException("could not start the GitHub API client", e);
    }
    // Both are filled when the client starts. An answer is the run's to decode, and a redirect
    // or an authentication challenge is the run's to follow: the client keeps only the handlers
    // of interim (1xx) answers, which are never a call's answer.
    client.getContentDecoderFactories().clear();
    client.getProtocolHandlers().remove(RedirectProtocolHandler.NAME);
    client.getProtocolHandlers().remove(WWWAuthenticationProtocolHandler.NAME);
    client.getProtocolHandlers().remove(ProxyAuthenticationProtocolHandler.NAME);
    return new UpstreamClient(client, answerTimeout);
  }

  /** A request to {@code target}, to be filled by the caller and sent by {@link Forward}. */
  Request newRequest(URI target) {
    return client.newRequest(target);
  }

  /** How long a call waits for GitHub's answer to start. */
  Duration answerTimeout() {
    return answerTimeout;
  }

  @Override
  public void close() {
    try {
      client.stop();
    } catch (Exception e) {
      ApiBoundary.LOG.warn("error while stopping the GitHub API client: {}",
          e.getClass().getSimpleName());
    }
  }

  private static Set<URI> origins(ApiUpstream upstream) {
    Set<URI> origins = new LinkedHashSet<>();
    origins.add(upstream.apiBase());
    origins.add(upstream.uploadsBase());
    return origins;
  }

  /** The HTTP proxy the selector names for {@code origin}, or null to go direct. */
  private static Proxy proxyFor(ProxySelector proxies, URI origin) {
    if (proxies == null) {
      return null;
    }
    for (Proxy p : proxies.select(origin)) {
      if (p.type() == Proxy.Type.HTTP) {
        return p;
      }
      if (p.type() == Proxy.Type.DIRECT) {
        return null;
      }
    }
    return null;
  }

  private static int port(URI u) {
    return u.getPort() != -1 ? u.getPort()
        : u.getScheme().equalsIgnoreCase("https") ? 443 : 80;
  }
}
