package dev.pushgate.gateway.api;

import dev.pushgate.gateway.Approvals;
import dev.pushgate.gateway.RunSlots;
import dev.pushgate.http.HttpServer;
import dev.pushgate.types.BoundaryHandle;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.ThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GitHub API boundary: one TLS listener on loopback for every run, that each run's egress
 * proxy tunnels every CONNECT to the API host names to. The proxy starts each connection with a
 * PROXY protocol v2 header naming the run's handle ({@link BoundaryHandle}); the listener then
 * shows that run's CA's certificate and judges the connection's calls by that run's rules ({@link
 * RunTlsConnections}, {@link CallsByRun}). A connection naming no open run is closed before TLS.
 * An idle run costs an entry in a map, no thread and no descriptor. Each decrypted request goes
 * through the steps of {@link ApiCalls}: it must carry the run's
 * sentinel; it is judged ({@link ApiJudge}), held for an approver when the rules say ask,
 * audited, and only when allowed sent upstream with the real token in the sentinel's place. The
 * answer comes back as GitHub gave it, minus hop-by-hop headers. Refusals are in GitHub's error
 * shape, so that gh and the SDKs print the reason.
 */
public final class ApiBoundary implements AutoCloseable {
  /** The largest request body judged; GitHub's own limits are lower for everything but uploads. */
  public static final int MAX_BODY = 10 * 1024 * 1024;
  /**
   * The most connections one run holds open to the boundary at once: the appliance's file
   * descriptors are every run's. Over it the run's next connection is closed before TLS.
   */
  public static final int MAX_CONNECTIONS = 64;
  /**
   * The most calls of one run the boundary works on at once: the listener's threads are every
   * run's, and a call holds one while it is judged, asked and forwarded. Over it a call is
   * answered 429.
   */
  public static final int MAX_CALLS = 16;
  /** Threads for every run's calls together; a thread is taken by a call, never by a run. */
  static final int THREADS = 200;
  /**
   * The most calls of every run together the boundary works on at once, well below {@link
   * #THREADS}: the rest are for TLS handshakes, the selectors and prompt refusals, so that runs
   * whose calls wait (on GitHub, on an approver) never keep another run's connection from being
   * answered. Over it a call is answered 429.
   */
  public static final int MAX_BUSY_CALLS = 128;
  /**
   * A run's share once half of {@link #MAX_BUSY_CALLS} are taken: a run already holding this
   * many calls is answered 429, so that runs holding few still get theirs.
   */
  public static final int BUSY_SHARE = 4;
  /**
   * The last slots of {@link #MAX_BUSY_CALLS}, kept for runs holding none: once every run
   * together holds {@code MAX_BUSY_CALLS - FIRST_CALLS_ONLY}, a run already holding a call gets no
   * other. Every slot is then taken only while at least 44 other runs hold one each
   * (docs/github-api.md, "What one run may hold of the appliance").
   */
  public static final int FIRST_CALLS_ONLY = 32;
  /**
   * How long a connection may say nothing, between calls or while a call's head or body is
   * being sent; never while a call is handled (the run then waits for its answer: {@link
   * ApiCalls}).
   */
  public static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);
  /**
   * How long a call's whole body may take to arrive, from its head: the body comes from the
   * run's own proxy on this host, where 10 MiB takes well under a second. A body not all in by
   * then is answered 408, and the connection closed. Shorter than every idle timeout on the way
   * (this listener's {@link #IDLE_TIMEOUT}, and the run's proxy's tunnel, Jetty's 30 s): the
   * deadline is counted from the head and an idle timeout from the last byte, so the 408 is
   * written before either closes the connection under it, and the client reads it rather than a
   * bare close.
   */
  public static final Duration BODY_DEADLINE = Duration.ofSeconds(20);
  /** What a call refused for want of a slot is told to wait before it tries again, in seconds. */
  static final int RETRY_AFTER_SECONDS = 5;
  /**
   * The most request-body bytes one run's calls may have buffered here at once (bodies are held
   * whole to be judged): without it {@link #MAX_CALLS} calls of 10 MiB bodies per run would fill
   * the heap that every run shares. Over it a call is answered 429.
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

  /**
   * How the listener admits every run's calls: the slots they share, a body's deadline, the
   * body bytes they may buffer together.
   */
  record Admission(RunSlots slots, Duration bodyDeadline, BufferedBytes bodies) {
    Admission {
      Objects.requireNonNull(slots, "slots");
      Objects.requireNonNull(bodyDeadline, "bodyDeadline");
      Objects.requireNonNull(bodies, "bodies");
    }
  }

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

  /**
   * What every run's boundary shares: where calls go, who approves, where decisions are kept, and
   * the client calls go upstream with, which stops when the listener given it closes.
   */
  public record Shared(ApiUpstream upstream, Approvals approvals, ApiAudit audit,
      UpstreamClient client, Clock clock) {
    public Shared {
      Objects.requireNonNull(upstream, "upstream");
      Objects.requireNonNull(approvals, "approvals");
      Objects.requireNonNull(audit, "audit");
      Objects.requireNonNull(client, "client");
      Objects.requireNonNull(clock, "clock");
    }

    /** With a client started for {@code upstream} ({@link UpstreamClient#start}). */
    public Shared(ApiUpstream upstream, Approvals approvals, ApiAudit audit, Clock clock) {
      this(upstream, approvals, audit, UpstreamClient.start(upstream), clock);
    }
  }

  private final Server server;
  private final ServerConnector connector;
  /** Every open run, by its handle (what the PROXY header names; never logged). */
  private final Map<String, BoundaryRun> runs;
  private final Shared shared;

  private final ProxyHeaderDeadline headers;
  private final RunTlsConnections tls;
  private final Admission admission;

  private ApiBoundary(Server server, ServerConnector connector, ProxyHeaderDeadline headers,
      RunTlsConnections tls, Shared shared, Map<String, BoundaryRun> runs, Admission admission) {
    this.server = server;
    this.admission = admission;
    this.headers = headers;
    this.tls = tls;
    this.connector = connector;
    this.shared = shared;
    this.runs = runs;
  }

  /**
   * Starts the one listener every run's proxies tunnel the API names to, on an ephemeral
   * loopback port. It takes no run's connection until {@link #open} has made the run's handle.
   */
  public static ApiBoundary start(Shared shared) throws IOException {
    return start(shared, BODY_DEADLINE);
  }

  /** {@link #start(Shared)} with another body deadline: a test's, shorter. */
  static ApiBoundary start(Shared shared, Duration bodyDeadline) throws IOException {
    return start(shared, bodyDeadline,
        BufferedBytes.sizedFor(Runtime.getRuntime().maxMemory()), IDLE_TIMEOUT);
  }

  /**
   * {@link #start(Shared)} with another body deadline, body budget for every run and idle
   * timeout: a test's, smaller.
   */
  static ApiBoundary start(Shared shared, Duration bodyDeadline, BufferedBytes bodies,
      Duration idleTimeout) throws IOException {
    Admission admission = new Admission(
        new RunSlots(MAX_CALLS, MAX_BUSY_CALLS, BUSY_SHARE, FIRST_CALLS_ONLY), bodyDeadline,
        bodies);
    Server server = HttpServer.named("pushgate-api").threads(THREADS, 2)
        .stopTimeout(Duration.ofSeconds(1)).build();
    HttpConfiguration http = new HttpConfiguration();
    SecureRequestCustomizer secure = new SecureRequestCustomizer();
    // The host a client names is checked against the intercepted names, in GitHub's words.
    secure.setSniHostCheck(false);
    http.addCustomizer(secure);
    http.setSendServerVersion(false);
    Map<String, BoundaryRun> runs = new ConcurrentHashMap<>();
    ProxyHeaderDeadline headers = new ProxyHeaderDeadline("ssl");
    RunTlsConnections tls = new RunTlsConnections(runs::get, headers, "http/1.1");
    ServerConnector connector = HttpServer.tcp(server,
        InetAddress.getLoopbackAddress().getHostAddress(), 0, idleTimeout, headers, tls,
        new HttpConnectionFactory(http));
    server.setHandler(new CallsByRun());
    HttpServer.start(server, "the GitHub API boundary");
    return new ApiBoundary(server, connector, headers, tls, shared, runs, admission);
  }

  /**
   * Takes {@code run}'s connections from now on: those whose PROXY header names the handle made
   * here, shown {@code ca}'s certificate and judged by the run's rules, until the run's
   * {@link BoundaryRun#close()}.
   */
  public BoundaryRun open(RunCa ca, RunApi run) {
    String handle = BoundaryHandle.newValue();
    BoundaryRun opened = new BoundaryRun(handle, address(), ca,
        new ApiCalls(run, shared, admission), runs::remove);
    runs.put(handle, opened);
    return opened;
  }

  /** Where every run's proxy tunnels the API host names. */
  public InetSocketAddress address() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), connector.getLocalPort());
  }

  /**
   * {@code run}'s TLS connection, judged and answered as one this listener accepted, on a
   * connection another server of this process accepted: the shared loopback proxy, which has
   * read the run from the connection's proxy login and answered its {@code CONNECT} to an API
   * name. No second socket, no relay: the run's TLS starts on the proxy's own connection, which
   * then waits as this listener's do ({@link #IDLE_TIMEOUT}) and counts among the run's {@link
   * #MAX_CONNECTIONS} from when the proxy upgrades to it (after its 200). Null when the run has
   * ended or holds its most connections now. The proxy must run on {@link #threads()}: a call
   * holds a thread while it is judged, asked and forwarded, and this listener's admission counts
   * on its pool.
   */
  public Connection takeOver(BoundaryRun run, EndPoint endPoint) {
    if (!run.admits()) {
      return null;
    }
    endPoint.setIdleTimeout(connector.getIdleTimeout());
    return tls.tls(connector, endPoint, run, true);
  }

  /** The listener's threads, which a server handing it connections ({@link #takeOver}) runs on. */
  public ThreadPool threads() {
    return server.getThreadPool();
  }

  /** Runs open now: what the listener would take a connection for. */
  public int openRuns() {
    return runs.size();
  }

  /** Calls of {@code runId} holding a slot now: judged, asked or forwarded. */
  int callsInProgress(String runId) {
    return admission.slots().inFlight(runId);
  }

  /**
   * Sets the socket send buffer of connections accepted from now on (a test's: the kernel's own
   * grows to megabytes, which a test of unread answers would have to fill first).
   */
  void sendBufferOfNewConnections(int bytes) {
    connector.setAcceptedSendBufferSize(bytes);
  }

  /**
   * Bytes every run's calls hold buffered now: bodies, values, unread answers ({@link
   * BufferedBytes}).
   */
  long bufferedBytes() {
    return admission.bodies().held();
  }

  /** Connections held now that have not named a run yet ({@link ProxyHeaderDeadline}). */
  int unnamedConnections() {
    return headers.unnamed();
  }

  @Override
  public void close() {
    for (BoundaryRun r : List.copyOf(runs.values())) {
      r.close();
    }
    try {
      server.stop();
    } catch (Exception e) {
      LOG.warn("error while stopping the GitHub API boundary: {}", e.getMessage());
    } finally {
      shared.client().close();
    }
  }
}
