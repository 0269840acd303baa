package dev.pushgate.appliance.web;

import dev.pushgate.approvals.ApproverStream;
import dev.pushgate.appliance.control.JsonAnswer;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.approvals.ApprovalDesk;
import dev.pushgate.approvals.signin.Sessions;
import dev.pushgate.approvals.signin.SignInTokens;
import dev.pushgate.approvals.Answer;
import dev.pushgate.approvals.Question;
import dev.pushgate.appliance.control.AuditJson;
import dev.pushgate.appliance.store.AuditStore;
import dev.pushgate.gateway.Diffstat;
import dev.pushgate.gateway.ErrorAnswer;
import dev.pushgate.types.AuditEntry;
import dev.pushgate.types.UntrustedText;
import dev.pushgate.types.BoundedBody;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpCookie;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.util.UrlEncoded;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The approvers' web page on the loopback port, under {@link #PATH}: pending questions live, allow
 * or deny with a note, the recent audit. Nothing here answers without a session, and a session
 * starts only from a one-time link that {@code pushgate approvals open} prints (the control
 * socket, which only the appliance's user can open). Changes are POSTs that carry the session's
 * CSRF token and come from this page's own origin; every request needs a Host the appliance
 * answers to. Never served on the sandboxes' socket ({@code SandboxSocket} answers 404 there).
 */
public final class ApprovalsPage extends Handler.Abstract {
  private static final Logger log = LoggerFactory.getLogger(ApprovalsPage.class);

  public static final String PATH = "/approvals";
  /** Audit entries the page shows. */
  static final int AUDIT_ENTRIES = 25;
  /** Event streams open at once, of all sessions: each holds a request thread. */
  static final int MAX_STREAMS = 8;
  static final int MAX_BODY = 16 * 1024;
  static final int MAX_TEXT = 200;
  static final String CSRF_HEADER = "X-CSRF-Token";
  static final String DEFAULT_BY = "web approver";
  static final String CSP = "default-src 'self'; base-uri 'none'; form-action 'self';"
      + " frame-ancestors 'none'";

  /** What a push question would change; the page asks for it per question. */
  @FunctionalInterface
  public interface Diffstats {
    Diffstats NONE = q -> Diffstat.unavailable("the appliance computes no diffstats here");

    Diffstat of(Question q);
  }

  /**
   * Who asks: what the launcher said of a run when it created it (session, agent, mode…), by
   * label, in the order to show; empty when the run is not known here.
   */
  @FunctionalInterface
  public interface Askers {
    Askers NONE = runId -> Map.of();

    Map<String, String> of(String runId);
  }

  private final ApprovalDesk desk;
  private final AuditStore audit;
  private final Diffstats diffstats;
  private final Askers askers;
  private final SignInTokens tokens;
  private final Sessions sessions;
  private final RequestGuard guard;
  private final String base;
  private final String cookieName;
  private final ApproverStream stream;
  private final AtomicInteger streams = new AtomicInteger();
  private final ObjectMapper json = new ObjectMapper();
  /** Reads answers: a key given twice is an error, not the last one winning. */
  private static final ObjectMapper STRICT_JSON = new ObjectMapper()
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
  private final Map<String, Diffstat> diffstatCache = new ConcurrentHashMap<>();
  private final Map<String, Asset> assets;
  /**
   * Refused sign-ins are logged at most once a minute, with a count: any local process, and any
   * web page the approver's browser opens, can request the sign-in path, and must not be able to
   * fill the appliance's log.
   */
  private final RefusedSignIns refusedSignIns = new RefusedSignIns(Duration.ofMinutes(1));

  /** A file of the page, read from the classpath once. */
  private record Asset(String type, byte[] bytes) {}

  /**
   * @param bindHost the loopback address the appliance listens on
   * @param port its port: links, the Host check and the cookie's name use it
   */
  public ApprovalsPage(ApprovalDesk desk, AuditStore audit, Diffstats diffstats,
      SignInTokens tokens, Sessions sessions, String bindHost, int port, Duration keepalive) {
    this(desk, audit, diffstats, Askers.NONE, tokens, sessions, bindHost, port, keepalive);
  }

  public ApprovalsPage(ApprovalDesk desk, AuditStore audit, Diffstats diffstats, Askers askers,
      SignInTokens tokens, Sessions sessions, String bindHost, int port, Duration keepalive) {
    this.desk = desk;
    this.audit = audit;
    this.diffstats = diffstats;
    this.askers = askers;
    this.tokens = tokens;
    this.sessions = sessions;
    this.guard = new RequestGuard(bindHost, port);
    this.base = "http://" + linkHost(bindHost) + ":" + port + PATH;
    // Cookies are not kept apart by port: two appliances on one machine each keep their own.
    this.cookieName = "pushgate_approvals_" + port;
    this.stream = new ApproverStream(desk, json, keepalive, new ApproverStream.Shape() {
      @Override
      public JsonNode asked(Question q) {
        return WebJson.question(json, q);
      }

      @Override
      public JsonNode ended(Question q, Answer a) {
        return WebJson.ended(json, q, a);
      }
    }, true);
    this.assets = Map.of(
        "/", asset("index.html", "text/html; charset=utf-8"),
        "/app.js", asset("app.js", "text/javascript; charset=utf-8"),
        "/app.css", asset("app.css", "text/css; charset=utf-8"));
  }

  /** A sign-in link for {@code pushgate approvals open}: good once, until it expires. */
  public record Link(String url, Instant expiresAt) {
    @Override
    public String toString() {
      return "Link[***, expiresAt=" + expiresAt + "]";
    }
  }

  public Link signInLink() {
    SignInTokens.Issued issued = tokens.issue();
    return new Link(base + "/signin?token=" + issued.token(), issued.expiresAt());
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    secureHeaders(response);
    String path = Request.getPathInContext(request);
    String method = request.getMethod();
    try {
      if (!fromThisMachine(request)) {
        // Bound to a non-loopback address (--allow-non-loopback), the port is reachable from the
        // network, where the sign-in link and the cookie would cross in plain HTTP.
        text(response, callback, 403, "The approvals page answers only on the machine the"
            + " appliance runs on (a loopback address); open it there.\n");
        return true;
      }
      Optional<String> badHost = guard.badHost(request);
      if (badHost.isPresent()) {
        // 421: this server is not the one the browser meant (a rebound name, say).
        text(response, callback, 421, badHost.get() + ".\n");
        return true;
      }
      if (path.isEmpty()) {
        redirect(response, callback, PATH + "/");
        return true;
      }
      if (path.equals("/signin")) {
        signIn(request, response, callback);
        return true;
      }
      Optional<Sessions.Session> session = session(request);
      if (session.isEmpty()) {
        signedOut(response, callback, "You are not signed in, or your session ended.");
        return true;
      }
      route(request, response, callback, path, method, session.get());
    } catch (RefusedRequest e) {
      jsonError(response, callback, e.status, e.getMessage());
    } catch (Exception e) {
      log.error("approvals page {} {} failed", method, path, e);
      jsonError(response, callback, 500, "internal error; see the appliance log");
    }
    return true;
  }

  private void route(Request request, Response response, Callback callback, String path,
      String method, Sessions.Session session) throws Exception {
    if (method.equals("POST")) {
      Optional<String> crossSite = guard.crossSite(request);
      if (crossSite.isPresent()) {
        log.warn("approvals page: refused a {} to {}: {}", method, path, crossSite.get());
        throw new RefusedRequest(403, "refused: " + crossSite.get());
      }
      switch (path) {
        case "/answer" -> answer(request, response, callback, session);
        case "/signout" -> signOut(request, response, callback, session);
        default -> throw new RefusedRequest(404, "no such page");
      }
      return;
    }
    if (!method.equals("GET")) {
      response.getHeaders().put(HttpHeader.ALLOW, "GET, POST");
      throw new RefusedRequest(405, "use GET to read and POST to answer");
    }
    Asset asset = assets.get(path);
    if (asset != null) {
      response.setStatus(200);
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, asset.type());
      response.write(true, ByteBuffer.wrap(asset.bytes()), callback);
      return;
    }
    switch (path) {
      case "/session" -> send(response, callback, 200,
          json.createObjectNode().put("csrf", session.csrf()).put("by", DEFAULT_BY));
      case "/events" -> events(response, callback, session);
      case "/audit" -> send(response, callback, 200, recentAudit());
      case "/diffstat" -> diffstat(request, response, callback);
      default -> throw new RefusedRequest(404, "no such page");
    }
  }

  private void signIn(Request request, Response response, Callback callback) throws Exception {
    if (!request.getMethod().equals("GET")) {
      throw new RefusedRequest(405, "follow the sign-in link");
    }
    List<String> values = query(request).map(q -> q.getValues("token")).orElse(null);
    String token = values == null || values.size() != 1 ? null : values.get(0);
    if (!tokens.redeem(token)) {
      refusedSignIns.refused();
      signedOut(response, callback, "This sign-in link is not valid: it was used already, it"
          + " expired, or it is not one this appliance issued.");
      return;
    }
    Sessions.Started started = sessions.start();
    log.info("approvals page: an approver signed in");
    response.getHeaders().add(HttpHeader.SET_COOKIE, cookieName + "=" + started.id()
        + "; Path=" + PATH + "; HttpOnly; SameSite=Strict; Max-Age="
        + sessions.absolute().toSeconds());
    // On to the page, whose address has no token. Not a 303: a link followed from another site
    // makes the whole redirect chain cross-site, and the SameSite=Strict cookie would not be sent
    // to the page; a refresh from this page is a navigation of the page's own site.
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/html; charset=utf-8");
    Content.Sink.write(response, true, SIGNED_IN, callback);
  }

  private static final String SIGNED_IN = """
      <!doctype html>
      <html lang="en"><head><meta charset="utf-8">
      <meta http-equiv="refresh" content="0; url=/approvals/">
      <title>pushgate approvals: signed in</title></head><body>
      <p>Signed in. <a href="/approvals/">On to the approvals page</a>.</p>
      </body></html>
      """;

  private void signOut(Request request, Response response, Callback callback,
      Sessions.Session session) throws Exception {
    Fields form = readForm(request);
    checkCsrf(request, form, session);
    for (HttpCookie c : cookies(request)) {
      sessions.end(c.getValue());
    }
    response.getHeaders().add(HttpHeader.SET_COOKIE, cookieName
        + "=; Path=" + PATH + "; HttpOnly; SameSite=Strict; Max-Age=0");
    signedOut(response, callback, "You signed out.");
  }

  private void answer(Request request, Response response, Callback callback,
      Sessions.Session session) throws Exception {
    Fields form = readForm(request);
    checkCsrf(request, form, session);
    String id = form.getValue("id");
    String decision = form.getValue("decision");
    if (id == null || decision == null || !(decision.equals("allow") || decision.equals("deny"))) {
      throw new RefusedRequest(400, "an answer needs id and decision (allow or deny)");
    }
    String by = clean(form.getValue("by"), "by");
    String note = clean(form.getValue("note"), "note");
    boolean allow = decision.equals("allow");
    Optional<Question> answered = desk.answer(id, allow, by == null || by.isEmpty()
        ? DEFAULT_BY : by, note);
    if (answered.isEmpty()) {
      throw new RefusedRequest(404, "no pending question " + UntrustedText.visible(
          id.length() > 40 ? id.substring(0, 40) + "…" : id) + " (answered already, timed out,"
          + " or withdrawn)");
    }
    send(response, callback, 200, json.createObjectNode().put("id", id).put("decision", decision));
  }

  private void events(Response response, Callback callback, Sessions.Session session)
      throws RefusedRequest {
    if (streams.incrementAndGet() > MAX_STREAMS) {
      streams.decrementAndGet();
      throw new RefusedRequest(429, "too many approvals pages are open; close one");
    }
    try {
      stream.serve(response, callback, () -> sessions.live(session));
    } finally {
      streams.decrementAndGet();
    }
  }

  private ObjectNode recentAudit() throws java.sql.SQLException {
    ArrayNode list = json.createArrayNode();
    for (AuditEntry r : audit.latest(
        new AuditStore.Query(null, null, null, null, AUDIT_ENTRIES))) {
      ObjectNode n = AuditJson.of(r);
      for (String field : List.of("runId", "workspaceId", "repository", "ref", "command", "call",
          "rule", "reason", "outcome")) {
        if (n.hasNonNull(field)) {
          n.put(field, UntrustedText.visible(n.get(field).asText()));
        }
      }
      list.add(n);
    }
    ObjectNode out = json.createObjectNode();
    out.set("entries", list);
    return out;
  }

  private void diffstat(Request request, Response response, Callback callback)
      throws RefusedRequest {
    String id = query(request).map(q -> q.getValue("id")).orElse(null);
    Question q = id == null ? null : desk.pending(null).stream()
        .filter(p -> p.id().equals(id)).findFirst().orElse(null);
    if (q == null) {
      throw new RefusedRequest(404, "no pending question with that id");
    }
    diffstatCache.keySet().retainAll(desk.pending(null).stream().map(Question::id).toList());
    Diffstat d = diffstatCache.computeIfAbsent(id, k -> q.command() != null
        ? Diffstat.unavailable("a command an agent wants to run, not a push: nothing to diff")
        : diffstats.of(q));
    send(response, callback, 200,
        WebJson.diffstat(json, id, d).set("asker", WebJson.asker(json, askers.of(q.runId()))));
  }

  /** The query's parameters; empty when they are not validly encoded (a malformed link). */
  private static Optional<Fields> query(Request request) {
    try {
      return Optional.of(Request.extractQueryParameters(request));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The form of an answer: url-encoded, or a JSON object of strings. */
  private Fields readForm(Request request) throws IOException, RefusedRequest {
    String body;
    try (InputStream in = Content.Source.asInputStream(request)) {
      body = BoundedBody.utf8(BoundedBody.read(in, request.getLength(), MAX_BODY));
    } catch (BoundedBody.Refused e) {
      throw e.why() == BoundedBody.Refused.Why.TOO_LARGE
          ? new RefusedRequest(413, "the request body is larger than " + MAX_BODY + " bytes")
          : new RefusedRequest(400, "the request body is not valid UTF-8");
    }
    String type = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
    String mime = type == null ? "" : type.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
    Fields fields = new Fields();
    if (mime.equals("application/x-www-form-urlencoded")) {
      try {
        UrlEncoded.decodeUtf8To(body, fields);
      } catch (IllegalArgumentException e) {
        throw new RefusedRequest(400, "the form is not validly encoded");
      }
    } else if (mime.equals("application/json")) {
      JsonNode n;
      try {
        n = body.isBlank() ? json.createObjectNode() : STRICT_JSON.readTree(body);
      } catch (JsonParseException e) {
        if (e.getMessage() != null && e.getMessage().startsWith("Duplicate field")) {
          throw new RefusedRequest(400, "every field may be given once");
        }
        throw new RefusedRequest(400, "the request body is not valid JSON");
      } catch (JsonProcessingException e) {
        throw new RefusedRequest(400, "the request body is not valid JSON");
      }
      if (n == null || !n.isObject()) {
        throw new RefusedRequest(400, "the request body must be a JSON object");
      }
      for (Map.Entry<String, JsonNode> e : n.properties()) {
        if (!e.getValue().isTextual()) {
          throw new RefusedRequest(400, "every field must be a string");
        }
        fields.add(e.getKey(), e.getValue().asText());
      }
    } else {
      throw new RefusedRequest(415, "send application/json or a url-encoded form");
    }
    // A field given twice is ambiguous ({"decision":"deny","decision":"allow"}: the JSON reader
    // would take the last, the form the first): refused, never guessed.
    for (Fields.Field f : fields) {
      if (f.getValues().size() > 1) {
        throw new RefusedRequest(400, "every field may be given once");
      }
    }
    return fields;
  }

  private static void checkCsrf(Request request, Fields form, Sessions.Session session)
      throws RefusedRequest {
    List<String> header = request.getHeaders().getValuesList(CSRF_HEADER);
    List<String> field = form.getValues("csrf");
    String presented = header.size() == 1 ? header.get(0)
        : header.isEmpty() && field != null && field.size() == 1 ? field.get(0) : null;
    if (!session.csrfMatches(presented)) {
      log.warn("approvals page: refused a change without this session's CSRF token");
      throw new RefusedRequest(403, "refused: the request lacks this page's CSRF token;"
          + " reload the page");
    }
  }

  private static String clean(String text, String field) throws RefusedRequest {
    if (text == null) {
      return null;
    }
    if (text.length() > MAX_TEXT) {
      throw new RefusedRequest(400, "'" + field + "' must be at most " + MAX_TEXT
          + " characters");
    }
    return text.replaceAll("[\\r\\n\\x00-\\x1f\\x7f]+", " ").strip();
  }

  private Optional<Sessions.Session> session(Request request) {
    for (HttpCookie c : cookies(request)) {
      Optional<Sessions.Session> s = sessions.find(c.getValue());
      if (s.isPresent()) {
        return s;
      }
    }
    return Optional.empty();
  }

  private List<HttpCookie> cookies(Request request) {
    List<HttpCookie> all = Request.getCookies(request);
    return all == null ? List.of()
        : all.stream().filter(c -> c.getName().equals(cookieName)).limit(4).toList();
  }

  /** Whether the client connected from a loopback address. */
  private static boolean fromThisMachine(Request request) {
    return request.getConnectionMetaData().getRemoteSocketAddress()
        instanceof InetSocketAddress a && a.getAddress() != null
        && a.getAddress().isLoopbackAddress();
  }

  /** The host a link names: a wildcard bind address is reached as 127.0.0.1. */
  static String linkHost(String bindHost) {
    String h = bindHost.startsWith("[") ? bindHost.substring(1, bindHost.length() - 1) : bindHost;
    if (h.equals("0.0.0.0") || h.equals("::") || h.equals("0:0:0:0:0:0:0:0")) {
      return "127.0.0.1";
    }
    return h.contains(":") ? "[" + h + "]" : h;
  }

  private static void secureHeaders(Response response) {
    var h = response.getHeaders();
    h.put("Content-Security-Policy", CSP);
    h.put("X-Content-Type-Options", "nosniff");
    h.put("X-Frame-Options", "DENY");
    h.put("Referrer-Policy", "no-referrer");
    h.put("Cross-Origin-Opener-Policy", "same-origin");
    h.put("Cross-Origin-Resource-Policy", "same-origin");
    h.put(HttpHeader.CACHE_CONTROL, "no-store");
  }

  private void signedOut(Response response, Callback callback, String why) {
    String page = SIGNED_OUT.replace("{why}", why);
    response.setStatus(401);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/html; charset=utf-8");
    Content.Sink.write(response, true, page, callback);
  }

  /** A fixed page: {@code why} is always one of this class's own sentences, never input. */
  private static final String SIGNED_OUT = """
      <!doctype html>
      <html lang="en"><head><meta charset="utf-8"><title>pushgate approvals: sign in</title>
      </head><body>
      <h1>pushgate approvals</h1>
      <p id="why">{why}</p>
      <p>Ask the appliance for a sign-in link, on the machine it runs on, as its user:</p>
      <pre>pushgate approvals open --data-dir DATA_DIR</pre>
      <p>and open the link it prints. A link works once, for a few minutes.</p>
      </body></html>
      """;

  private static void redirect(Response response, Callback callback, String location) {
    response.setStatus(303);
    response.getHeaders().put(HttpHeader.LOCATION, location);
    response.write(true, null, callback);
  }

  private static void text(Response response, Callback callback, int status, String text) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
    Content.Sink.write(response, true, text, callback);
  }

  private void jsonError(Response response, Callback callback, int status, String message) {
    ErrorAnswer.write(response, callback, status, ErrorAnswer.PUSHGATE, message);
  }

  private void send(Response response, Callback callback, int status, JsonNode body) {
    JsonAnswer.send(json, response, callback, status, body);
  }

  private static Asset asset(String name, String type) {
    try (InputStream in = ApprovalsPage.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("the approvals page's " + name + " is missing from the"
            + " appliance's jar");
      }
      return new Asset(type, in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Logs refused sign-in links: the first at once, then at most one line per period. */
  static final class RefusedSignIns {
    private final long periodNanos;
    private long windowStart;
    private boolean windowOpen;
    private int unlogged;

    RefusedSignIns(Duration period) {
      this.periodNanos = period.toNanos();
    }

    synchronized void refused() {
      long now = System.nanoTime();
      if (windowOpen && now - windowStart < periodNanos) {
        unlogged++;
        return;
      }
      int before = unlogged;
      unlogged = 0;
      windowOpen = true;
      windowStart = now;
      log.info("approvals page: a sign-in link was refused (used already, expired or unknown){}",
          before == 0 ? "" : "; " + before + " more refused since the last such line");
    }
  }

  /** A refusal with its HTTP status; the message is for the person and holds no secret. */
  static final class RefusedRequest extends Exception {
    final int status;

    RefusedRequest(int status, String message) {
      super(message);
      this.status = status;
    }
  }
}
