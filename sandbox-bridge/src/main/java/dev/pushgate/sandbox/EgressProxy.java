package dev.pushgate.sandbox;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import dev.pushgate.http.FixedErrorPages;
import dev.pushgate.http.HttpServer;
import dev.pushgate.types.BoundaryHandle;
import dev.pushgate.types.Secret;
import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.proxy.ProxyHandler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ConnectHandler;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run's egress proxy: HTTP (absolute-URI requests, forwarded by Jetty's {@link ProxyHandler})
 * and HTTPS (CONNECT tunnels, by Jetty's {@link ConnectHandler}) on a Unix socket of its own,
 * admitting only hosts the run's {@link EgressPolicy} allows. The fixed deny list beats every
 * allow, also when an allowed name resolves to a denied address; an address on the host's own
 * loopback or link-local network is reached only for a host the run's {@code egressAllowlist}
 * names itself, so that no baseline name can be pointed at a service of the host. The git host
 * is never admitted ({@link GitHostRefusal}). Each refusal is answered 403 with its reason and
 * reported as a {@code network-outbound} violation naming the host.
 */
public final class EgressProxy implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EgressProxy.class);

  /**
   * The most host names the shared proxy looks up at once: each lookup holds one of the API
   * boundary's threads until the name's server answers, which a name that never resolves makes
   * long (attack of 2026-12-07: 194 of its 200 threads held so). One more is answered 503.
   */
  static final int SHARED_LOOKUPS = 16;
  /** The most of {@link #SHARED_LOOKUPS} one run's requests hold at once. */
  static final int SHARED_LOOKUPS_PER_RUN = 4;

  /** The user name of a launch's loopback proxy login (its password is the secret). */
  public static final String LAUNCH_USER = "run";

  private final Server server;
  private final Path socket;
  private final int port;
  private final LoginDeadline connections;
  private final Secret login;
  private final RunConnections held;

  private EgressProxy(Server server, Path socket, int port, LoginDeadline connections,
      Secret login, RunConnections held) {
    this.server = server;
    this.socket = socket;
    this.port = port;
    this.connections = connections;
    this.login = login;
    this.held = held;
  }

  /**
   * Starts a proxy listening on {@code socket} (mode 0666: put it in a directory only the
   * sandbox user can reach).
   *
   * @param onRefusal told about every refused connection, on a proxy thread
   */
  public static EgressProxy start(
      Path socket, EgressPolicy policy, HostResolver resolver, Consumer<SandboxViolation> onRefusal)
      throws IOException {
    return start(socket, policy, resolver, onRefusal, null);
  }

  /**
   * As {@link #start(Path, EgressPolicy, HostResolver, Consumer)}, with the GitHub API host names
   * tunnelled to the API boundary ({@code interception}, or null for none) before the gate.
   */
  public static EgressProxy start(Path socket, EgressPolicy policy, HostResolver resolver,
      Consumer<SandboxViolation> onRefusal, ApiInterception interception) throws IOException {
    if (socket == null || policy == null || resolver == null || onRefusal == null) {
      throw new IllegalArgumentException("an egress proxy needs a socket, policy, resolver and listener");
    }
    Gate gate = new Gate(policy, resolver, onRefusal);
    Server server = newServer();
    org.eclipse.jetty.server.Connector connector =
        HttpServer.unixSocket(server, socket, null, proxyConnections());
    // The connections a request counts (RunConnections), and room to answer the next
    // ones 429; past that, connections that send no request wait unaccepted, in the kernel.
    server.addBean(new NetworkConnectionLimit(RunConnections.MAX_PER_RUN + 64, connector));
    RunConnections held = RunConnections.ofOneRun();
    EgressForward forward = new EgressForward(gate, null, null, held);
    forward.setViaHost("pushgate");
    server.setHandler(new EgressTunnel(gate, forward, interception, null, null, held, false));
    HttpServer.start(server, "the egress proxy on " + socket,
        () -> Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-")));
    return new EgressProxy(server, socket, 0, null, null, null);
  }

  /**
   * A proxy for a run without an OS sandbox (backend {@code none}), on an ephemeral port of this
   * host's loopback: it admits every host but the git host ({@link GitHostRefusal}; nothing else
   * is enforced there) and tunnels the GitHub API host names to the boundary. Cooperative: only
   * programs that honour {@code HTTPS_PROXY} use it. Any process on the host can reach the port,
   * so it wants a login of its own ({@link #LAUNCH_USER}, {@link #login()}), checked as the
   * shared proxy checks its runs' ({@link ProxyLogins}): without it a local process would tunnel
   * under this run's handle and hold the run's boundary connections.
   */
  public static EgressProxy startLoopback(HostResolver resolver, ApiInterception interception)
      throws IOException {
    if (resolver == null || interception == null) {
      throw new IllegalArgumentException("a loopback proxy needs a resolver and an interception");
    }
    Secret login = Secret.of(BoundaryHandle.newValue());
    return startOnLoopback(resolver, ProxyLogins.one(LAUNCH_USER, login, interception), login);
  }

  /**
   * One loopback proxy for every run used by hand (no sandbox plan, no launcher) and every
   * launch without an OS sandbox: as {@link #startLoopback}, with each request's run read from
   * its proxy login ({@link ProxyLogins}). A
   * request without a live run's login is answered 407, saying where the login is: its run's API
   * names would otherwise reach no boundary, and its other hosts no run's proxy. It runs on the
   * boundary's threads ({@code boundaryThreads}, started): the boundary takes a CONNECT to an API
   * name over where it was answered ({@link ApiInterception.TakeOver}), and the calls on it then
   * hold the boundary's threads as those on its own listener do.
   */
  public static EgressProxy startShared(HostResolver resolver, ProxyLogins logins,
      ThreadPool boundaryThreads) throws IOException {
    if (resolver == null || logins == null || boundaryThreads == null) {
      throw new IllegalArgumentException(
          "a shared proxy needs a resolver, the runs' logins and the boundary's threads");
    }
    HostResolver lookups = HostResolver.bounded(resolver, SHARED_LOOKUPS, SHARED_LOOKUPS_PER_RUN);
    return startOnLoopback(lookups, logins, null, withErrors(builder().buildOn(boundaryThreads)),
        true);
  }

  private static EgressProxy startOnLoopback(HostResolver resolver, ProxyLogins logins,
      Secret login) throws IOException {
    return startOnLoopback(resolver, logins, login, newServer(), false);
  }

  /**
   * @param handsOver whether the proxy hands its API connections over to the boundary ({@link
   *     ApiInterception.TakeOver}): only on the boundary's threads
   */
  private static EgressProxy startOnLoopback(HostResolver resolver, ProxyLogins logins,
      Secret login, Server server, boolean handsOver) throws IOException {
    Gate gate = Gate.open(resolver);
    LoginDeadline connections = new LoginDeadline(proxyConfiguration());
    org.eclipse.jetty.server.ServerConnector connector = HttpServer.tcp(
        server, InetAddress.getLoopbackAddress().getHostAddress(), 0, null, connections);
    RunConnections held = RunConnections.shared();
    EgressForward forward = new EgressForward(gate, logins, connections, held);
    forward.setViaHost("pushgate");
    server.setHandler(
        new EgressTunnel(gate, forward, null, logins, connections, held, handsOver));
    HttpServer.start(server, "the API proxy on loopback");
    return new EgressProxy(server, null, connector.getLocalPort(), connections, login, held);
  }

  /**
   * HTTP/1.1 as proxy clients speak it. RFC 9110 lets a CONNECT's {@code Host} differ from its
   * authority-form target, and undici (Octokit's documented proxy recipe) sends
   * {@code CONNECT api.github.com:443} with {@code Host: api.github.com}: Jetty's default
   * compliance answers that a bare 400 ("Authority!=Host"). The header never decides here: a
   * tunnel goes to the CONNECT target (ConnectHandler reads the request URI's authority) and a
   * forwarded request to its absolute URI, whose host {@link EgressForward} also sends as {@code Host}.
   */
  private static HttpConnectionFactory proxyConnections() {
    return new HttpConnectionFactory(proxyConfiguration());
  }

  private static HttpConfiguration proxyConfiguration() {
    HttpConfiguration config = new HttpConfiguration();
    config.setHttpCompliance(HttpCompliance.RFC9110.with("pushgate-egress-proxy",
        HttpCompliance.Violation.MISMATCHED_AUTHORITY));
    config.setSendServerVersion(false);
    return config;
  }

  /** A proxy's server with its error lines, no connector or handler yet (a test adds its own). */
  static Server newServer() {
    return withErrors(builder().build());
  }

  private static Server withErrors(Server server) {
    server.setErrorHandler(new Errors());
    return server;
  }

  private static HttpServer builder() {
    return HttpServer.named("pushgate-egress").threads(32, 2).stopTimeout(Duration.ofSeconds(1));
  }

  /**
   * Every refusal the proxy or Jetty's parser gives, as one plain-text line a person or an agent
   * can act on: Jetty's default writes no body for a CONNECT and only a reason for a request it
   * cannot parse. A failure the proxy did not word (an exception thrown while handling, whose
   * message Jetty passes on) gets the fixed line of its status, as every other server's fallback
   * page ({@link FixedErrorPages}): its message may hold what the proxy read.
   */
  static final class Errors extends ErrorHandler {
    @Override
    public boolean errorPageForMethod(String method) {
      return true;
    }

    @Override
    protected void generateResponse(Request request, Response response, int code, String message,
        Throwable cause, Callback callback) {
      String text = cause == null || cause instanceof HttpException
          ? line(code, message) : FixedErrorPages.text(code);
      byte[] body = text.getBytes(StandardCharsets.UTF_8);
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
      response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE);
      // A CONNECT's answer was sized 0 before this handler was asked for a body.
      response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
      response.write(true, ByteBuffer.wrap(body), callback);
    }

    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
      fields.put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
      return BufferUtil.toBuffer(line(status, reason), StandardCharsets.UTF_8);
    }

    private static String line(int code, String message) {
      String why = message == null || message.isBlank() ? HttpStatus.getMessage(code) : message;
      if (why.startsWith("pushgate: ")) {
        return why + "\n";
      }
      if ("No Host".equals(why)) {
        why = "an HTTP/1.1 request needs a Host header (RFC 9112 section 3.2)";
      } else if (code == 400 && why.equals(HttpStatus.getMessage(code))) {
        why = "it is not HTTP/1.1 as a proxy reads it; for https send CONNECT host:port "
            + "(e.g. CONNECT api.github.com:443), for http an absolute http:// URL";
      }
      return "pushgate: this proxy cannot take the request: " + why + "\n";
    }
  }

  /** The loopback port of a {@link #startLoopback} proxy; 0 for one on a Unix socket. */
  public int port() {
    return port;
  }

  public Path socket() {
    return socket;
  }

  /** The password of a {@link #startLoopback} proxy's login; null for any other proxy. */
  public Secret login() {
    return login;
  }

  /**
   * {@code run} has ended: the tunnels its login opened through this proxy, and the connections
   * that carried its plain-HTTP requests, are closed (a tunnel is judged once, when it opens).
   * Nothing on a proxy that takes no logins.
   */
  public void closeTunnelsOf(ApiInterception run) {
    if (held != null && run != null) {
      held.close(run);
    }
  }

  /** Connection ends (clients' and tunnels' far ends) {@code run}'s login holds open now. */
  int connectionEndsOf(ApiInterception run) {
    return held == null ? 0 : held.open(run);
  }

  /** Connections the proxy's listener holds now, accepted and not closed. */
  int acceptedConnections() {
    int open = 0;
    for (org.eclipse.jetty.server.Connector c : server.getConnectors()) {
      open += c.getConnectedEndPoints().size();
    }
    return open;
  }

  /** Connections held now that have shown no run's login (0 on a Unix socket's proxy). */
  int unnamedConnections() {
    return connections == null ? 0 : connections.unnamed();
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      LOG.warn("error while stopping the egress proxy on {}: {}", socket, e.getMessage());
    }
    try {
      if (socket != null) {
        Files.deleteIfExists(socket);
      }
    } catch (IOException e) {
      LOG.debug("cannot remove {}: {}", socket, e.getMessage());
    }
  }

  /** A connection the proxy refuses, and why. */
  static final class Refused extends IOException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  /** The admission rule, shared by both handlers. */
  static final class Gate {
    private final EgressPolicy policy;
    private final HostResolver resolver;
    private final Consumer<SandboxViolation> onRefusal;

    Gate(EgressPolicy policy, HostResolver resolver, Consumer<SandboxViolation> onRefusal) {
      this.policy = policy;
      this.resolver = resolver;
      this.onRefusal = onRefusal;
    }

    /**
     * A gate that admits every host but the git host: a run without an OS sandbox, whose egress
     * nothing holds.
     */
    static Gate open(HostResolver resolver) {
      return new Gate(null, resolver, v -> { });
    }

    /** Null when the host may be reached, else the refusal (already reported). */
    String admit(String host, int port, String method) {
      if (policy != null) {
        EgressDecision d = policy.allows(host);
        if (!d.allowed()) {
          return refuse(d.host(), method + " " + d.host() + ":" + port, d.reason());
        }
      }
      String gitHost = GitHostRefusal.gitHost(host);
      if (gitHost != null) {
        return refuse(gitHost, method + " " + gitHost + ":" + port,
            GitHostRefusal.reason(gitHost));
      }
      return null;
    }

    /**
     * Where to connect for an admitted host, looked up for {@code asker} (a run, or null; {@link
     * HostResolver#resolve(String, Object)}); refuses (and reports) a forbidden address.
     */
    InetSocketAddress address(String host, int port, Object asker) throws IOException {
      String gitHost = GitHostRefusal.gitHost(host);
      if (gitHost != null) {
        throw new Refused(refuse(gitHost, "connect " + gitHost + ":" + port,
            GitHostRefusal.reason(gitHost)));
      }
      if (policy == null) {
        String name = host.startsWith("[") && host.endsWith("]")
            ? host.substring(1, host.length() - 1) : host;
        List<InetAddress> any = resolver.resolve(name, asker);
        if (any.isEmpty()) {
          throw new UnknownHostException(name);
        }
        return new InetSocketAddress(any.get(0), port);
      }
      EgressDecision d = policy.allows(host);
      if (!d.allowed()) {
        throw new Refused(refuse(d.host(), "connect " + d.host() + ":" + port, d.reason()));
      }
      String name = host.startsWith("[") && host.endsWith("]")
          ? host.substring(1, host.length() - 1) : host;
      List<InetAddress> addresses = resolver.resolve(name, asker);
      if (addresses.isEmpty()) {
        throw new UnknownHostException(name);
      }
      for (InetAddress a : addresses) {
        String literal = a instanceof Inet6Address ? "[" + a.getHostAddress() + "]" : a.getHostAddress();
        int zone = literal.indexOf('%');
        if (zone >= 0) {
          literal = literal.substring(0, zone) + "]";
        }
        EgressDecision byAddress = policy.allows(literal);
        if (byAddress.basis() == EgressDecision.Basis.DENY_LIST) {
          throw new Refused(refuse(d.host(), "connect " + d.host() + ":" + port,
              "denied: " + d.host() + " resolves to " + byAddress.host()
                  + ", which is on the fixed deny list"));
        }
        boolean local = a.isLoopbackAddress() || a.isLinkLocalAddress() || a.isAnyLocalAddress()
            || a.isMulticastAddress();
        if (local && d.rule().source() != EgressRule.Source.EGRESS_ALLOWLIST) {
          throw new Refused(refuse(d.host(), "connect " + d.host() + ":" + port,
              "denied: " + d.host() + " resolves to " + byAddress.host()
                  + ", an address of this host; only an egressAllowlist entry reaches one"));
        }
      }
      return new InetSocketAddress(addresses.get(0), port);
    }

    private String refuse(String host, String attempt, String reason) {
      LOG.info("egress refused: {} ({})", attempt, reason);
      try {
        onRefusal.accept(new SandboxViolation(ViolationParser.NETWORK, host, attempt + ": " + reason));
      } catch (RuntimeException e) {
        LOG.warn("the egress listener failed: {}", e.getMessage());
      }
      return reason;
    }
  }

  /**
   * A request through a shared proxy that names no live run: 407, with the challenge clients
   * answer with the login in their proxy URL.
   */
  static final String LOGIN_REQUIRED = "pushgate: this proxy wants its run's login;"
      + " name your run in the proxy URL, as the run's env does:"
      + " HTTPS_PROXY=http://<user>:<proxy secret>@127.0.0.1:<port>";
}
