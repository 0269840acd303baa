package dev.pushgate.gateway.api;

import dev.pushgate.gateway.Approvals;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Objects;
import java.util.Set;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run's GitHub API boundary: a TLS listener on loopback, showing the run CA's certificate for
 * the API host names, that the run's egress proxy tunnels every CONNECT to those names to. Each
 * decrypted request goes through the steps of {@link ApiCalls}: it must carry the run's
 * sentinel; it is judged ({@link ApiJudge}), held for an approver when the rules say ask,
 * audited, and only when allowed sent upstream with the real token in the sentinel's place. The
 * answer comes back as GitHub gave it, minus hop-by-hop headers. Refusals are in GitHub's error
 * shape, so that gh and the SDKs print the reason.
 */
public final class ApiBoundary implements AutoCloseable {
  /** The largest request body judged; GitHub's own limits are lower for everything but uploads. */
  public static final int MAX_BODY = 10 * 1024 * 1024;
  /**
   * The most connections one run holds open to its boundary at once: the appliance's file
   * descriptors are every run's. Over it the boundary stops accepting until one closes.
   */
  public static final int MAX_CONNECTIONS = 64;
  /**
   * The most request-body bytes one run's calls may have buffered here at once (bodies are held
   * whole to be judged): without it 32 threads of 10 MiB bodies per run would fill the heap that
   * every run shares. Over it a call is answered 429.
   */
  public static final int BUFFERED_BYTES = 2 * MAX_BODY;
  /**
   * A call that needs approval and does more than this many things is refused unasked: one
   * question lists every one, and a person cannot weigh a long list in one answer.
   */
  public static final int MAX_ASKED_ACTIONS = 10;

  static final String DOCS = "https://github.com/pushgate/pushgate/blob/main/docs/github-api.md";
  static final String POLICY_PREFIX = "Control Center policy: ";

  static final Logger LOG = LoggerFactory.getLogger(ApiBoundary.class);
  /** Never forwarded either way: the connection's own, and the credentials we swap. */
  static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive",
      "proxy-authenticate", "proxy-authorization", "proxy-connection", "te", "trailer",
      "transfer-encoding", "upgrade", "host", "content-length", "expect", "authorization",
      "http2-settings", "date", "via", "warning", "from");

  /** The run whose calls this boundary judges. */
  public record RunApi(String runId, String workspaceId, ApiSentinel sentinel, ApiJudge judge,
      ApiTokens tokens) {
    public RunApi {
      Objects.requireNonNull(runId, "runId");
      Objects.requireNonNull(workspaceId, "workspaceId");
      Objects.requireNonNull(sentinel, "sentinel");
      Objects.requireNonNull(judge, "judge");
      Objects.requireNonNull(tokens, "tokens");
    }
  }

  /** What every run's boundary shares: where calls go, who approves, where decisions are kept. */
  public record Shared(ApiUpstream upstream, Approvals approvals, ApiAudit audit,
      HttpClient client, Clock clock) {
    public Shared {
      Objects.requireNonNull(upstream, "upstream");
      Objects.requireNonNull(approvals, "approvals");
      Objects.requireNonNull(audit, "audit");
      Objects.requireNonNull(client, "client");
      Objects.requireNonNull(clock, "clock");
    }

    public static HttpClient newClient() {
      return HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
          .connectTimeout(Duration.ofSeconds(10)).build();
    }
  }

  private final Server server;
  private final ServerConnector connector;
  private final RunApi run;

  private ApiBoundary(Server server, ServerConnector connector, RunApi run) {
    this.server = server;
    this.connector = connector;
    this.run = run;
  }

  /** Starts the run's boundary on an ephemeral loopback port. */
  public static ApiBoundary start(RunCa ca, RunApi run, Shared shared) throws IOException {
    char[] password = randomPassword();
    SslContextFactory.Server tls = new SslContextFactory.Server();
    tls.setKeyStore(ca.keyStore(password));
    tls.setKeyStorePassword(new String(password));
    tls.setIncludeProtocols("TLSv1.3", "TLSv1.2");
    QueuedThreadPool threads = new QueuedThreadPool(32, 2);
    threads.setName("pushgate-api-" + run.runId());
    Server server = new Server(threads);
    HttpConfiguration http = new HttpConfiguration();
    SecureRequestCustomizer secure = new SecureRequestCustomizer();
    // The host a client names is checked against the intercepted names below, in GitHub's words.
    secure.setSniHostCheck(false);
    http.addCustomizer(secure);
    http.setSendServerVersion(false);
    ServerConnector connector = new ServerConnector(server,
        new SslConnectionFactory(tls, "http/1.1"), new HttpConnectionFactory(http));
    connector.setHost(InetAddress.getLoopbackAddress().getHostAddress());
    connector.setPort(0);
    server.addConnector(connector);
    server.addBean(new NetworkConnectionLimit(MAX_CONNECTIONS, connector));
    server.setHandler(new ApiCalls(run, shared));
    server.setStopTimeout(1000);
    try {
      server.start();
    } catch (Exception e) {
      try {
        server.stop();
      } catch (Exception x) {
        e.addSuppressed(x);
      }
      throw new IOException("cannot start the GitHub API boundary of run " + run.runId() + ": "
          + e.getMessage(), e);
    }
    return new ApiBoundary(server, connector, run);
  }

  /** Where the run's proxy tunnels the API host names to. */
  public InetSocketAddress address() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), connector.getLocalPort());
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      LOG.warn("run {}: error while stopping its GitHub API boundary: {}", run.runId(),
          e.getMessage());
    }
  }

  private static char[] randomPassword() {
    byte[] b = new byte[24];
    new SecureRandom().nextBytes(b);
    return Base64.getEncoder().encodeToString(b).toCharArray();
  }
}
