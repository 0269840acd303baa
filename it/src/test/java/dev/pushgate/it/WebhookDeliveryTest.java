package dev.pushgate.it;

import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The appliance posts a question and its end to the webhooks of its configuration file, while a
 * real git push waits for an approver; neither the webhook URLs nor the signing key reach its log.
 */
class WebhookDeliveryTest {
  private static final String ASK_MAIN = """
      {"workspaceId": "ws", "repository": "acme/widget",
       "rules": {"push": [{"refs": "refs/heads/main", "decision": "ask",
                           "reason": "main needs a human"}]}}""";
  private static final String GENERIC = "/hooks/generic-secretpath";
  private static final String SLACK = "/services/T0/B0/slack-secretpath";
  private static final String KEY = "it-signing-key-not-for-logs";
  private static final Duration WITHIN = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  @Test
  void anAskedAndAnsweredPushReachesBothWebhooksInOrder() throws Exception {
    WireMockServer hooks = new WireMockServer(options().dynamicPort());
    hooks.start();
    try {
      hooks.stubFor(post(urlEqualTo(GENERIC)).willReturn(ok()));
      hooks.stubFor(post(urlEqualTo(SLACK)).willReturn(ok()));
      Path data = Files.createDirectories(tmp.resolve("data"));
      String base = "http://127.0.0.1:" + hooks.port();
      Files.writeString(data.resolve("pushgate.yaml"), """
          webhooks:
            - url: %s%s
              format: generic
              secret: %s
            - url: %s%s
              format: slack
          """.formatted(base, GENERIC, KEY, base, SLACK));
      Path logFile;
      try (RunningAppliance app = RunningAppliance.start(data, "--approver-poll-grace", "2s")) {
        logFile = app.log;
        app.forgeCreate("acme/widget");
        Map<String, String> env = RunningAppliance.runEnv(app.createRun(ASK_MAIN));
        GitRun git = new GitRun(Files.createDirectories(tmp.resolve("home")), env);
        git.in(tmp, "clone", "-q", "https://github.com/acme/widget.git", "w").ok();
        Path w = tmp.resolve("w");
        Files.writeString(w.resolve("hooked.txt"), "hooked\n");
        git.in(w, "add", ".").ok();
        git.in(w, "commit", "-qm", "a subject with <!channel> & \"quotes\"").ok();
        String head = git.in(w, "rev-parse", "HEAD").ok().stdout().strip();

        Thread approver = approver(app);
        Wait.until(WITHIN, "the appliance to count the approver connected",
            () -> app.control().get("/v1/approvals").body().get("approverConnected").asBoolean());
        git.in(w, "push", "origin", "main").ok();
        approver.join(30_000);

        List<LoggedRequest> generic = received(hooks, GENERIC);
        JsonNode asked = JSON.readTree(generic.get(0).getBodyAsString());
        JsonNode ended = JSON.readTree(generic.get(1).getBodyAsString());
        assertThat(asked.get("event").asText()).isEqualTo("approval.asked");
        assertThat(asked.get("repository").asText()).isEqualTo("acme/widget");
        assertThat(asked.get("ref").asText()).isEqualTo("refs/heads/main");
        assertThat(asked.get("new_id").asText()).isEqualTo(head);
        assertThat(asked.get("reason").asText()).isEqualTo("main needs a human");
        assertThat(asked.get("commits").toString()).contains(
            "a subject with <!channel> & \\\"quotes\\\"");
        assertThat(asked.get("outcome").isNull()).isTrue();
        assertThat(ended.get("event").asText()).isEqualTo("approval.ended");
        assertThat(ended.get("question_id").asText()).isEqualTo(asked.get("question_id").asText());
        assertThat(ended.get("outcome").asText()).isEqualTo("allowed");
        assertThat(ended.get("by").asText()).isEqualTo("alice");
        for (LoggedRequest r : generic) {
          assertThat(r.getHeader("X-Pushgate-Signature-256")).isEqualTo(signature(r.getBody()));
        }

        List<LoggedRequest> slack = received(hooks, SLACK);
        assertThat(JSON.readTree(slack.get(0).getBodyAsString()).get("text").asText())
            .startsWith(":raising_hand: pushgate asks: update refs/heads/main of acme/widget");
        assertThat(JSON.readTree(slack.get(1).getBodyAsString()).get("text").asText())
            .startsWith(":white_check_mark: pushgate question allowed by alice:");
        assertThat(slack.get(0).getBodyAsString()).contains("&lt;!channel&gt; &amp;")
            .doesNotContain("<!channel>");
        assertThat(slack.get(0).containsHeader("X-Pushgate-Signature-256")).isFalse();

        Wait.until(WITHIN, "the metrics to count four deliveries", () -> metrics(app)
            .contains("pushgate_webhook_deliveries_total{outcome=\"ok\"} 4.0"));
      }
      // after the stop, the whole log: nothing of the URLs' paths or the key
      String log = Files.readString(logFile, StandardCharsets.UTF_8);
      assertThat(log).contains("approval events go to webhooks: generic " + base
          + "/*** (signed); slack " + base + "/***").contains("pushgate stopping").doesNotContain("secretpath").doesNotContain(KEY);
    } finally {
      hooks.stop();
    }
  }

  private static List<LoggedRequest> received(WireMockServer hooks, String path)
      throws Exception {
    return Wait.forValue(WITHIN, "two requests to " + path,
        () -> hooks.findAll(postRequestedFor(urlEqualTo(path))), all -> all.size() >= 2);
  }

  private static String signature(byte[] body) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(KEY.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    return "sha256=" + HexFormat.of().formatHex(mac.doFinal(body));
  }

  private static String metrics(RunningAppliance app) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(app.base()
        + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  /** Long-polls for the question and allows it as alice. */
  private static Thread approver(RunningAppliance app) {
    Thread t = new Thread(() -> {
      try {
        for (int i = 0; i < 60; i++) {
          JsonNode pending = app.control().get("/v1/approvals?wait=5").body().get("questions");
          if (pending.size() > 0) {
            app.control().post("/v1/approvals/" + pending.get(0).get("id").asText(),
                "{\"decision\": \"allow\", \"by\": \"alice\"}");
            return;
          }
        }
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    t.setDaemon(true);
    t.start();
    return t;
  }
}
