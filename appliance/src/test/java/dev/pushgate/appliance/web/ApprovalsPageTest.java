package dev.pushgate.appliance.web;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.pushgate.approvals.signin.Sessions;
import dev.pushgate.approvals.signin.SignInTokens;
import dev.pushgate.appliance.SandboxSocket;
import dev.pushgate.approvals.Answer;
import dev.pushgate.approvals.ApprovalDesk;
import dev.pushgate.approvals.ApprovalLog;
import dev.pushgate.approvals.Question;
import dev.pushgate.appliance.store.AuditChain;
import dev.pushgate.appliance.store.AuditSink;
import dev.pushgate.appliance.store.AuditStore;
import dev.pushgate.appliance.store.Database;
import dev.pushgate.gateway.Diffstat;
import dev.pushgate.testkit.MutableClock;
import dev.pushgate.testkit.Wait;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.eclipse.jetty.unixdomain.server.UnixDomainServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** The approvals page over the wire: sign-in, session, CSRF, Host, and the sandboxes' socket. */
class ApprovalsPageTest {
  private static final Pattern COOKIE = Pattern.compile("^(pushgate_approvals_\\d+)=([^;]+);");

  @TempDir Path tmp;
  private final MutableClock clock = new MutableClock(Instant.parse("2026-12-04T10:00:00Z"));
  private Database db;
  private Server server;
  private ApprovalDesk desk;
  private ApprovalsPage page;
  private int port;
  private Path sandboxSocket;
  /** What the page's gateway answers for every question; a test may set its own. */
  private Diffstat diffstat = Diffstat.unavailable("no gateway in this test");
  private Map<String, String> asker = Map.of();

  @BeforeEach
  void start() throws Exception {
    db = Database.open(tmp.resolve("pushgate.db"));
    AuditStore audit = new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE));
    // The desk keeps time of its own: the page's clock is moved to expire links and sessions.
    desk = new ApprovalDesk(java.time.Clock.systemUTC(), Duration.ofMinutes(5),
        Duration.ofSeconds(1), new ApprovalLog() {
          @Override
          public void asked(Question q) {}

          @Override
          public void ended(Question q, Answer a) {}
        }, runId -> true);
    server = new Server();
    ServerConnector tcp = new ServerConnector(server);
    tcp.setHost("127.0.0.1");
    server.addConnector(tcp);
    tcp.open();
    port = tcp.getLocalPort();
    UnixDomainServerConnector unix = new UnixDomainServerConnector(server);
    sandboxSocket = tmp.resolve("gateway.sock");
    unix.setUnixDomainPath(sandboxSocket);
    server.addConnector(unix);
    page = new ApprovalsPage(desk, audit, q -> diffstat, runId -> asker,
        new SignInTokens(clock, Duration.ofMinutes(5)),
        new Sessions(clock, Duration.ofMinutes(30), Duration.ofHours(12)),
        "127.0.0.1", port, Duration.ofMillis(200));
    ContextHandler context = new ContextHandler(page, ApprovalsPage.PATH);
    context.setAllowNullPathInContext(true);
    ContextHandlerCollection contexts = new ContextHandlerCollection(context);
    server.setHandler(new SandboxSocket(unix, false, contexts));
    server.start();
  }

  @AfterEach
  void stop() throws Exception {
    desk.close("test over");
    server.stop();
    db.close();
  }

  // --- sign-in

  @Test
  void aSignInLinkStartsASessionOnceWithAStrictHttpOnlyCookie() throws Exception {
    String token = token(page.signInLink());
    RawHttp.Reply r = get("/approvals/signin?token=" + token, null);
    assertThat(r.status()).isEqualTo(200);
    String cookie = r.header("Set-Cookie");
    assertThat(cookie).startsWith("pushgate_approvals_" + port + "=")
        .contains("; Path=/approvals").contains("; HttpOnly").contains("; SameSite=Strict")
        .contains("; Max-Age=43200").doesNotContain(token);
    // on to the page, whose address has no token
    assertThat(r.body()).contains("<meta http-equiv=\"refresh\" content=\"0; url=/approvals/\">");
    assertThat(get("/approvals/", cookieOf(r)).status()).isEqualTo(200);

    RawHttp.Reply again = get("/approvals/signin?token=" + token, null);
    assertThat(again.status()).isEqualTo(401);
    assertThat(again.header("Set-Cookie")).isNull();
    assertThat(again.body()).contains("This sign-in link is not valid: it was used already,"
        + " it expired, or it is not one this appliance issued.");
  }

  @Test
  void anExpiredLinkIsRefused() throws Exception {
    String token = token(page.signInLink());
    clock.advance(Duration.ofMinutes(5).plusSeconds(1));
    RawHttp.Reply r = get("/approvals/signin?token=" + token, null);
    assertThat(r.status()).isEqualTo(401);
    assertThat(r.header("Set-Cookie")).isNull();
  }

  @Test
  void aWrongMissingRepeatedOrOversizedTokenIsRefused() throws Exception {
    String token = token(page.signInLink());
    for (String query : List.of("", "?token=", "?token=" + token.substring(1),
        "?token=" + token + "x", "?token=" + token + "&token=" + token,
        "?token=" + "A".repeat(5000), "?token=%00%ff", "?TOKEN=" + token)) {
      RawHttp.Reply r = get("/approvals/signin" + query, null);
      assertThat(r.status()).as(query).isEqualTo(401);
      assertThat(r.header("Set-Cookie")).as(query).isNull();
    }
    // the refusals spent nothing: the real token still signs in once
    assertThat(get("/approvals/signin?token=" + token, null).status()).isEqualTo(200);
  }

  @Test
  void aFloodOfRefusedSignInsDoesNotFloodTheLog() throws Exception {
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    Logger logger = (Logger) LoggerFactory.getLogger(ApprovalsPage.class);
    logger.addAppender(logs);
    try {
      // any web page the approver opens can make the browser request this path
      for (int i = 0; i < 50; i++) {
        assertThat(get("/approvals/signin?token=guess" + i, null).status()).isEqualTo(401);
      }
    } finally {
      logger.detachAppender(logs);
    }
    assertThat(logs.list).filteredOn(e -> e.getFormattedMessage().contains("sign-in link was"
        + " refused")).hasSize(1);
  }

  @Test
  void aClientOnAnotherAddressIsRefusedEvenWithAValidLink() throws Exception {
    java.net.InetAddress other = java.util.Collections.list(
        java.net.NetworkInterface.getNetworkInterfaces()).stream()
        .flatMap(i -> java.util.Collections.list(i.getInetAddresses()).stream())
        .filter(a -> a instanceof java.net.Inet4Address && !a.isLoopbackAddress())
        .findFirst().orElse(null);
    org.junit.jupiter.api.Assumptions.assumeTrue(other != null,
        "this machine has no non-loopback IPv4 address");
    // what --bind 0.0.0.0 --allow-non-loopback does: the port is on the network too
    Server wide = new Server();
    ServerConnector any = new ServerConnector(wide);
    any.setHost("0.0.0.0");
    wide.addConnector(any);
    any.open();
    int widePort = any.getLocalPort();
    ApprovalsPage widePage = new ApprovalsPage(desk,
        new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE)),
        q -> Diffstat.unavailable("no gateway in this test"),
        new SignInTokens(clock, Duration.ofMinutes(5)),
        new Sessions(clock, Duration.ofMinutes(30), Duration.ofHours(12)),
        "0.0.0.0", widePort, Duration.ofMillis(200));
    ContextHandler context = new ContextHandler(widePage, ApprovalsPage.PATH);
    context.setAllowNullPathInContext(true);
    wide.setHandler(context);
    wide.start();
    try {
      ApprovalsPage.Link link = widePage.signInLink();
      assertThat(link.url()).startsWith("http://127.0.0.1:" + widePort + "/approvals/signin?");
      String request = "GET /approvals/signin?token=" + token(link) + " HTTP/1.1\r\nHost: "
          + "127.0.0.1:" + widePort + "\r\nConnection: close\r\n\r\n";
      try (Socket s = new Socket(other, widePort)) {
        s.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
        String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(answer).startsWith("HTTP/1.1 403").doesNotContain("Set-Cookie")
            .contains("answers only on the machine the appliance runs on");
      }
      // the link was not spent: from loopback it signs in
      try (Socket s = new Socket("127.0.0.1", widePort)) {
        s.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
        String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(answer).startsWith("HTTP/1.1 200").contains("Set-Cookie: pushgate_approvals_");
      }
    } finally {
      wide.stop();
    }
  }

  @Test
  void theLinkIsOnTheLoopbackPortAndTheTokenHas256RandomBits() {
    ApprovalsPage.Link link = page.signInLink();
    assertThat(link.url()).startsWith("http://127.0.0.1:" + port + "/approvals/signin?token=");
    assertThat(token(link)).matches("[A-Za-z0-9_-]{43}");
    assertThat(token(page.signInLink())).isNotEqualTo(token(link));
    assertThat(link.toString()).doesNotContain(token(link));
    assertThat(link.expiresAt()).isEqualTo(clock.instant().plus(Duration.ofMinutes(5)));
  }

  // --- no session, no page

  @Test
  void withoutASessionEveryEndpointIsRefused() throws Exception {
    Question q = holdQuestion("refs/heads/main");
    for (String cookie : new String[] {null, "pushgate_approvals_" + port + "=forged",
        "pushgate_approvals_1=" + "x".repeat(43), "pushgate_approvals_" + port + "=",
        "pushgate_approvals_" + port + "=\"a;b\"; ;;==; x", "=; pushgate_approvals_" + port,
        "pushgate_approvals_" + port + "=" + "y".repeat(4000)}) {
      for (String path : List.of("/approvals/", "/approvals/app.js", "/approvals/app.css",
          "/approvals/session", "/approvals/events", "/approvals/audit",
          "/approvals/diffstat?id=" + q.id(), "/approvals/nothing-here")) {
        RawHttp.Reply r = get(path, cookie);
        assertThat(r.status()).as(path + " " + cookie).isEqualTo(401);
        assertThat(r.body()).as(path).contains("pushgate approvals open")
            .doesNotContain("csrf").doesNotContain(q.id());
      }
      for (String path : List.of("/approvals/answer", "/approvals/signout")) {
        RawHttp.Reply r = post(path, cookie, "Origin: http://127.0.0.1:" + port,
            "{\"id\":\"" + q.id() + "\",\"decision\":\"allow\"}");
        assertThat(r.status()).as(path).isEqualTo(401);
      }
    }
    assertThat(desk.pending(null)).containsExactly(q);
    assertThat(desk.approverConnected()).isTrue(); // only this test's own listener
  }

  @Test
  void aSessionEndsWhenIdleAndAtItsAbsoluteEnd() throws Exception {
    String idle = signIn();
    clock.advance(Duration.ofMinutes(29));
    assertThat(get("/approvals/session", idle).status()).isEqualTo(200);
    clock.advance(Duration.ofMinutes(29));
    assertThat(get("/approvals/session", idle).status()).isEqualTo(200);
    clock.advance(Duration.ofMinutes(30));
    assertThat(get("/approvals/session", idle).status()).isEqualTo(401);

    String busy = signIn();
    for (int i = 0; i < 12 * 4; i++) {
      clock.advance(Duration.ofMinutes(15));
      int status = get("/approvals/session", busy).status();
      assertThat(status).as("after %d minutes", (i + 1) * 15).isEqualTo(i + 1 < 48 ? 200 : 401);
    }
  }

  // --- changes: POST, CSRF token, same origin

  @Test
  void anAnswerWithoutTheSessionsCsrfTokenIsRefused() throws Exception {
    String cookie = signIn();
    Question q = holdQuestion("refs/heads/main");
    String body = "{\"id\":\"" + q.id() + "\",\"decision\":\"allow\"}";
    String origin = "Origin: http://127.0.0.1:" + port;
    RawHttp.Reply none = post("/approvals/answer", cookie, origin, body);
    assertThat(none.status()).isEqualTo(403);
    assertThat(none.body()).contains("refused: the request lacks this page's CSRF token");
    RawHttp.Reply wrong = post("/approvals/answer", cookie,
        origin + "\nX-CSRF-Token: " + "A".repeat(43), body);
    assertThat(wrong.status()).isEqualTo(403);
    // another session's token is no better
    String otherCsrf = csrf(signIn());
    assertThat(post("/approvals/answer", cookie, origin + "\nX-CSRF-Token: " + otherCsrf, body)
        .status()).isEqualTo(403);
    assertThat(desk.pending(null)).containsExactly(q);
  }

  @Test
  void anAnswerFromAnotherOriginOrSiteIsRefusedEvenWithTheToken() throws Exception {
    String cookie = signIn();
    String csrf = "X-CSRF-Token: " + csrf(cookie);
    Question q = holdQuestion("refs/heads/main");
    String body = "{\"id\":\"" + q.id() + "\",\"decision\":\"allow\"}";
    for (String headers : List.of("Origin: http://evil.example",
        "Origin: http://127.0.0.1:" + (port + 1), "Origin: https://127.0.0.1:" + port,
        "Origin: null", "Sec-Fetch-Site: cross-site", "Sec-Fetch-Site: same-site",
        "Origin: http://127.0.0.1:" + port + "\nSec-Fetch-Site: cross-site",
        "Origin: http://127.0.0.1:" + port + "\nOrigin: http://127.0.0.1:" + port, "")) {
      String head = headers.isEmpty() ? csrf : headers + "\n" + csrf;
      RawHttp.Reply r = post("/approvals/answer", cookie, head, body);
      assertThat(r.status()).as(headers).isEqualTo(403);
      assertThat(r.body()).as(headers).contains("refused: ");
    }
    assertThat(desk.pending(null)).containsExactly(q);
  }

  @Test
  void aSameOriginAnswerWithTheTokenAnswersAsTheWebApproverOrTheTypedName() throws Exception {
    String cookie = signIn();
    String csrf = csrf(cookie);
    CompletableFuture<Answer> first = ask("refs/heads/main");
    Question q1 = awaitPending(1).get(0);
    RawHttp.Reply r = post("/approvals/answer", cookie, "Origin: http://127.0.0.1:" + port
        + "\nX-CSRF-Token: " + csrf, "{\"id\":\"" + q1.id() + "\",\"decision\":\"allow\"}");
    assertThat(r.status()).isEqualTo(200);
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(
        new Answer(Answer.Outcome.ALLOWED, "web approver", "approved by web approver"));

    // a form without Origin, from a browser that says it is this page; the token as a field
    CompletableFuture<Answer> second = ask("refs/heads/release");
    Question q2 = awaitPending(1).get(0);
    RawHttp.Reply form = post("/approvals/answer", cookie, "Sec-Fetch-Site: same-origin",
        "application/x-www-form-urlencoded", "id=" + q2.id() + "&decision=deny&by=alice"
            + "&note=" + URLEncoder.encode("not\nbefore review", StandardCharsets.UTF_8)
            + "&csrf=" + URLEncoder.encode(csrf, StandardCharsets.UTF_8));
    assertThat(form.status()).isEqualTo(200);
    assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo(new Answer(Answer.Outcome.DENIED,
        "alice", "denied by alice: not before review"));

    RawHttp.Reply gone = post("/approvals/answer", cookie, "Origin: http://127.0.0.1:" + port
        + "\nX-CSRF-Token: " + csrf, "{\"id\":\"" + q1.id() + "\",\"decision\":\"deny\"}");
    assertThat(gone.status()).isEqualTo(404);
  }

  @Test
  void malformedAnswersAreRefusedWithAReason() throws Exception {
    String cookie = signIn();
    String head = "Origin: http://127.0.0.1:" + port + "\nX-CSRF-Token: " + csrf(cookie);
    Question q = holdQuestion("refs/heads/main");
    String id = q.id();
    record Case(String type, String body, int status, String says) {}
    for (Case c : List.of(
        new Case("application/json", "{\"id\":\"" + id + "\",\"decision\":\"yes\"}", 400,
            "an answer needs id and decision (allow or deny)"),
        new Case("application/json", "{\"id\":\"" + id + "\"}", 400, "an answer needs id"),
        new Case("application/json", "[1,2]", 400, "must be a JSON object"),
        new Case("application/json", "{\"id\":", 400, "not valid JSON"),
        new Case("application/json", "{\"id\":\"" + id + "\",\"decision\":true}", 400,
            "every field must be a string"),
        new Case("application/json", "{\"id\":\"" + id + "\",\"decision\":\"allow\",\"by\":\""
            + "b".repeat(201) + "\"}", 400, "'by' must be at most 200 characters"),
        // a field given twice: the JSON reader would take the last, the form the first
        new Case("application/json", "{\"id\":\"" + id + "\",\"decision\":\"deny\","
            + "\"decision\":\"allow\"}", 400, "every field may be given once"),
        new Case("application/x-www-form-urlencoded", "id=" + id + "&decision=allow"
            + "&decision=deny", 400, "every field may be given once"),
        new Case("application/x-www-form-urlencoded", "id=" + id + "&id=" + id
            + "&decision=allow", 400, "every field may be given once"),
        new Case("text/plain", "id=" + id + "&decision=allow", 415, "send application/json"),
        new Case("application/json", "{\"pad\":\"" + "x".repeat(20_000) + "\"}", 413,
            "larger than 16384 bytes"))) {
      RawHttp.Reply r = post("/approvals/answer", cookie, head, c.type(), c.body());
      assertThat(r.status()).as(c.body()).isEqualTo(c.status());
      assertThat(r.body()).as(c.body()).contains(c.says());
    }
    assertThat(desk.pending(null)).containsExactly(q);
  }

  @Test
  void aGetNeverAnswers() throws Exception {
    String cookie = signIn();
    Question q = holdQuestion("refs/heads/main");
    RawHttp.Reply r = get("/approvals/answer?id=" + q.id() + "&decision=allow&csrf="
        + URLEncoder.encode(csrf(cookie), StandardCharsets.UTF_8), cookie);
    assertThat(r.status()).isEqualTo(404);
    assertThat(RawHttp.tcp(port, "PUT /approvals/answer HTTP/1.1\nHost: 127.0.0.1:" + port
        + "\nCookie: " + cookie, "").status()).isEqualTo(405);
    assertThat(desk.pending(null)).containsExactly(q);
  }

  @Test
  void signingOutEndsTheSessionAndNeedsTheCsrfTokenToo() throws Exception {
    String cookie = signIn();
    String origin = "Origin: http://127.0.0.1:" + port;
    assertThat(post("/approvals/signout", cookie, origin, "{}").status()).isEqualTo(403);
    assertThat(get("/approvals/session", cookie).status()).isEqualTo(200);

    RawHttp.Reply out = post("/approvals/signout", cookie,
        origin + "\nX-CSRF-Token: " + csrf(cookie), "{}");
    assertThat(out.status()).isEqualTo(401);
    assertThat(out.body()).contains("You signed out.");
    assertThat(out.header("Set-Cookie")).isEqualTo("pushgate_approvals_" + port
        + "=; Path=/approvals; HttpOnly; SameSite=Strict; Max-Age=0");
    assertThat(get("/approvals/session", cookie).status()).isEqualTo(401);
  }

  @Test
  void eventStreamsAreBoundedAcrossSessions() throws Exception {
    String cookie = signIn();
    List<Socket> open = new java.util.ArrayList<>();
    try {
      for (int i = 0; i < ApprovalsPage.MAX_STREAMS; i++) {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(20_000);
        s.getOutputStream().write(("GET /approvals/events HTTP/1.1\r\nHost: 127.0.0.1:" + port
            + "\r\nCookie: " + cookie + "\r\n\r\n").getBytes(StandardCharsets.UTF_8));
        readUntil(new BufferedReader(new InputStreamReader(s.getInputStream(),
            StandardCharsets.UTF_8)), "event: connected");
        open.add(s);
      }
      RawHttp.Reply r = get("/approvals/events", signIn());
      assertThat(r.status()).isEqualTo(429);
      assertThat(r.body()).contains("too many approvals pages are open; close one");
    } finally {
      for (Socket s : open) {
        s.close();
      }
    }
  }

  // --- Host

  @Test
  void onlyTheLoopbackNamesOfThisPortAreAnsweredTo() throws Exception {
    String token = token(page.signInLink());
    for (String host : List.of("evil.example:" + port, "evil.example", "127.0.0.1",
        "127.0.0.1:" + (port + 1), "localhost.evil.example:" + port, "127.0.0.2:" + port,
        "0.0.0.0:" + port)) {
      RawHttp.Reply r = RawHttp.tcp(port, "GET /approvals/signin?token=" + token
          + " HTTP/1.1\nHost: " + host, null);
      assertThat(r.status()).as(host).isEqualTo(421);
      assertThat(r.header("Set-Cookie")).as(host).isNull();
    }
    for (String host : List.of("localhost:" + port, "[::1]:" + port, "LOCALHOST:" + port)) {
      String cookie = cookieOf(RawHttp.tcp(port, "GET /approvals/signin?token="
          + token(page.signInLink()) + " HTTP/1.1\nHost: " + host, null));
      assertThat(RawHttp.tcp(port, "GET /approvals/session HTTP/1.1\nHost: " + host
          + "\nCookie: " + cookie, null).status()).as(host).isEqualTo(200);
    }
    // a session is no help through a rebound name either
    String cookie = signIn();
    assertThat(RawHttp.tcp(port, "GET /approvals/session HTTP/1.1\nHost: evil.example:" + port
        + "\nCookie: " + cookie, null).status()).isEqualTo(421);
    // the refused requests spent nothing
    assertThat(get("/approvals/signin?token=" + token, null).status()).isEqualTo(200);
  }

  // --- headers

  @Test
  void everyAnswerForbidsForeignResourcesFramingAndCaching() throws Exception {
    String cookie = signIn();
    for (RawHttp.Reply r : List.of(get("/approvals/", cookie), get("/approvals/app.js", cookie),
        get("/approvals/", null), get("/approvals/signin?token=x", null))) {
      assertThat(r.header("Content-Security-Policy")).startsWith("default-src 'self';")
          .contains("frame-ancestors 'none'");
      assertThat(r.header("X-Content-Type-Options")).isEqualTo("nosniff");
      assertThat(r.header("Cache-Control")).isEqualTo("no-store");
      assertThat(r.header("Referrer-Policy")).isEqualTo("no-referrer");
    }
    RawHttp.Reply index = get("/approvals/", cookie);
    assertThat(index.header("Content-Type")).startsWith("text/html");
    // no inline script, no resource from elsewhere
    assertThat(index.body()).doesNotContainPattern("<script>|<script [^>]*>[^<]")
        .doesNotContain("http://").doesNotContain("https://");
  }

  // --- the stream

  @Test
  void theEventStreamCountsAsAnApproverAndCarriesQuestionsAsJson() throws Exception {
    String cookie = signIn();
    assertThat(desk.approverConnected()).isFalse();
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
      s.setSoTimeout(20_000);
      s.getOutputStream().write(("GET /approvals/events HTTP/1.1\r\nHost: 127.0.0.1:" + port
          + "\r\nCookie: " + cookie + "\r\n\r\n").getBytes(StandardCharsets.UTF_8));
      BufferedReader in = new BufferedReader(
          new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
      readUntil(in, "event: connected");
      assertThat(desk.approverConnected()).isTrue();
      CompletableFuture<Answer> held = ask("refs/heads/evil<script>alert(1)</script>\u202e");
      String data = readUntil(in, "data: {\"id\":\"q_");
      assertThat(data).contains("\"ref\":\"refs/heads/evil<script>alert(1)</script>\\\\u202e\"");
      desk.answer(desk.pending(null).get(0).id(), false, "bob", null);
      held.get(10, TimeUnit.SECONDS);
      assertThat(readUntil(in, "event: ended")).isEqualTo("event: ended");

      // the session ends: the stream says so and closes, and stops counting as an approver
      clock.advance(Duration.ofHours(13));
      readUntil(in, "event: signedout");
    }
    Wait.until(Duration.ofSeconds(20), "the page's stream to stop counting",
        () -> !desk.approverConnected());
  }

  // --- the sandboxes' socket

  @Test
  void theSandboxSocketServesNothingOfThePage() throws Exception {
    String token = token(page.signInLink());
    String cookie = signIn();
    for (String path : List.of("/approvals", "/approvals/", "/approvals/signin?token=" + token,
        "/approvals/events", "/approvals/session", "/approvals/app.js", "/approvals/audit",
        "/git/../approvals/", "/approvals/%2e%2e/approvals/")) {
      RawHttp.Reply r = RawHttp.unix(sandboxSocket, "GET " + path + " HTTP/1.1\nHost: 127.0.0.1:"
          + port + "\nCookie: " + cookie, null);
      assertThat(r.status()).as(path).isIn(400, 404);
      assertThat(r.header("Set-Cookie")).as(path).isNull();
      assertThat(r.body()).as(path).doesNotContain("csrf").doesNotContain("pushgate approvals open");
    }
    RawHttp.Reply post = RawHttp.unix(sandboxSocket, "POST /approvals/answer HTTP/1.1\nHost: "
        + "127.0.0.1:" + port + "\nCookie: " + cookie + "\nOrigin: http://127.0.0.1:" + port
        + "\nContent-Type: application/json\nX-CSRF-Token: " + csrf(cookie), "{}");
    assertThat(post.status()).isEqualTo(404);
    // the token was not spent there
    assertThat(get("/approvals/signin?token=" + token, null).status()).isEqualTo(200);
  }

  @Test
  void theDiffAndWhoAsksAreSentAsTextWithEveryInvisibleCharacterEscaped() throws Exception {
    diffstat = new Diffstat(List.of(new Diffstat.File("<b>x</b>.txt", null, "add", 1, 0, false)),
        1, 0, 0, "nothing", null, List.of(new Diffstat.FileDiff(List.of(new Diffstat.Line(
            Diffstat.Line.Kind.ADDED, 0, 1, "\tok();\u202e evil", null)), 0)),
        List.of("A\u200b <a@example.com>"), List.of());
    asker = Map.of("agent", "claude\u202e");
    Question q = holdQuestion("refs/heads/main");
    String cookie = signIn();

    RawHttp.Reply r = get("/approvals/diffstat?id=" + q.id(), cookie);

    assertThat(r.status()).isEqualTo(200);
    var n = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body());
    assertThat(n.at("/files/0/path").asText()).isEqualTo("<b>x</b>.txt");
    assertThat(n.at("/files/0/lines/0/text").asText()).isEqualTo("\tok();\\u202e evil");
    assertThat(n.at("/files/0/lines/0/new").asInt()).isEqualTo(1);
    assertThat(n.at("/authors/0").asText()).isEqualTo("A\\u200b <a@example.com>");
    assertThat(n.at("/asker/agent").asText()).isEqualTo("claude\\u202e");
    assertThat(n.at("/maxLines").asInt()).isEqualTo(Diffstat.MAX_LINES);
  }

  // --- helpers

  private String signIn() throws Exception {
    return cookieOf(get("/approvals/signin?token=" + token(page.signInLink()), null));
  }

  private String csrf(String cookie) throws Exception {
    RawHttp.Reply r = get("/approvals/session", cookie);
    assertThat(r.status()).isEqualTo(200);
    Matcher m = Pattern.compile("\"csrf\":\"([^\"]+)\"").matcher(r.body());
    assertThat(m.find()).isTrue();
    return m.group(1);
  }

  private static String cookieOf(RawHttp.Reply r) {
    Matcher m = COOKIE.matcher(r.header("Set-Cookie"));
    assertThat(m.find()).isTrue();
    return m.group(1) + "=" + m.group(2);
  }

  private static String token(ApprovalsPage.Link link) {
    return link.url().substring(link.url().indexOf("token=") + 6);
  }

  private RawHttp.Reply get(String path, String cookie) throws Exception {
    return RawHttp.tcp(port, "GET " + path + " HTTP/1.1\nHost: 127.0.0.1:" + port
        + (cookie == null ? "" : "\nCookie: " + cookie), null);
  }

  private RawHttp.Reply post(String path, String cookie, String headers, String json)
      throws Exception {
    return post(path, cookie, headers, "application/json", json);
  }

  private RawHttp.Reply post(String path, String cookie, String headers, String type,
      String body) throws Exception {
    return RawHttp.tcp(port, "POST " + path + " HTTP/1.1\nHost: 127.0.0.1:" + port
        + (cookie == null ? "" : "\nCookie: " + cookie)
        + (headers.isEmpty() ? "" : "\n" + headers) + "\nContent-Type: " + type, body);
  }

  /** A question held at the desk, with a listener of this test's as its approver. */
  private Question holdQuestion(String ref) throws Exception {
    ask(ref);
    return awaitPending(1).get(0);
  }

  private CompletableFuture<Answer> ask(String ref) {
    if (!desk.approverConnected()) {
      desk.connect(new ApprovalDesk.Listener() {
        @Override
        public void onAsked(Question q) {}

        @Override
        public void onEnded(Question q, Answer a) {}
      });
    }
    return desk.askAsync(new Question("-", null, null, "push", "run_1", "ws", "acme/widget",
        ref, "update", "0".repeat(39) + "1", "1".repeat(40), null, "push " + ref + " -> ask",
        "needs a human", List.of()));
  }

  private List<Question> awaitPending(int n) throws Exception {
    return Wait.forValue(Duration.ofSeconds(10), n + " pending question(s)",
        () -> desk.pending(null), p -> p.size() == n);
  }

  private static String readUntil(BufferedReader in, String prefix) throws Exception {
    for (String line; (line = in.readLine()) != null; ) {
      if (line.startsWith(prefix)) {
        return line;
      }
    }
    throw new AssertionError("the stream ended before a line starting " + prefix);
  }
}
