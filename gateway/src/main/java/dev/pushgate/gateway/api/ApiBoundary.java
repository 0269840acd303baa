package dev.pushgate.gateway.api;

import dev.pushgate.gateway.ApprovalQuestion;
import dev.pushgate.gateway.Approvals;
import dev.pushgate.gateway.AuditLog;
import dev.pushgate.gateway.UpstreamException;
import dev.pushgate.gateway.WriteTokenLease;
import dev.pushgate.policy.Decision;
import dev.pushgate.types.Secret;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Semaphore;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run's GitHub API boundary: a TLS listener on loopback, showing the run CA's certificate for
 * the API host names, that the run's egress proxy tunnels every CONNECT to those names to. Each
 * decrypted request must carry the run's sentinel; it is judged ({@link ApiJudge}), held for an
 * approver when the rules say ask, audited, and only when allowed sent upstream with the real
 * token in the sentinel's place. The answer comes back as GitHub gave it, minus hop-by-hop
 * headers. Refusals are in GitHub's error shape, so that gh and the SDKs print the reason.
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
   * Headers asking a server to run another method than the request line's. GitHub documents none,
   * but an upstream (or a framework in front of it) honouring one would run a method the judge
   * never saw on the judged path; the boundary refuses them rather than bet on it.
   */
  private static final Set<String> METHOD_OVERRIDES = Set.of("x-http-method-override",
      "x-http-method", "x-method-override");
  private static final int READ_CHUNK = 64 * 1024;
  /**
   * A call that needs approval and does more than this many things is refused unasked: one
   * question lists every one, and a person cannot weigh a long list in one answer.
   */
  public static final int MAX_ASKED_ACTIONS = 10;

  static final String DOCS = "https://github.com/pushgate/pushgate/blob/main/docs/github-api.md";
  static final String POLICY_PREFIX = "Control Center policy: ";

  private static final Logger LOG = LoggerFactory.getLogger(ApiBoundary.class);
  /** Never forwarded either way: the connection's own, and the credentials we swap. */
  private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive",
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
    server.setHandler(new Calls(run, shared));
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

  /** The token a request carries: {@code token X}, {@code Bearer X}, or Basic {@code user:X}. */
  static String presentedToken(String authorization) {
    if (authorization == null) {
      return null;
    }
    String a = authorization.strip();
    int space = a.indexOf(' ');
    if (space < 0) {
      return null;
    }
    String scheme = a.substring(0, space).toLowerCase(Locale.ROOT);
    String value = a.substring(space + 1).strip();
    switch (scheme) {
      case "token":
      case "bearer":
        return value;
      case "basic":
        try {
          String pair = new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8);
          int colon = pair.indexOf(':');
          return colon < 0 ? null : pair.substring(colon + 1);
        } catch (IllegalArgumentException e) {
          return null;
        }
      default:
        return null;
    }
  }

  /** Every request of the run, judged one at a time on its own thread. */
  private static final class Calls extends Handler.Abstract {
    private final RunApi run;
    private final Shared shared;
    /** Body bytes this run's calls may still buffer (see {@link #BUFFERED_BYTES}). */
    private final Semaphore bodyBudget = new Semaphore(BUFFERED_BYTES);

    Calls(RunApi run, Shared shared) {
      this.run = run;
      this.shared = shared;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
      try {
        serve(request, response, callback);
      } catch (RuntimeException e) {
        // Never the exception's text to the run: it could quote a header.
        LOG.warn("run {}: GitHub API call failed: {}", run.runId(), e.getClass().getName());
        if (!response.isCommitted()) {
          GitHubError.write(response, callback, 502, "pushgate could not complete the call");
        } else {
          callback.failed(e);
        }
      }
      return true;
    }

    private void serve(Request request, Response response, Callback callback) {
      long started = System.nanoTime();
      String host = Request.getServerName(request);
      String method = request.getMethod();
      // As sent, still percent-encoded: the judge and upstream read the same bytes.
      String path = request.getHttpURI().getPath() == null ? "/" : request.getHttpURI().getPath();
      String query = request.getHttpURI().getQuery();
      if (!shared.upstream().intercepts(host)) {
        GitHubError.write(response, callback, 421, "pushgate answers here only for "
            + String.join(", ", shared.upstream().hostNames()));
        return;
      }
      String presented = presentedToken(request.getHeaders().get(HttpHeader.AUTHORIZATION));
      if (presented == null || !run.sentinel().matches(presented)) {
        GitHubError.write(response, callback, 401, "Bad credentials (pushgate: send this run's"
            + " GH_TOKEN; no other credential reaches GitHub from a run)");
        return;
      }
      String override = methodOverride(request, query);
      if (override != null) {
        GitHubError.write(response, callback, 400, "pushgate does not forward method overrides ("
            + override + "): send the method itself, which is what the boundary judges");
        return;
      }
      String encoding = request.getHeaders().get(HttpHeader.CONTENT_ENCODING);
      if (encoding != null && !encoding.strip().equalsIgnoreCase("identity")) {
        // The judge reads the body's bytes as JSON; an upstream decoding them first would read
        // another document than the one judged.
        GitHubError.write(response, callback, 415, "pushgate does not forward encoded request"
            + " bodies (Content-Encoding): send the body as it is, which is what it judges");
        return;
      }
      long declared = request.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH);
      if (declared > MAX_BODY) {
        GitHubError.write(response, callback, 413, "the request body is larger than the "
            + MAX_BODY + " bytes pushgate judges");
        return;
      }
      Body body = new Body();
      try {
        if (!body.read(request, response, callback)) {
          return;
        }
        if (body.bytes.length > 0 && (method.equals("GET") || method.equals("HEAD"))) {
          // A read is judged by its path alone: a body nobody judged is not sent on.
          GitHubError.write(response, callback, 400, "a " + method + " request with a body is"
              + " not forwarded by pushgate: reads are judged by their path alone");
          return;
        }
        judgeAndForward(request, response, callback, host, method, path, query, body.bytes,
            started);
      } finally {
        body.release();
      }
    }

    /** The first method-override header or {@code _method} parameter the call carries, or null. */
    private static String methodOverride(Request request, String query) {
      for (HttpField f : request.getHeaders()) {
        if (METHOD_OVERRIDES.contains(f.getLowerCaseName())) {
          return f.getName();
        }
      }
      if (query != null) {
        for (String pair : query.split("&")) {
          String name = pair.contains("=") ? pair.substring(0, pair.indexOf('=')) : pair;
          try {
            name = URLDecoder.decode(name, StandardCharsets.UTF_8);
          } catch (IllegalArgumentException e) {
            return "an unreadable query parameter";
          }
          if (name.strip().equalsIgnoreCase("_method")) {
            return "_method";
          }
        }
      }
      return null;
    }

    /** A request body read whole, its bytes counted against the run's {@link #bodyBudget}. */
    private final class Body {
      byte[] bytes = new byte[0];
      private int held;

      /** Reads the body; false when it was refused (the answer written). */
      boolean read(Request request, Response response, Callback callback) {
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        byte[] chunk = new byte[READ_CHUNK];
        try (InputStream in = Content.Source.asInputStream(request)) {
          int n;
          while ((n = in.read(chunk)) > 0) {
            if (all.size() + n > MAX_BODY) {
              GitHubError.write(response, callback, 413, "the request body is larger than the "
                  + MAX_BODY + " bytes pushgate judges");
              return false;
            }
            if (!bodyBudget.tryAcquire(n)) {
              GitHubError.write(response, callback, 429, "pushgate is already holding "
                  + BUFFERED_BYTES + " bytes of this run's request bodies; send fewer large"
                  + " calls at once");
              return false;
            }
            held += n;
            all.write(chunk, 0, n);
          }
        } catch (IOException e) {
          GitHubError.write(response, callback, 400, "the request body could not be read");
          return false;
        }
        bytes = all.toByteArray();
        return true;
      }

      void release() {
        bodyBudget.release(held);
        held = 0;
      }
    }

    private void judgeAndForward(Request request, Response response, Callback callback,
        String host, String method, String path, String query, byte[] body, long started) {
      ApiCall call = new ApiCall(method, host.toLowerCase(Locale.ROOT), path, query,
          request.getHeaders().get(HttpHeader.CONTENT_TYPE), body);
      ApiJudgement judgement;
      try {
        judgement = run.judge().judge(call);
      } catch (RuntimeException e) {
        LOG.warn("run {}: the API judge failed on {} {}: {}", run.runId(), method, path,
            e.getClass().getName());
        judgement = new ApiJudgement(List.of(new ApiJudgement.ApiAction("unknown", null, path,
            Decision.DENY, "pushgate could not judge this call")), false);
      }
      Decision decision = judgement.decision();
      String auditedDecision = decision == Decision.ALLOW ? "allowed" : "denied";
      String reason = judgement.reason();
      if (decision == Decision.ASK && judgement.actions().size() > MAX_ASKED_ACTIONS) {
        refuse(response, callback, call, judgement, "denied", "the call does "
            + judgement.actions().size() + " things at once and needs approval; pushgate puts at"
            + " most " + MAX_ASKED_ACTIONS + " in one question: split the call", started);
        return;
      }
      if (decision == Decision.ASK) {
        Approvals.ApprovalAnswer answer = ask(call, judgement);
        auditedDecision = "asked";
        reason = answer.reason();
        if (!answer.allowed()) {
          refuse(response, callback, call, judgement, auditedDecision, reason, started);
          return;
        }
      } else if (decision != Decision.ALLOW) {
        refuse(response, callback, call, judgement, auditedDecision, reason, started);
        return;
      }
      forward(request, response, callback, call, judgement, auditedDecision, reason, started);
    }

    /**
     * One question for the whole call: every action it does is listed (class, target,
     * repository, what it says, and whether its rule asks or allows), so that an allow covers
     * exactly what the approver was shown.
     */
    private Approvals.ApprovalAnswer ask(ApiCall call, ApiJudgement judgement) {
      List<ApiJudgement.ApiAction> asking = judgement.actions().stream()
          .filter(a -> a.decision() == Decision.ASK).toList();
      ApiJudgement.ApiAction first = asking.get(0);
      String classes = String.join(", ", asking.stream().map(ApiJudgement.ApiAction::kind)
          .distinct().toList());
      String repositories = String.join(", ", judgement.actions().stream()
          .map(ApiJudgement.ApiAction::repository).filter(Objects::nonNull).distinct().toList());
      List<String> covered = new ArrayList<>();
      covered.add(call.method() + " " + call.host() + call.path());
      for (ApiJudgement.ApiAction a : judgement.actions()) {
        covered.add((a.decision() == Decision.ASK ? "needs approval: " : "allowed by its rule: ")
            + a.kind() + " " + a.target() + (a.repository() == null ? "" : " on "
            + a.repository()) + (a.says().isEmpty() ? "" : ": " + a.says()));
      }
      ApprovalQuestion q = new ApprovalQuestion(run.runId(), run.workspaceId(), repositories,
          asking.size() == 1 ? first.target() : asking.size() + " actions: " + String.join(", ",
              asking.stream().map(ApiJudgement.ApiAction::target).toList()),
          "api " + classes, null, null, classes,
          String.join("; ", asking.stream().map(ApiJudgement.ApiAction::reason).distinct()
              .toList()), covered, classes);
      try {
        return shared.approvals().ask(q, line -> { });
      } catch (RuntimeException e) {
        LOG.warn("run {}: asking about an API call failed: {}", run.runId(), e.toString());
        return Approvals.ApprovalAnswer.refuse(dev.pushgate.gateway.RefusalCode.NO_APPROVER, first.reason()
            + " (the approvers could not be asked)");
      }
    }

    private void refuse(Response response, Callback callback, ApiCall call,
        ApiJudgement judgement, String decision, String reason, long started) {
      refuse(response, callback, call, judgement, decision, reason, 403, started);
    }

    private void refuse(Response response, Callback callback, ApiCall call,
        ApiJudgement judgement, String decision, String reason, int status, long started) {
      if (!audit(call, judgement, decision, reason, 0, started)) {
        GitHubError.write(response, callback, 503, "pushgate cannot write its audit log;"
            + " nothing was sent to GitHub");
        return;
      }
      GitHubError.write(response, callback, status,
          status == 403 ? POLICY_PREFIX + reason : reason);
    }

    private void forward(Request request, Response response, Callback callback, ApiCall call,
        ApiJudgement judgement, String decision, String reason, long started) {
      WriteTokenLease lease = null;
      try {
        // Everything that can still stop the call happens before its record says "sent".
        Secret token;
        if (judgement.needsWriteToken()) {
          // One token for one repository: every action of the call must name the same one.
          List<String> repos = judgement.actions().stream()
              .map(ApiJudgement.ApiAction::repository).distinct().toList();
          String repo = repos.size() == 1 ? repos.get(0) : null;
          if (repo == null) {
            refuse(response, callback, call, judgement, "denied", repos.size() > 1
                ? "a write names more than one repository; pushgate mints a token for one"
                : "a write names no repository; pushgate mints no token for it", started);
            return;
          }
          try {
            lease = run.tokens().writeToken(repo);
          } catch (UpstreamException e) {
            refuse(response, callback, call, judgement, "denied", e.getMessage(), started);
            return;
          }
          token = lease.token();
        } else {
          token = run.tokens().readToken();
        }
        HttpRequest.Builder up;
        String upstreamHost;
        try {
          URI target = shared.upstream().target(call.host(), call.path(), call.query());
          upstreamHost = target.getHost();
          up = HttpRequest.newBuilder(target)
              .timeout(Duration.ofMinutes(2))
              .method(call.method(), call.body().length == 0
                  ? HttpRequest.BodyPublishers.noBody()
                  : HttpRequest.BodyPublishers.ofByteArray(call.body()));
          boolean links = DownloadLinks.carriesLinks(call.path());
          for (HttpField f : request.getHeaders()) {
            if (!HOP_BY_HOP.contains(f.getLowerCaseName())
                && !(links && f.getLowerCaseName().equals("accept-encoding"))) {
              up.header(f.getName(), f.getValue());
            }
          }
        } catch (IllegalArgumentException | NullPointerException e) {
          // Never the exception's text: it quotes the header.
          refuse(response, callback, call, judgement, "denied", "the call has a header or"
              + " target pushgate cannot send on", 400, started);
          return;
        }
        up.header("Authorization", "token " + token.reveal());
        if (!audit(call, judgement, decision, reason, -1, started)) {
          GitHubError.write(response, callback, 503, "pushgate cannot write its audit log;"
              + " nothing was sent to GitHub");
          return;
        }
        HttpResponse<InputStream> answer =
            shared.client().send(up.build(), HttpResponse.BodyHandlers.ofInputStream());
        response.setStatus(answer.statusCode());
        String answerType = answer.headers().firstValue("Content-Type").orElse(null);
        boolean rewritten = DownloadLinks.rewrites(call.path(), answerType);
        answer.headers().map().forEach((name, values) -> {
          String lower = name.toLowerCase(Locale.ROOT);
          if (!HOP_BY_HOP.contains(lower) || lower.equals("content-length") && !rewritten) {
            for (String v : values) {
              // A download link's token is a credential of its own: not for the run.
              response.getHeaders().add(name, lower.equals("location")
                  ? DownloadLinks.location(v, upstreamHost) : v);
            }
          }
        });
        try (InputStream in = DownloadLinks.body(call.path(), answerType, answer.body());
            OutputStream out = Content.Sink.asOutputStream(response)) {
          in.transferTo(out);
          if (lease != null) {
            // Revoked before the answer's end reaches the run: no call of its races the token.
            lease.close();
            lease = null;
          }
        }
        callback.succeeded();
        LOG.info("run {}: {} {}{} {} upstream {}", run.runId(), call.method(), call.host(),
            call.path(), decision, answer.statusCode());
      } catch (UpstreamException e) { // no read token: nothing was sent or recorded as sent
        refuse(response, callback, call, judgement, "denied", e.getMessage(), started);
      } catch (IOException e) {
        LOG.warn("run {}: GitHub did not answer {} {}: {}", run.runId(), call.method(),
            call.path(), e.getClass().getSimpleName());
        if (!response.isCommitted()) {
          GitHubError.write(response, callback, 502, "GitHub did not answer pushgate");
        } else {
          callback.failed(e);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        callback.failed(e);
      } finally {
        if (lease != null) {
          lease.close();
        }
      }
    }

    /** Writes one record per action; false when the log would not take them. */
    private boolean audit(ApiCall call, ApiJudgement judgement, String decision, String reason,
        int status, long started) {
      Instant at = shared.clock().instant();
      long millis = (System.nanoTime() - started) / 1_000_000;
      List<ApiRecord> records = new ArrayList<>();
      for (ApiJudgement.ApiAction a : judgement.actions()) {
        records.add(new ApiRecord(at, run.runId(), run.workspaceId(), call.method(), call.host(),
            call.path(), a.kind(), a.repository(), a.target(), decision,
            a.decision() == judgement.decision() ? reason : a.reason(), status,
            millis));
      }
      try {
        shared.audit().record(records);
        return true;
      } catch (AuditLog.AuditException | RuntimeException e) {
        LOG.error("run {}: cannot audit an API call; refused: {}", run.runId(), e.getMessage());
        return false;
      }
    }
  }
}
