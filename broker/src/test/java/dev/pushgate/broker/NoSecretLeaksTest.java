package dev.pushgate.broker;

import static dev.pushgate.broker.GitHubStub.INSTALLATION;
import static dev.pushgate.broker.GitHubStub.LOOKUP;
import static dev.pushgate.broker.GitHubStub.MINT;
import static dev.pushgate.broker.GitHubStub.READ;
import static dev.pushgate.broker.GitHubStub.REPO;
import static dev.pushgate.broker.GitHubStub.REVOKE;
import static dev.pushgate.broker.GitHubStub.error;
import static dev.pushgate.broker.GitHubStub.jsonResponse;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.client.WireMock;
import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.pushgate.testkit.MutableClock;
import dev.pushgate.types.Secret;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Drives every error path that has a token or the App JWT in hand and checks that neither shows up
 * in an exception's message, its stack trace, or anything logged.
 */
class NoSecretLeaksTest extends StubbedGitHubFixture {
  private static final String CANARY = "ghs_CANARY" + UUID.randomUUID().toString().replace("-", "");

  /** One error path: how to set GitHub up, and the call that must fail. */
  private record Scenario(String name, Runnable setUp, Call call) {}

  @FunctionalInterface
  private interface Call {
    void run(GitHubApp app) throws BrokerException;
  }

  private Map<String, String> readPlus(String name, String level) {
    Map<String, String> m = new HashMap<>(READ);
    m.put(name, level);
    return m;
  }

  private void installed() {
    github.respond("GET", LOOKUP, 200, github.installation(INSTALLATION), null);
  }

  private List<Scenario> scenarios() {
    Call read = app -> app.issueReadToken(REPO, OptionalLong.empty());
    return List.of(
        new Scenario("over-granted, revoked", () -> {
          installed();
          github.stub("POST", MINT, jsonResponse(201,
              github.token(CANARY, readPlus("issues", "write")), null));
          github.stub("DELETE", REVOKE, jsonResponse(204, null, null));
        }, read),
        new Scenario("over-granted, revoke fails", () -> {
          installed();
          github.stub("POST", MINT, jsonResponse(201,
              github.token(CANARY, readPlus("contents", "write")), null));
          github.stub("DELETE", REVOKE, jsonResponse(500, error(500, "Server Error"), null));
        }, read),
        new Scenario("over-granted, revoke unreachable", () -> {
          installed();
          github.stub("POST", MINT, jsonResponse(201,
              github.token(CANARY, readPlus("contents", "write")), null));
          github.stub("DELETE", REVOKE,
              WireMock.aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER));
        }, read),
        new Scenario("under-granted", () -> {
          installed();
          github.stub("POST", MINT, jsonResponse(201,
              github.token(CANARY, Map.of("metadata", "read")), null));
          github.stub("DELETE", REVOKE, jsonResponse(204, null, null));
        }, read),
        new Scenario("unreadable expiry", () -> {
          installed();
          var node = github.tree(github.token(CANARY, READ));
          node.put("expires_at", "tomorrow");
          github.stub("POST", MINT, jsonResponse(201, node.toString(), null));
          github.stub("DELETE", REVOKE, jsonResponse(401, error(401, "Bad credentials"), null));
        }, read),
        new Scenario("duplicate keys", () -> {
          installed();
          String t = github.token(CANARY, READ);
          github.stub("POST", MINT, jsonResponse(201,
              t.substring(0, t.length() - 1) + ",\"token\":\"" + CANARY + "\"}", null));
          github.stub("DELETE", REVOKE, jsonResponse(204, null, null));
        }, read),
        new Scenario("truncated answer", () -> {
          installed();
          String t = github.token(CANARY, READ);
          github.stub("POST", MINT, jsonResponse(201, t.substring(0, t.length() / 2), null));
        }, read),
        new Scenario("oversized answer", () -> {
          installed();
          var node = github.tree(github.token(CANARY, READ));
          node.put("padding", "x".repeat(GitHubRest.MAX_BODY_BYTES));
          github.stub("POST", MINT, jsonResponse(201, node.toString(), null));
        }, read),
        new Scenario("JWT rejected", () -> github.stub("GET", LOOKUP,
            jsonResponse(401, error(401, "Bad credentials"), null)), read),
        new Scenario("mint refused", () -> {
          installed();
          github.stub("POST", MINT, jsonResponse(403, error(403, "Forbidden"), null));
        }, read),
        new Scenario("mint invalid", () -> {
          installed();
          github.stub("POST", MINT, jsonResponse(422, error(422, "Invalid"), null));
        }, read),
        new Scenario("mint keeps failing", () -> {
          installed();
          github.stub("POST", MINT, jsonResponse(503, null, null));
        }, read),
        new Scenario("revoke refused", () -> github.stub("DELETE", REVOKE,
            jsonResponse(403, error(403, "Forbidden"), null)),
            app -> app.revoke(Secret.of(CANARY))),
        new Scenario("revoke keeps failing", () -> github.stub("DELETE", REVOKE,
            jsonResponse(502, error(502, "Bad Gateway"), null)),
            app -> app.revoke(Secret.of(CANARY))),
        new Scenario("revoke unreachable", () -> github.stub("DELETE", REVOKE,
            WireMock.aResponse().withFault(Fault.EMPTY_RESPONSE)),
            app -> app.revoke(Secret.of(CANARY))),
        new Scenario("token not fit for a header", () -> { },
            app -> app.revoke(Secret.of(CANARY + "\r\n"))));
  }

  @Test
  void noTokenOrJwtInAnyMessageStackTraceOrLogLine() throws Exception {
    List<String> texts = new ArrayList<>();
    List<String> jwts = new ArrayList<>();
    String log;
    try (LogCapture capture = new LogCapture()) {
      for (Scenario s : scenarios()) {
        github.reset();
        s.setUp().run();
        MutableClock clock = new MutableClock(Instant.now());
        GitHubApp app = GitHubApp.create(GitHubAppConfig.of("123456", keyFile)
            .withApiBaseUrl(github.apiBase()), HTTP, clock, new RecordingSleeper(clock));
        BrokerException thrown = null;
        try {
          s.call().run(app);
        } catch (BrokerException e) {
          thrown = e;
        }
        assertThat(thrown).as(s.name() + " should fail").isNotNull();
        StringWriter trace = new StringWriter();
        thrown.printStackTrace(new PrintWriter(trace));
        texts.add(s.name() + ": " + trace);
        for (LoggedRequest r : github.requests()) {
          String auth = r.getHeader("Authorization");
          if (auth != null && auth.startsWith("Bearer ey")) {
            jwts.add(auth.substring(7));
          }
        }
      }
      log = capture.text();
    }

    // the checks below only mean something if secrets were in play and things were logged
    assertThat(jwts).isNotEmpty();
    assertThat(log).contains("could not revoke a refused installation token")
        .contains("installation token revoked");
    for (String text : texts) {
      assertThat(text).doesNotContain(CANARY);
      for (String jwt : jwts) {
        assertThat(text).doesNotContain(jwt.substring(jwt.lastIndexOf('.') + 1));
      }
    }
    assertThat(log).doesNotContain(CANARY);
    for (String jwt : jwts) {
      assertThat(log).doesNotContain(jwt.substring(jwt.lastIndexOf('.') + 1));
    }
  }

  @Test
  void issuedTokenIsNotLoggedAndDoesNotPrint() throws Exception {
    String log;
    InstallationToken token;
    github.reset();
    installed();
    github.stub("POST", MINT, jsonResponse(201, github.token(CANARY, READ), null));
    try (LogCapture capture = new LogCapture()) {
      MutableClock clock = new MutableClock(Instant.now());
      token = GitHubApp.create(GitHubAppConfig.of("123456", keyFile)
              .withApiBaseUrl(github.apiBase()), HTTP, clock, new RecordingSleeper(clock))
          .issueReadToken(REPO, OptionalLong.empty());
      log = capture.text();
    }

    assertThat(log).contains("issued read token for octocat/Hello-World").doesNotContain(CANARY);
    assertThat(token.toString()).contains("Secret[***]").doesNotContain(CANARY);
  }
}
