package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.pushgate.broker.AppKeyLoader;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.Cli;
import dev.pushgate.testkit.ControlClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the audit query, the gateway and the forge's App API must refuse with a 4xx and a reason
 * a person can act on, instead of a 500, a whole table, or a silent default.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RefusedRequestsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().withRepos("acme/widget");

  private JsonNode run;

  @BeforeAll
  void start() throws Exception {
    run = app.get().createRun("""
        {"workspaceId": "ws-refused", "mode": "chat", "repository": "acme/widget"}""");
  }

  @Test
  void theAuditQueryRefusesAnInstantOrLimitItCannotHonour() throws Exception {
    String since = "since must lie between 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z";
    String limit = "limit must be a whole number from 1 to 10000";
    Map<String, String> refused = Map.of(
        "since=%2B1000000000-12-31T23:59:59Z", since,
        "since=-1000000000-01-01T00:00:00Z", since,
        "limit=-1", limit, "limit=0", limit, "limit=10001", limit,
        "limit=99999999999", limit, "limit=ten", limit);
    for (Map.Entry<String, String> q : refused.entrySet()) {
      ControlClient.Answer a = app.get().control().get("/v1/audit?" + q.getKey());
      assertThat(a.status()).as(q.getKey()).isEqualTo(400);
      assertThat(a.body().get("error").asText()).as(q.getKey()).isEqualTo(q.getValue());
    }
    assertThat(app.get().control().get("/v1/audit?limit=10000&since=2026-01-01T00:00:00Z").status())
        .isEqualTo(200);

    // The CLI reading the database itself refuses the same.
    for (List<String> args : List.of(List.of("--limit", "-1"),
        List.of("--since", "+1000000000-12-31T23:59:59Z"), List.of("--since", "999999999999d"))) {
      List<String> cmd = new ArrayList<>(List.of("audit", "--database-url",
          "jdbc:sqlite:" + app.get().dataDir.resolve("pushgate.db")));
      cmd.addAll(args);
      Cli.Result r = Cli.of(cmd.toArray(String[]::new)).run();
      assertThat(r.exit()).as(r.out()).isEqualTo(1);
      assertThat(r.out()).as(String.join(" ", args)).startsWith("pushgate: --")
          .doesNotContain("Exception").doesNotContain("\tat ");
    }
  }

  @Test
  void aPushOfAHundredThousandRefsIsRefusedWith400AndMovesNothing() throws Exception {
    String credential = ForgeRefs.credential(run);
    assertThat(Forge.gatewayStatus(app.get(), "acme/widget", credential)).isEqualTo(200);
    ObjectId main = ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/main");
    byte[] body = RawPush.creations(main, 100_000, i -> "refs/heads/r" + i,
        "report-status side-band-64k agent=it");

    Wire.Answer a = Wire.post(app.get(), "/git/github.com/acme/widget.git/git-receive-pack",
        credential, body);

    assertThat(a.status()).isEqualTo(400);
    assertThat(a.body()).startsWith("malformed push request: the push's command list exceeds"
        + " 3,145,728 bytes (").endsWith(" refs and more); push fewer refs at a time\n");
    assertThat(ForgeRefs.of(app.get(), "acme/widget")).containsOnlyKeys("refs/heads/main");
    assertThat(app.get().healthz()).isEqualTo(200);
    assertThat(app.get().logText()).doesNotContain("InputOverLimitIOException");
  }

  @Test
  void theForgeAppApiRefusesPermissionsItsAppDoesNotDeclareAndMalformedOnes() throws Exception {
    long installation = JSON.readTree(
        forgeApi("GET", "/repos/acme/widget/installation", null).body()).get("id").asLong();
    String mint = "/app/installations/" + installation + "/access_tokens";
    String notGranted = "The permissions requested are not granted to this installation.";
    for (String permissions : List.of("{\"actions\":\"write\"}", "{\"metadata\":\"write\"}",
        "{\"contents\":\"read\",\"metadata\":\"write\"}", "{\"administration\":\"read\"}",
        "{\"contents\":\"admin\"}")) {
      HttpResponse<String> r = forgeApi("POST", mint,
          "{\"repositories\":[\"widget\"],\"permissions\":" + permissions + "}");
      assertThat(r.statusCode()).as(permissions).isEqualTo(422);
      assertThat(JSON.readTree(r.body()).get("message").asText()).isEqualTo(notGranted);
    }
    for (String permissions : List.of("\"contents:write\"", "[\"contents\"]", "1", "null")) {
      HttpResponse<String> r = forgeApi("POST", mint,
          "{\"repositories\":[\"widget\"],\"permissions\":" + permissions + "}");
      assertThat(r.statusCode()).as(permissions).isEqualTo(422);
      assertThat(JSON.readTree(r.body()).get("message").asText()).isEqualTo(
          "Invalid request.\n\nFor 'properties/permissions', " + permissions
              + " is not an object.");
    }
    HttpResponse<String> ok = forgeApi("POST", mint,
        "{\"repositories\":[\"widget\"],\"permissions\":{\"contents\":\"read\"}}");
    assertThat(ok.statusCode()).isEqualTo(201);
    assertThat(JSON.readTree(ok.body()).get("permissions"))
        .isEqualTo(JSON.readTree("{\"contents\":\"read\",\"metadata\":\"read\"}"));
    String token = JSON.readTree(ok.body()).get("token").asText();
    assertThat(HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + app.get().port() + "/forge/api/v3/installation/token"))
        .header("Authorization", "Bearer " + token).DELETE().build(),
        HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(204);
  }

  /** A call to the forge's App API with a JWT of its App, as the broker makes it. */
  private HttpResponse<String> forgeApi(String method, String path, String body)
      throws Exception {
    Instant now = Instant.now();
    SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), new JWTClaimsSet.Builder()
        .issuer("1").issueTime(Date.from(now.minusSeconds(60)))
        .expirationTime(Date.from(now.plusSeconds(540))).build());
    jwt.sign(new RSASSASigner(AppKeyLoader.load(app.get().dataDir.resolve("forge-app.pem"))));
    HttpRequest.Builder r = HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + app.get().port() + "/forge/api/v3" + path))
        .timeout(Duration.ofSeconds(30))
        .header("Authorization", "Bearer " + jwt.serialize())
        .header("Accept", "application/vnd.github+json");
    r = body == null ? r.GET() : r.method(method, HttpRequest.BodyPublishers.ofString(body));
    return HttpClient.newHttpClient().send(r.build(), HttpResponse.BodyHandlers.ofString());
  }
}
