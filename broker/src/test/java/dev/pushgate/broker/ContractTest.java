package dev.pushgate.broker;

import static dev.pushgate.broker.GitHubStub.BASE_PATH;
import static dev.pushgate.broker.GitHubStub.INSTALLATION;
import static dev.pushgate.broker.GitHubStub.LOOKUP;
import static dev.pushgate.broker.GitHubStub.MINT;
import static dev.pushgate.broker.GitHubStub.READ;
import static dev.pushgate.broker.GitHubStub.REPO;
import static dev.pushgate.broker.GitHubStub.REVOKE;
import static dev.pushgate.broker.GitHubStub.jsonResponse;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.pushgate.testkit.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The broker against GitHub's own OpenAPI description: what it sends must be allowed there, and
 * what the description's examples say GitHub answers must parse. The checker is itself shown to
 * catch what GitHub would refuse, so a clean result means something.
 */
class ContractTest extends StubbedGitHubFixture {
  private static final MediaType JSON = MediaType.get("application/json");

  @BeforeEach
  void reset() {
    github.reset();
  }

  private GitHubApp app() throws BrokerException {
    MutableClock clock = new MutableClock(Instant.now());
    return GitHubApp.create(GitHubAppConfig.of("123456", keyFile).withApiBaseUrl(github.apiBase()),
        HTTP, clock, new RecordingSleeper(clock));
  }

  private List<String> violations() {
    List<String> out = new ArrayList<>();
    for (LoggedRequest r : github.requests()) {
      out.addAll(github.contract.violations(r, BASE_PATH));
    }
    return out;
  }

  @Test
  void everyOperationTheBrokerUsesIsSentAsGitHubDescribesIt() throws Exception {
    github.respond("GET", "/app", 200, github.contract.example("integration"), null);
    github.respond("GET", LOOKUP, 200, github.installation(INSTALLATION), null);
    github.respond("POST", MINT, 201, github.token("ghs_x", READ), null);
    github.stub("DELETE", REVOKE, jsonResponse(204, null, null));
    GitHubApp app = app();

    app.identity();
    InstallationToken read = app.issueReadToken(REPO, OptionalLong.empty());
    github.respond("POST", MINT, 201,
        github.token("ghs_y", Map.of("contents", "write", "metadata", "read", "workflows", "write")),
        null);
    app.issueWriteToken(REPO, OptionalLong.of(read.repositoryId()), true);
    app.revoke(read.token());

    assertThat(github.requests()).extracting(r -> r.getMethod().getName() + " " + r.getUrl())
        .containsExactly(
            "GET /api/v3/app",
            "GET /api/v3/repos/octocat/Hello-World/installation",
            "POST /api/v3/app/installations/4242/access_tokens",
            "POST /api/v3/app/installations/4242/access_tokens",
            "DELETE /api/v3/installation/token");
    assertThat(violations()).isEmpty();
  }

  @Test
  void installationTokenExampleParses() throws Exception {
    TokenGrant grant = TokenGrant.parse(
        github.contract.example("installation-token").getBytes(StandardCharsets.UTF_8),
        new ObjectMapper());

    assertThat(grant.token().reveal()).isEqualTo("ghs_16C7e42F292c6912E7710c838347Ae178B4a");
    assertThat(grant.expiresAt()).isEqualTo(Instant.parse("2016-07-11T22:14:10Z"));
    assertThat(grant.permissions()).isEqualTo(Map.of("issues", "write", "contents", "read"));
    assertThat(grant.repositorySelection()).isEqualTo("selected");
    assertThat(grant.repositories()).containsExactly(
        new TokenGrant.GrantedRepository(1296269, "Hello-World", "octocat/Hello-World"));
  }

  @Test
  void installationExampleParses() throws Exception {
    github.stub("GET", LOOKUP, jsonResponse(200, github.contract.example("installation"), null));

    assertThat(app().installationId(REPO)).isEqualTo(1);
  }

  @Test
  void integrationExampleParses() throws Exception {
    github.stub("GET", "/app", jsonResponse(200, github.contract.example("integration"), null));

    assertThat(app().identity()).isEqualTo(new AppIdentity(1, "octoapp", "Octocat App"));
  }

  @Test
  void installationTokenExampleAsIsWouldBeOverGrantedForARunToken() throws Exception {
    github.respond("GET", "/repos/octocat/Hello-World/installation", 200,
        github.installation(INSTALLATION), null);
    github.stub("POST", MINT, jsonResponse(201, github.contract.example("installation-token"),
        null));
    github.stub("DELETE", REVOKE, jsonResponse(204, null, null));

    BrokerException e = org.assertj.core.api.Assertions.catchThrowableOfType(
        BrokerException.class, () -> app().issueReadToken(REPO, OptionalLong.empty()));

    assertThat(e.reason()).isEqualTo(BrokerException.Reason.OVER_GRANTED);
    assertThat(e.getMessage()).isEqualTo("GitHub granted a read token for octocat/Hello-World"
        + " beyond what was asked (issues: write (not asked)); the token was revoked");
  }

  // --- the checker itself ------------------------------------------------------------------

  private void send(String method, String path, String body, boolean githubHeaders)
      throws Exception {
    Request.Builder b = new Request.Builder().url(github.apiBase() + path)
        .header("Authorization", "Bearer x");
    if (githubHeaders) {
      b.header("Accept", "application/vnd.github+json").header("X-GitHub-Api-Version", "2022-11-28");
    }
    b.method(method, body == null ? null : RequestBody.create(body, JSON));
    try (Response response = HTTP.newCall(b.build()).execute()) {
      assertThat(response.code()).as("WireMock answers unmatched requests with 404").isEqualTo(404);
    }
  }

  @Test
  void checkerAcceptsAWellFormedTokenRequest() throws Exception {
    send("POST", MINT, "{\"repository_ids\":[1],\"permissions\":{\"contents\":\"read\"}}", true);

    assertThat(violations()).isEmpty();
  }

  @Test
  void checkerCatchesABodyOfTheWrongShape() throws Exception {
    send("POST", MINT, "{\"repositories\":[1],\"permissions\":{\"contents\":\"admin\"}}", true);

    assertThat(violations()).hasSize(2).allSatisfy(v ->
        assertThat(v).startsWith("POST /app/installations/4242/access_tokens body: "))
        .anySatisfy(v -> assertThat(v).contains("/repositories/0"))
        .anySatisfy(v -> assertThat(v).contains("/permissions/contents"));
  }

  @Test
  void checkerCatchesAPathGitHubDoesNotHave() throws Exception {
    send("POST", "/app/installations/4242/tokens", "{}", true);

    assertThat(violations()).containsExactly(
        "POST /app/installations/4242/tokens is not an operation in GitHub's description");
  }

  @Test
  void checkerCatchesANonIntegerInstallationId() throws Exception {
    send("POST", "/app/installations/acme/access_tokens", "{}", true);

    assertThat(violations()).containsExactly("POST /app/installations/acme/access_tokens path"
        + " parameter installation_id is not an integer: acme");
  }

  @Test
  void checkerCatchesMissingGitHubHeaders() throws Exception {
    send("GET", LOOKUP, null, false);

    assertThat(violations()).containsExactly(
        "GET /repos/octocat/Hello-World/installation has Accept: null, expected"
            + " application/vnd.github+json",
        "GET /repos/octocat/Hello-World/installation has X-GitHub-Api-Version: null, expected"
            + " 2022-11-28");
  }

  @Test
  void checkerCatchesABodyOnAnOperationThatTakesNone() throws Exception {
    send("DELETE", REVOKE, "{\"token\":\"x\"}", true);

    assertThat(violations()).containsExactly(
        "DELETE /installation/token has a body, but the operation takes none");
  }

  @Test
  void checkerCatchesAResponseBodyGitHubWouldNotSend() {
    assertThat(github.contract.responseViolations("POST", MINT, 201, "{\"expires_at\":1}"))
        .hasSize(2);
  }
}
