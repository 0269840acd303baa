package dev.pushgate.approvals.webhooks;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.pushgate.approvals.Answer;
import dev.pushgate.approvals.ApprovalDesk;
import dev.pushgate.approvals.ApprovalLog;
import dev.pushgate.approvals.Question;
import dev.pushgate.testkit.Wait;
import dev.pushgate.types.Secret;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Webhook deliveries over the wire: bodies, signatures, retries, and never a blocked desk. */
class WebhooksTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WITHIN = Duration.ofSeconds(20);
  /** The path of a Slack URL is its secret; it must not reach a log. */
  private static final String SECRET_PATH = "/services/T000/B000/XXXXsecretpathXXXX";
  private static final String SIGNING_KEY = "signing-key-do-not-log";
  private static final Webhooks.Tuning FAST = new Webhooks.Tuning(16, 3, Duration.ofMillis(50),
      Duration.ofSeconds(2), Duration.ofSeconds(2));

  private final WireMockServer server = new WireMockServer(options().dynamicPort());
  private final Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private Webhooks webhooks;

  @BeforeEach
  void start() {
    server.start();
    logs.start();
    ((Logger) LoggerFactory.getLogger(Webhooks.class)).addAppender(logs);
  }

  @AfterEach
  void stop() {
    if (webhooks != null) {
      webhooks.close();
    }
    ((Logger) LoggerFactory.getLogger(Webhooks.class)).detachAppender(logs);
    server.stop();
  }

  /** Hands {@code w} {@code times} questions about a push to main, as the desk would. */
  private static void askAboutMain(Webhooks w, int times) {
    for (int i = 0; i < times; i++) {
      w.onAsked(push("refs/heads/main", List.of()));
    }
  }

  private Webhooks webhooks(Webhook.Format format, String secret, Webhooks.Tuning tuning) {
    Webhook w = Webhook.of("webhook 1", server.baseUrl() + SECRET_PATH, format,
        secret == null ? null : Secret.of(secret));
    webhooks = new Webhooks(new WebhookSettings(List.of(w)), tuning,
        counting());
    return webhooks;
  }

  private int count(String outcome) {
    AtomicInteger n = outcomes.get(outcome);
    return n == null ? 0 : n.get();
  }

  private List<LoggedRequest> received(int n) throws Exception {
    return Wait.forValue(WITHIN, n + " webhook requests",
        () -> server.findAll(postRequestedFor(urlEqualTo(SECRET_PATH))),
        all -> all.size() >= n);
  }

  static Question push(String ref, List<String> commits) {
    Instant at = Instant.parse("2026-12-04T10:00:00Z");
    return new Question("q_0123456789abcdef", at, at.plusSeconds(300), "push", "r_run1", "ws",
        "acme/widget", ref, "update", "1111111111111111111111111111111111111111",
        "2222222222222222222222222222222222222222", null, "refs/heads/main: ask",
        "main needs a human", commits);
  }

  @Test
  void theGenericBodyCarriesEveryFieldOfTheSchema() throws Exception {
    server.stubFor(post(urlEqualTo(SECRET_PATH)).willReturn(ok()));
    Webhooks w = webhooks(Webhook.Format.GENERIC, null, FAST);
    Question q = push("refs/heads/main", List.of("2222222 \"quoted\" subject\nwith a newline"));
    w.onAsked(q);
    w.onEnded(q, new Answer(Answer.Outcome.DENIED, "bob", "denied by bob: not today"));

    List<LoggedRequest> got = received(2);
    JsonNode asked = JSON.readTree(got.get(0).getBodyAsString());
    assertThat(got.get(0).getHeader("Content-Type")).startsWith("application/json");
    assertThat(got.get(0).getHeader(Webhooks.EVENT_HEADER)).isEqualTo("approval.asked");
    assertThat(got.get(0).containsHeader(Webhooks.SIGNATURE_HEADER)).isFalse();
    assertThat(asked.get("event").asText()).isEqualTo("approval.asked");
    assertThat(asked.get("version").asInt()).isEqualTo(1);
    assertThat(asked.get("question_id").asText()).isEqualTo("q_0123456789abcdef");
    assertThat(asked.get("action").asText()).isEqualTo("push");
    assertThat(asked.get("run").asText()).isEqualTo("r_run1");
    assertThat(asked.get("workspace").asText()).isEqualTo("ws");
    assertThat(asked.get("repository").asText()).isEqualTo("acme/widget");
    assertThat(asked.get("ref").asText()).isEqualTo("refs/heads/main");
    assertThat(asked.get("kind").asText()).isEqualTo("update");
    assertThat(asked.get("old_id").asText()).isEqualTo("1".repeat(40));
    assertThat(asked.get("new_id").asText()).isEqualTo("2".repeat(40));
    assertThat(asked.get("command").isNull()).isTrue();
    assertThat(asked.get("rule").asText()).isEqualTo("refs/heads/main: ask");
    assertThat(asked.get("reason").asText()).isEqualTo("main needs a human");
    assertThat(asked.get("commits").get(0).asText())
        .isEqualTo("2222222 \"quoted\" subject\nwith a newline");
    assertThat(asked.get("asked_at").asText()).isEqualTo("2026-12-04T10:00:00Z");
    assertThat(asked.get("deadline").asText()).isEqualTo("2026-12-04T10:05:00Z");
    assertThat(asked.get("summary").asText()).startsWith("update refs/heads/main of acme/widget");
    for (String key : List.of("outcome", "by", "answer")) {
      assertThat(asked.has(key)).as(key).isTrue();
      assertThat(asked.get(key).isNull()).as(key).isTrue();
    }

    JsonNode ended = JSON.readTree(got.get(1).getBodyAsString());
    assertThat(ended.get("event").asText()).isEqualTo("approval.ended");
    assertThat(ended.get("question_id").asText()).isEqualTo("q_0123456789abcdef");
    assertThat(ended.get("outcome").asText()).isEqualTo("denied");
    assertThat(ended.get("by").asText()).isEqualTo("bob");
    assertThat(ended.get("answer").asText()).isEqualTo("denied by bob: not today");
    assertThat(ended.fieldNames()).toIterable().containsExactlyElementsOf(
        () -> asked.fieldNames());
    Wait.until(WITHIN, "two deliveries counted", () -> count("ok") == 2);
  }

  @Test
  void theSlackBodyIsAnIncomingWebhookMessageThatCannotMentionOrLink() throws Exception {
    server.stubFor(post(urlEqualTo(SECRET_PATH)).willReturn(ok()));
    Webhooks w = webhooks(Webhook.Format.SLACK, null, FAST);
    Question q = push("refs/heads/<!channel>", List.of("abc1234 see <https://evil.example|here>"
        + " & \u001b[2Jclear"));
    w.onAsked(q);
    w.onEnded(q, new Answer(Answer.Outcome.ALLOWED, "alice", "approved by alice"));

    List<LoggedRequest> got = received(2);
    JsonNode asked = JSON.readTree(got.get(0).getBodyAsString());
    assertThat(asked.get("text").asText()).isEqualTo(
        ":raising_hand: pushgate asks: update refs/heads/&lt;!channel&gt; of acme/widget"
            + " 1111111111..2222222222");
    assertThat(asked.get("blocks")).isNotEmpty().allSatisfy(b ->
        assertThat(b.get("type").asText()).isIn("section", "context"));
    // plain @here or a bare URL in agent text is not parsed into a mention or a link
    assertThat(asked.findValues("verbatim")).hasSize(asked.get("blocks").size())
        .allSatisfy(v -> assertThat(v.asBoolean()).isTrue());
    String all = asked.toString();
    assertThat(all).doesNotContain("<!channel>").doesNotContain("<https://")
        .doesNotContain("\u001b").contains("&lt;https://evil.example|here&gt; &amp; \\\\x1b[2J")
        .contains("*Run:* r_run1").contains("*Reason:* main needs a human");

    JsonNode ended = JSON.readTree(got.get(1).getBodyAsString());
    assertThat(ended.get("text").asText()).isEqualTo(":white_check_mark: pushgate question"
        + " allowed by alice: update refs/heads/&lt;!channel&gt; of acme/widget"
        + " 1111111111..2222222222");
  }

  @Test
  void aSignedBodyCarriesTheHmacOfItsExactBytes() throws Exception {
    server.stubFor(post(urlEqualTo(SECRET_PATH)).willReturn(ok()));
    webhooks(Webhook.Format.GENERIC, SIGNING_KEY, FAST).onAsked(push("refs/heads/main", List.of()));

    LoggedRequest r = received(1).get(0);
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(SIGNING_KEY.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    String expected = "sha256=" + HexFormat.of().formatHex(mac.doFinal(r.getBody()));
    assertThat(r.getHeader(Webhooks.SIGNATURE_HEADER)).isEqualTo(expected);
    assertThat(r.getBodyAsString()).doesNotContain(SIGNING_KEY);
  }

  @Test
  void aServerErrorIsRetriedUntilItSucceeds() throws Exception {
    server.stubFor(post(urlEqualTo(SECRET_PATH)).inScenario("flaky").whenScenarioStateIs(STARTED)
        .willReturn(aResponse().withStatus(500)).willSetStateTo("second"));
    server.stubFor(post(urlEqualTo(SECRET_PATH)).inScenario("flaky").whenScenarioStateIs("second")
        .willReturn(aResponse().withStatus(503)).willSetStateTo("up"));
    server.stubFor(post(urlEqualTo(SECRET_PATH)).inScenario("flaky").whenScenarioStateIs("up")
        .willReturn(ok()));
    webhooks(Webhook.Format.GENERIC, SIGNING_KEY, FAST).onAsked(push("refs/heads/main", List.of()));

    Wait.until(WITHIN, "the delivery to succeed", () -> count("ok") == 1);
    List<LoggedRequest> got = server.findAll(postRequestedFor(urlEqualTo(SECRET_PATH)));
    assertThat(got).hasSize(3);
    // the same delivery, the same body, each time
    assertThat(got).extracting(r -> r.getHeader(Webhooks.DELIVERY_HEADER)).containsOnly(
        got.get(0).getHeader(Webhooks.DELIVERY_HEADER));
    assertThat(count("failed")).isZero();
  }

  @Test
  void aDeliveryFailsAfterItsAttemptsAndAClientErrorIsNotRetried() throws Exception {
    server.stubFor(post(urlEqualTo(SECRET_PATH)).willReturn(aResponse().withStatus(502)));
    Webhooks w = webhooks(Webhook.Format.GENERIC, null, FAST);
    askAboutMain(w, 1);
    Wait.until(WITHIN, "the delivery to fail", () -> count("failed") == 1);
    assertThat(server.findAll(postRequestedFor(urlEqualTo(SECRET_PATH)))).hasSize(3);

    server.resetRequests();
    server.stubFor(post(urlEqualTo(SECRET_PATH)).willReturn(aResponse().withStatus(404)));
    askAboutMain(w, 1);
    Wait.until(WITHIN, "the second delivery to fail", () -> count("failed") == 2);
    assertThat(server.findAll(postRequestedFor(urlEqualTo(SECRET_PATH)))).hasSize(1);
    assertThat(messages()).anySatisfy(m -> assertThat(m).contains("status 404"));
  }

  @Test
  void aSlowOrUnreachableWebhookNeverHoldsTheDesk() throws Exception {
    server.stubFor(post(urlEqualTo(SECRET_PATH)).willReturn(ok().withFixedDelay(5_000)));
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort(); // nothing listens there once closed
    }
    Webhook slow = Webhook.of("webhook 1", server.baseUrl() + SECRET_PATH,
        Webhook.Format.GENERIC, null);
    Webhook down = Webhook.of("webhook 2", "http://127.0.0.1:" + closed + SECRET_PATH,
        Webhook.Format.SLACK, null);
    webhooks = new Webhooks(new WebhookSettings(List.of(slow, down)),
        new Webhooks.Tuning(16, 2, Duration.ofMillis(50), Duration.ofSeconds(1),
            Duration.ofSeconds(1)),
        counting());
    ApprovalDesk desk = desk();
    desk.observe(webhooks);
    try (AutoCloseable approver = desk.connect(new ApprovalDesk.Listener() {
      @Override
      public void onAsked(Question q) {}

      @Override
      public void onEnded(Question q, Answer a) {}
    })) {
      var answer = desk.askAsync(push("refs/heads/main", List.of()));
      String id = desk.pending(null).get(0).id();
      desk.answer(id, true, "alice", null);
      assertThat(answer.get().outcome()).isEqualTo(Answer.Outcome.ALLOWED);
      // Answered before either webhook's deliveries ended: the unreachable one fails both its
      // attempts within a few tens of milliseconds, the slow one's first attempt alone takes
      // its 1 s timeout, so a desk that waited for either would see a delivery counted here.
      assertThat(count("failed") + count("ok"))
          .as("webhook deliveries ended before the question was answered").isZero();
    }
    Wait.until(WITHIN, "both webhooks' four deliveries to fail",
        () -> count("failed") == 4);
    assertThat(messages()).anySatisfy(m -> assertThat(m).contains("no answer in time"))
        .anySatisfy(m -> assertThat(m).contains("the connection was refused"));
  }

  @Test
  void aWebhookIsNotAnApprover() {
    Webhooks w = webhooks(Webhook.Format.GENERIC, null, FAST);
    ApprovalDesk desk = desk();
    desk.observe(w);
    assertThat(desk.approverConnected()).isFalse();
    Answer a = desk.askAsync(push("refs/heads/main", List.of())).join();
    assertThat(a.outcome()).isEqualTo(Answer.Outcome.NO_APPROVER);
  }

  @Test
  void aFullQueueDropsWithAWarningAndACount() throws Exception {
    server.stubFor(post(urlEqualTo(SECRET_PATH)).willReturn(ok().withFixedDelay(3_000)));
    Webhooks w = webhooks(Webhook.Format.GENERIC, null,
        new Webhooks.Tuning(2, 1, Duration.ofMillis(50), Duration.ofSeconds(5),
            Duration.ofMillis(200)));
    askAboutMain(w, 10);
    // handed over without waiting for a delivery: the one in flight takes 3 s to be answered
    assertThat(count("ok")).as("deliveries done while the ten events were handed over").isZero();
    // one in flight (or about to be), two queued: at least seven of ten dropped
    assertThat(count("dropped")).isBetween(7, 8);
    assertThat(messages()).anySatisfy(m -> assertThat(m).contains("dropped")
        .contains("the queue is full (2 events waiting"));
  }

  @Test
  void noLogLineShowsTheUrlsPathOrTheSigningKey() throws Exception {
    server.stubFor(post(urlEqualTo(SECRET_PATH)).willReturn(aResponse().withStatus(500)));
    Webhooks w = webhooks(Webhook.Format.SLACK, SIGNING_KEY,
        new Webhooks.Tuning(1, 2, Duration.ofMillis(50), Duration.ofSeconds(2),
            Duration.ofMillis(200)));
    askAboutMain(w, 4);
    Wait.until(WITHIN, "a failed delivery", () -> count("failed") >= 1);
    w.close();
    List<String> lines = messages();
    assertThat(lines).isNotEmpty().anySatisfy(m -> assertThat(m).contains("localhost:" + server.port() + "/***"))
        .anySatisfy(m -> assertThat(m).contains("dropped"));
    assertThat(String.join("\n", lines)).doesNotContain("secretpath").doesNotContain("services")
        .doesNotContain(SIGNING_KEY);
    assertThat(w.toString()).doesNotContain("secretpath");
  }

  /** Webhooks that deliver each event to the test's server in both formats. */
  private Webhooks bothFormats() {
    Webhook generic = Webhook.of("webhook 1", server.baseUrl() + SECRET_PATH,
        Webhook.Format.GENERIC, null);
    Webhook slack = Webhook.of("webhook 2", server.baseUrl() + SECRET_PATH,
        Webhook.Format.SLACK, null);
    return new Webhooks(new WebhookSettings(List.of(generic, slack)), FAST, counting());
  }

  /**
   * A question about a GitHub API call says so: the generic body names it an api-call, and Slack
   * lists what the answer covers, not "commits" a push would have.
   */
  @Test
  void aQuestionAboutAnApiCallIsNamedAnApiCallNotAPush() throws Exception {
    server.stubFor(post(urlEqualTo(SECRET_PATH)).willReturn(ok()));
    Instant at = Instant.parse("2026-12-04T10:00:00Z");
    Question api = new Question("q_0123456789abcdef", at, at.plusSeconds(300),
        "open-pull-request", "r_run1", "ws", "acme/widget", "#new", "api open-pull-request", null,
        null, null, "open-pull-request", "pull requests need a human",
        List.of("POST api.github.com/repos/acme/widget/pulls",
            "needs approval: open-pull-request #new on acme/widget: title Add it"));
    webhooks = bothFormats();
    webhooks.onAsked(api);

    List<LoggedRequest> got = received(2);
    JsonNode first = JSON.readTree(got.get(0).getBodyAsString());
    JsonNode body = first.has("event") ? first : JSON.readTree(got.get(1).getBodyAsString());
    JsonNode message = first.has("event") ? JSON.readTree(got.get(1).getBodyAsString()) : first;
    assertThat(body.get("asks_about").asText()).isEqualTo("api-call");
    assertThat(body.get("action").asText()).isEqualTo("open-pull-request");
    assertThat(message.toString()).contains("*What the answer covers*\\n")
        .contains("POST api.github.com/repos/acme/widget/pulls").doesNotContain("*Commits*");
    assertThat(push("refs/heads/main", List.of()).asksAbout()).isEqualTo("push");
  }

  @Test
  void aTokenAnAgentWroteIsCutOutOfBothFormats() throws Exception {
    server.stubFor(post(urlEqualTo(SECRET_PATH)).willReturn(ok()));
    String token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0".repeat(2);
    Instant at = Instant.parse("2026-12-04T10:00:00Z");
    Question command = new Question("q_0123456789abcdef", at, at.plusSeconds(300), "command",
        "r_run1", "ws", "acme/widget", null, null, null, null,
        "curl -H 'Authorization: token " + token + "' https://api.github.com/user",
        "command policy", "network calls need a human", List.of("abc " + token));
    webhooks = bothFormats();
    webhooks.onAsked(command);

    List<LoggedRequest> got = received(2);
    JsonNode body = JSON.readTree(got.get(0).getBodyAsString());
    assertThat(body.get("command").asText()).isEqualTo(
        "curl -H 'Authorization: token [REDACTED]' https://api.github.com/user");
    assertThat(body.get("ref").isNull()).isTrue();
    for (LoggedRequest r : got) {
      assertThat(r.getBodyAsString()).doesNotContain(token).contains("[REDACTED]");
    }
  }

  @Test
  void aRedirectIsNotFollowed() throws Exception {
    server.stubFor(post(urlEqualTo(SECRET_PATH)).willReturn(aResponse().withStatus(307)
        .withHeader("Location", server.baseUrl() + "/elsewhere")));
    server.stubFor(post(urlEqualTo("/elsewhere")).willReturn(ok()));
    webhooks(Webhook.Format.GENERIC, SIGNING_KEY, FAST).onAsked(push("refs/heads/main", List.of()));
    Wait.until(WITHIN, "the delivery to fail", () -> count("failed") == 1);
    assertThat(server.findAll(postRequestedFor(urlEqualTo("/elsewhere")))).isEmpty();
    assertThat(messages()).anySatisfy(m -> assertThat(m).contains("status 307"));
  }

  @Test
  void aCloseSendsWhatIsQueuedWithinItsGrace() throws Exception {
    server.stubFor(post(urlEqualTo(SECRET_PATH)).willReturn(ok()));
    Webhooks w = webhooks(Webhook.Format.GENERIC, null, FAST);
    askAboutMain(w, 3);
    w.close();
    assertThat(count("ok")).isEqualTo(3);
    askAboutMain(w, 1);
    assertThat(count("dropped")).isEqualTo(1);
    assertThat(messages()).anySatisfy(m -> assertThat(m).endsWith("the appliance is stopping"));
  }

  @Test
  void aCloseStopsASlowDeliveryAfterItsGrace() throws Exception {
    server.stubFor(post(urlEqualTo(SECRET_PATH)).willReturn(ok().withFixedDelay(10_000)));
    Webhooks w = webhooks(Webhook.Format.GENERIC, null, new Webhooks.Tuning(16, 4,
        Duration.ofMillis(50), Duration.ofSeconds(20), Duration.ofMillis(300)));
    askAboutMain(w, 3);
    received(1);
    w.close();
    // returned before the delivery under way could land: its webhook answers only after 10 s
    assertThat(count("ok")).as("deliveries landed before close returned").isZero();
    assertThat(count("dropped")).isEqualTo(2);
    // the one under way gives up without retrying
    Wait.until(WITHIN, "the delivery under way to fail", () -> count("failed") == 1);
    assertThat(server.findAll(postRequestedFor(urlEqualTo(SECRET_PATH)))).hasSize(1);
  }

  private Webhooks.Outcomes counting() {
    return outcome -> outcomes.computeIfAbsent(outcome, k -> new AtomicInteger()).incrementAndGet();
  }

  private List<String> messages() {
    return logs.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  private static ApprovalDesk desk() {
    return new ApprovalDesk(Clock.systemUTC(), Duration.ofSeconds(30), Duration.ofSeconds(1),
        new ApprovalLog() {
          @Override
          public void asked(Question q) {}

          @Override
          public void ended(Question q, Answer a) {}
        }, runId -> true);
  }
}
