package dev.pushgate.broker;

import static dev.pushgate.broker.GitHubStub.INSTALLATION;
import static dev.pushgate.broker.GitHubStub.LOOKUP;
import static dev.pushgate.broker.GitHubStub.MINT;
import static dev.pushgate.broker.GitHubStub.READ;
import static dev.pushgate.broker.GitHubStub.REPO;
import static dev.pushgate.broker.GitHubStub.REPO_ID;
import static dev.pushgate.broker.GitHubStub.REVOKE;
import static dev.pushgate.broker.GitHubStub.error;
import static dev.pushgate.broker.GitHubStub.jsonResponse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jwt.SignedJWT;
import dev.pushgate.broker.BrokerException.Reason;
import dev.pushgate.testkit.MutableClock;
import dev.pushgate.types.RepoSlug;
import dev.pushgate.types.Secret;
import java.nio.file.Path;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GitHubAppTest {
  private static final String APP_ID = "Iv23liTestClient";
  private static final String RID = "CAFE:1:2:3";
  private static final String TOKEN = "ghs_testtoken0123456789";

  private GitHubStub github;
  private static final OkHttpClient HTTP = new OkHttpClient();

  private Path dir;
  private Path keyFile;

  private final ObjectMapper json = new ObjectMapper();
  private MutableClock clock;
  private RecordingSleeper sleeper;
  private GitHubApp app;

  @BeforeAll
  void startGitHub(@TempDir Path tempDir) throws Exception {
    dir = tempDir;
    github = new GitHubStub();
    keyFile = TestKeys.write(dir, "app.pem", TestKeys.pkcs1(TestKeys.rsa().getPrivate()));
  }

  @AfterAll
  void stopGitHub() {
    github.close();
  }

  @BeforeEach
  void freshApp() throws Exception {
    github.reset();
    clock = new MutableClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    sleeper = new RecordingSleeper(clock);
    app = GitHubApp.create(config(), HTTP, clock, sleeper);
  }

  /** Whatever a test made the broker send, GitHub's description must allow it. */
  @AfterEach
  void everyRequestFollowsGitHubsDescription() {
    List<String> violations = new ArrayList<>();
    for (LoggedRequest r : github.requests()) {
      violations.addAll(github.contract.violations(r, GitHubStub.BASE_PATH));
    }
    assertThat(violations).isEmpty();
  }

  private GitHubAppConfig config() {
    return GitHubAppConfig.of(APP_ID, keyFile)
        .withApiBaseUrl(github.apiBase())
        .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(5));
  }

  private void installed() {
    github.respond("GET", LOOKUP, 200, github.installation(INSTALLATION), RID);
  }

  private void mints(Map<String, String> permissions) {
    github.respond("POST", MINT, 201, github.token(TOKEN, permissions), RID);
  }

  private void revokes() {
    github.stub("DELETE", REVOKE, jsonResponse(204, null, RID));
  }

  /** The body of a read token's mint for {@code repositories}, the JSON member naming them. */
  private JsonNode readMint(String repositories) throws Exception {
    return json.readTree("{" + repositories + ",\"permissions\":"
        + "{\"contents\":\"read\",\"metadata\":\"read\",\"pull_requests\":\"write\"}}");
  }

  /** What the first mint asked GitHub for: the repositories and the permissions. */
  private JsonNode firstMintBody() throws Exception {
    return json.readTree(github.requests("POST", MINT).get(0).getBodyAsString());
  }

  // --- issuing ---------------------------------------------------------------------------

  @Test
  void readTokenIsBoundByNameAndCarriesTheRepositoryId() throws Exception {
    installed();
    mints(READ);

    InstallationToken token = app.issueReadToken(REPO, OptionalLong.empty());

    assertThat(token.token().reveal()).isEqualTo(TOKEN);
    assertThat(token.repositoryId()).isEqualTo(REPO_ID);
    assertThat(token.expiresAt()).isEqualTo(Instant.parse("2026-12-02T11:00:00Z"));
    assertThat(token.permissions()).isEqualTo(READ);
    assertThat(firstMintBody()).isEqualTo(readMint("\"repositories\":[\"Hello-World\"]"));
  }

  @Test
  void readTokenIsBoundByIdWhenTheIdIsKnown() throws Exception {
    installed();
    mints(READ);

    InstallationToken token = app.issueReadToken(REPO, OptionalLong.of(REPO_ID));

    assertThat(token.repositoryId()).isEqualTo(REPO_ID);
    assertThat(firstMintBody()).isEqualTo(readMint("\"repository_ids\":[1296269]"));
  }

  @Test
  void writeTokenAsksContentsWriteAndWorkflowsOnlyWhenAsked() throws Exception {
    installed();
    mints(Map.of("contents", "write", "metadata", "read"));
    app.issueWriteToken(REPO, OptionalLong.of(REPO_ID), false);
    github.reset();
    installed();
    mints(Map.of("contents", "write", "metadata", "read", "workflows", "write"));

    InstallationToken withWorkflows = app.issueWriteToken(REPO, OptionalLong.of(REPO_ID), true);

    assertThat(withWorkflows.permissions())
        .isEqualTo(Map.of("contents", "write", "metadata", "read", "workflows", "write"));
    assertThat(firstMintBody().get("permissions")).isEqualTo(
        json.readTree("{\"contents\":\"write\",\"metadata\":\"read\",\"workflows\":\"write\"}"));
  }

  @Test
  void writeTokenWithoutWorkflowsAsksNoWorkflowsPermission() throws Exception {
    installed();
    mints(Map.of("contents", "write", "metadata", "read"));

    app.issueWriteToken(REPO, OptionalLong.empty(), false);

    assertThat(firstMintBody().get("permissions"))
        .isEqualTo(json.readTree("{\"contents\":\"write\",\"metadata\":\"read\"}"));
  }

  // --- installation lookup -----------------------------------------------------------------

  @Test
  void installationLookupIsCachedForTenMinutes() throws Exception {
    installed();

    assertThat(app.installationId(REPO)).isEqualTo(INSTALLATION);
    assertThat(app.installationId(new RepoSlug("OctoCat", "hello-world"))).isEqualTo(INSTALLATION);
    clock.advance(Duration.ofMinutes(10).minusSeconds(1));
    app.installationId(REPO);
    assertThat(github.requests("GET", LOOKUP)).hasSize(1);

    clock.advance(Duration.ofSeconds(1));
    app.installationId(REPO);
    assertThat(github.requests("GET", LOOKUP)).hasSize(2);
  }

  @Test
  void notInstalledSaysSoAndWhatToDo() {
    github.respond("GET", LOOKUP, 404, error(404, "Not Found"), RID);

    BrokerException e = readRefusal();

    assertThat(e.reason()).isEqualTo(Reason.NOT_INSTALLED);
    assertThat(e.requestId()).contains(RID);
    assertThat(e.getMessage()).isEqualTo("GitHub App is not installed on octocat/Hello-World:"
        + " install the App on the repository or its owner, then try again (request id " + RID
        + ")");
    assertThat(github.requests("POST", MINT)).isEmpty();
  }

  @Test
  void notInstalledIsRememberedForThirtySeconds() {
    github.respond("GET", LOOKUP, 404, error(404, "Not Found"), RID);

    catchThrowableOfType(BrokerException.class, () -> app.installationId(REPO));
    clock.advance(Duration.ofSeconds(29));
    BrokerException cached =
        catchThrowableOfType(BrokerException.class, () -> app.installationId(REPO));
    assertThat(github.requests("GET", LOOKUP)).hasSize(1);
    assertThat(cached.reason()).isEqualTo(Reason.NOT_INSTALLED);
    assertThat(cached.getMessage()).startsWith("GitHub App is not installed on octocat/Hello-World");

    clock.advance(Duration.ofSeconds(1));
    catchThrowableOfType(BrokerException.class, () -> app.installationId(REPO));
    assertThat(github.requests("GET", LOOKUP)).hasSize(2);
  }

  @Test
  void suspendedInstallationIsForbidden() {
    var node = github.tree(github.installation(INSTALLATION));
    node.put("suspended_at", "2026-11-30T08:00:00Z");
    github.respond("GET", LOOKUP, 200, node.toString(), RID);

    BrokerException e = catchThrowableOfType(BrokerException.class, () -> app.installationId(REPO));

    assertThat(e.reason()).isEqualTo(Reason.FORBIDDEN);
    assertThat(e.getMessage()).isEqualTo("the GitHub App's installation on octocat/Hello-World is"
        + " suspended (since 2026-11-30T08:00:00Z): unsuspend it in the installation's settings"
        + " (request id " + RID + ")");
  }

  @Test
  void installationGoneAtMintTimeIsForgotten() throws Exception {
    installed();
    github.respond("POST", MINT, 404, error(404, "Not Found"), RID);

    BrokerException e = readRefusal();
    app.installationId(REPO);

    assertThat(e.reason()).isEqualTo(Reason.NOT_INSTALLED);
    assertThat(e.getMessage()).isEqualTo("GitHub App installation 4242 for octocat/Hello-World no"
        + " longer exists: install the App on the repository or its owner, then try again"
        + " (request id " + RID + ")");
    assertThat(github.requests("GET", LOOKUP)).hasSize(2);
  }

  @Test
  void aMintMoreThanTenMinutesAfterTheLastUsesTheInstallationLastSeenWithoutALookup()
      throws Exception {
    installed();
    mints(READ);
    app.issueReadToken(REPO, OptionalLong.empty());

    clock.advance(Duration.ofHours(1));
    app.issueReadToken(REPO, OptionalLong.empty());

    assertThat(github.requests("GET", LOOKUP)).hasSize(1);
    assertThat(github.requests("POST", MINT)).hasSize(2);
  }

  @Test
  void anInstallationIdGitHubNoLongerKnowsIsLookedUpAgainAndTheMintRetriedOnce()
      throws Exception {
    installed();
    mints(READ);
    app.issueReadToken(REPO, OptionalLong.empty());
    // the App installed again: its old installation is gone, a new one serves the repository
    github.respond("POST", MINT, 404, error(404, "Not Found"), RID);
    github.respond("GET", LOOKUP, 200, github.installation(4343), RID);
    github.respond("POST", "/app/installations/4343/access_tokens", 201,
        github.token(TOKEN, READ), RID);

    InstallationToken token = app.issueReadToken(REPO, OptionalLong.empty());

    assertThat(token.token().reveal()).isEqualTo(TOKEN);
    assertThat(github.requests("GET", LOOKUP)).hasSize(2);
    assertThat(github.requests("POST", MINT)).hasSize(2);
    assertThat(github.requests("POST", "/app/installations/4343/access_tokens")).hasSize(1);
  }

  @Test
  void anInstallationGoneForGoodIsLookedUpAgainOnceAndSaidSo() throws Exception {
    installed();
    mints(READ);
    app.issueReadToken(REPO, OptionalLong.empty());
    github.respond("POST", MINT, 404, error(404, "Not Found"), RID);

    BrokerException e = catchThrowableOfType(BrokerException.class,
        () -> app.issueReadToken(REPO, OptionalLong.empty()));

    assertThat(e.reason()).isEqualTo(Reason.NOT_INSTALLED);
    assertThat(github.requests("GET", LOOKUP)).hasSize(2);
    assertThat(github.requests("POST", MINT)).hasSize(3);
  }

  // --- the App JWT -------------------------------------------------------------------------

  @Test
  void appJwtThatGitHubReceivesVerifiesWithThePublicKeyAndHasGitHubsClaims() throws Exception {
    installed();

    app.installationId(REPO);

    String auth = github.requests("GET", LOOKUP).get(0).getHeader("Authorization");
    SignedJWT jwt = SignedJWT.parse(auth.substring("Bearer ".length()));
    assertThat(jwt.verify(new RSASSAVerifier((RSAPublicKey) TestKeys.rsa().getPublic()))).isTrue();
    assertThat(jwt.getHeader().getAlgorithm().getName()).isEqualTo("RS256");
    assertThat(jwt.getJWTClaimsSet().getIssuer()).isEqualTo(APP_ID);
    assertThat(jwt.getJWTClaimsSet().getIssueTime().toInstant())
        .isEqualTo(clock.instant().minusSeconds(60));
    assertThat(jwt.getJWTClaimsSet().getExpirationTime().toInstant())
        .isEqualTo(clock.instant().plus(Duration.ofMinutes(9)));
  }

  @Test
  void appJwtIsReusedAcrossCallsAndSignedAfreshNearExpiry() throws Exception {
    installed();
    mints(READ);

    app.issueReadToken(REPO, OptionalLong.empty());
    clock.advance(Duration.ofMinutes(7));
    app.issueReadToken(REPO, OptionalLong.empty());
    clock.advance(Duration.ofMinutes(1));
    app.issueReadToken(REPO, OptionalLong.empty());

    List<String> jwts = github.requests("POST", MINT).stream()
        .map(r -> r.getHeader("Authorization")).toList();
    assertThat(jwts).hasSize(3);
    assertThat(jwts.get(1)).isEqualTo(jwts.get(0));
    assertThat(jwts.get(2)).isNotEqualTo(jwts.get(1));
    assertThat(github.requests("GET", LOOKUP).get(0).getHeader("Authorization"))
        .isEqualTo(jwts.get(0));
  }

  @Test
  void rejectedJwtPointsAtAppIdKeyAndClock() {
    // GitHub answers 401 to a bad JWT on any endpoint, though the description lists it for few
    github.stub("GET", LOOKUP,
        jsonResponse(401, error(401, "A JSON web token could not be decoded"), RID));

    BrokerException e = catchThrowableOfType(BrokerException.class, () -> app.installationId(REPO));

    assertThat(e.reason()).isEqualTo(Reason.BAD_CREDENTIALS);
    assertThat(e.getMessage()).isEqualTo("GitHub rejected the App's JWT on GET"
        + " /repos/octocat/Hello-World/installation (401 A JSON web token could not be decoded):"
        + " check the App ID (Iv23liTestClient) and key, and that this host's clock is right"
        + " (request id " + RID + ")");
  }

  @Test
  void rejectedJwtNamesTheClockSkewGitHubsDateShows() {
    String theirs = DateTimeFormatter.RFC_1123_DATE_TIME
        .format(clock.instant().minusSeconds(300).atOffset(ZoneOffset.UTC));
    github.stub("GET", LOOKUP, jsonResponse(401,
        error(401, "'Issued at' claim ('iat') must be an Integer representing the time that the"
            + " assertion was issued"), RID).withHeader("Date", theirs));

    BrokerException e = catchThrowableOfType(BrokerException.class, () -> app.installationId(REPO));

    assertThat(e.getMessage()).isEqualTo("GitHub rejected the App's JWT on GET"
        + " /repos/octocat/Hello-World/installation (401 'Issued at' claim ('iat') must be an"
        + " Integer representing the time that the assertion was issued): check the App ID"
        + " (Iv23liTestClient) and key, and that this host's clock is right; this host's clock is"
        + " 300 s ahead of GitHub's (request id " + RID + ")");
  }

  @Test
  void rejectedJwtIsSignedAfreshForTheNextCall() throws Exception {
    github.stub("GET", LOOKUP, jsonResponse(401, error(401, "Bad credentials"), RID));
    catchThrowableOfType(BrokerException.class, () -> app.installationId(REPO));
    github.reset();
    installed();
    clock.advance(Duration.ofSeconds(1));

    app.installationId(REPO);

    // without the rejection, the first JWT would have been reused for eight minutes
    SignedJWT second = SignedJWT.parse(
        github.requests("GET", LOOKUP).get(0).getHeader("Authorization").substring(7));
    assertThat(second.getJWTClaimsSet().getIssueTime().toInstant())
        .isEqualTo(clock.instant().minusSeconds(60));
  }

  @Test
  void identityComesFromGetApp() throws Exception {
    github.respond("GET", "/app", 200, github.contract.example("integration"), RID);

    assertThat(app.identity()).isEqualTo(new AppIdentity(1, "octoapp", "Octocat App"));
  }

  // --- rate limits, retries, timeouts ------------------------------------------------------

  @Test
  void waitsForThePrimaryRateLimitToResetThenSucceeds() throws Exception {
    installed();
    long reset = clock.instant().plusSeconds(30).getEpochSecond();
    github.sequence("POST", MINT,
        jsonResponse(403, error(403, "API rate limit exceeded for installation ID 4242."), RID)
            .withHeader("x-ratelimit-remaining", "0")
            .withHeader("x-ratelimit-reset", Long.toString(reset)),
        jsonResponse(201, github.token(TOKEN, READ), RID));

    InstallationToken token = app.issueReadToken(REPO, OptionalLong.empty());

    assertThat(token.token().reveal()).isEqualTo(TOKEN);
    assertThat(sleeper.waits()).containsExactly(Duration.ofSeconds(31));
  }

  @Test
  void honoursRetryAfterOnASecondaryRateLimit() throws Exception {
    installed();
    github.sequence("POST", MINT,
        jsonResponse(403, error(403, "You have exceeded a secondary rate limit. Please wait a few"
            + " minutes before you try again."), RID).withHeader("retry-after", "7"),
        jsonResponse(201, github.token(TOKEN, READ), RID));

    app.issueReadToken(REPO, OptionalLong.empty());

    assertThat(sleeper.waits()).containsExactly(Duration.ofSeconds(7));
  }

  @Test
  void secondaryRateLimitWithoutHeadersWaitsAMinute() throws Exception {
    installed();
    github.sequence("POST", MINT,
        jsonResponse(429, error(429, "Too Many Requests"), RID),
        jsonResponse(201, github.token(TOKEN, READ), RID));

    app.issueReadToken(REPO, OptionalLong.empty());

    assertThat(sleeper.waits()).containsExactly(Duration.ofMinutes(1));
  }

  @Test
  void rateLimitThatLiftsAfterTheDeadlineFailsAtOnce() {
    installed();
    long reset = clock.instant().plusSeconds(3600).getEpochSecond();
    github.stub("POST", MINT,
        jsonResponse(403, error(403, "API rate limit exceeded for installation ID 4242."), RID)
            .withHeader("x-ratelimit-remaining", "0")
            .withHeader("x-ratelimit-reset", Long.toString(reset)));

    BrokerException e = readRefusal();

    assertThat(e.reason()).isEqualTo(Reason.RATE_LIMITED);
    assertThat(e.getMessage()).isEqualTo("GitHub rate limit on POST /app/installations/4242/"
        + "access_tokens (403 API rate limit exceeded for installation ID 4242.): it lifts at "
        + Instant.ofEpochSecond(reset + 1) + ", past the 60 s deadline; try again then"
        + " (request id " + RID + ")");
    assertThat(sleeper.waits()).isEmpty();
  }

  @Test
  void appJwtIsRenewedWhenARateLimitWaitOutlastsIt() throws Exception {
    GitHubApp patient = GitHubApp.create(config().withRetries(Duration.ofMinutes(20), 4), HTTP,
        clock, sleeper);
    installed();
    github.sequence("POST", MINT,
        jsonResponse(403, error(403, "API rate limit exceeded for installation ID 4242."), RID)
            .withHeader("x-ratelimit-remaining", "0")
            .withHeader("x-ratelimit-reset",
                Long.toString(clock.instant().plusSeconds(600).getEpochSecond())),
        jsonResponse(201, github.token(TOKEN, READ), RID));

    patient.issueReadToken(REPO, OptionalLong.empty());

    List<LoggedRequest> mints = github.requests("POST", MINT);
    assertThat(mints).hasSize(2);
    assertThat(mints.get(1).getHeader("Authorization"))
        .isNotEqualTo(mints.get(0).getHeader("Authorization"));
  }

  @Test
  void rateLimitThatPersistsFailsAfterFiveWaits() {
    installed();
    github.stub("POST", MINT, jsonResponse(403, error(403, "You have exceeded a secondary rate"
        + " limit."), RID).withHeader("retry-after", "1"));

    BrokerException e = readRefusal();

    assertThat(e.reason()).isEqualTo(Reason.RATE_LIMITED);
    assertThat(e.getMessage()).isEqualTo("GitHub rate limit on POST /app/installations/4242/"
        + "access_tokens (403 You have exceeded a secondary rate limit.) persists after 5 waits;"
        + " try again later (request id " + RID + ")");
    assertThat(sleeper.waits()).hasSize(5);
  }

  @Test
  void plainForbiddenIsNotMistakenForARateLimit() {
    installed();
    github.respond("POST", MINT, 403,
        error(403, "The permissions requested are not granted to this installation."), RID);

    BrokerException e = readRefusal();

    assertThat(e.reason()).isEqualTo(Reason.FORBIDDEN);
    assertThat(e.getMessage()).isEqualTo("GitHub refused a read token for octocat/Hello-World (403"
        + " The permissions requested are not granted to this installation.): check that the"
        + " App's installation grants contents: read, metadata: read, pull_requests: write on it"
        + " and is not suspended (request id " + RID + ")");
    assertThat(sleeper.waits()).isEmpty();
  }

  @Test
  void retriesServerErrorsWithGrowingJitteredBackoffThenSucceeds() throws Exception {
    installed();
    github.sequence("POST", MINT,
        jsonResponse(500, error(500, "Server Error"), RID),
        jsonResponse(500, error(500, "Server Error"), RID),
        jsonResponse(201, github.token(TOKEN, READ), RID));

    InstallationToken token = app.issueReadToken(REPO, OptionalLong.empty());

    assertThat(token.token().reveal()).isEqualTo(TOKEN);
    assertThat(github.requests("POST", MINT)).hasSize(3);
    List<Duration> waits = sleeper.waits();
    assertThat(waits).hasSize(2);
    assertThat(waits.get(0)).isBetween(Duration.ofMillis(250), Duration.ofMillis(500));
    assertThat(waits.get(1)).isBetween(Duration.ofMillis(500), Duration.ofMillis(1000));
  }

  @Test
  void serverErrorsPastTheAttemptLimitFail() {
    installed();
    github.stub("POST", MINT, jsonResponse(502, error(502, "Server Error"), RID));

    BrokerException e = readRefusal();

    assertThat(e.reason()).isEqualTo(Reason.UPSTREAM_ERROR);
    assertThat(e.getMessage()).isEqualTo("GitHub answered POST /app/installations/4242/"
        + "access_tokens with 502 Server Error after 4 attempts (request id " + RID + ")");
    assertThat(github.requests("POST", MINT)).hasSize(4);
    assertThat(sleeper.waits()).hasSize(3);
  }

  @Test
  void retriesStopAtTheDeadlineEvenWithAttemptsLeft() throws Exception {
    GitHubApp hurried = GitHubApp.create(config().withRetries(Duration.ofSeconds(2), 10), HTTP,
        clock, sleeper);
    github.stub("GET", LOOKUP, jsonResponse(503, error(503, "Unavailable"), RID));

    BrokerException e =
        catchThrowableOfType(BrokerException.class, () -> hurried.installationId(REPO));

    assertThat(e.reason()).isEqualTo(Reason.UPSTREAM_ERROR);
    assertThat(sleeper.waits().stream().mapToLong(Duration::toMillis).sum()).isLessThanOrEqualTo(2000);
    assertThat(github.requests("GET", LOOKUP).size()).isBetween(2, 4);
    assertThat(e.getMessage()).isEqualTo("GitHub answered GET /repos/octocat/Hello-World/"
        + "installation with 503 Unavailable after " + github.requests("GET", LOOKUP).size()
        + " attempts (request id " + RID + ")");
  }

  @Test
  void honoursRetryAfterGivenAsAnHttpDate() throws Exception {
    installed();
    String at = DateTimeFormatter.RFC_1123_DATE_TIME
        .format(clock.instant().plusSeconds(20).atOffset(ZoneOffset.UTC));
    github.sequence("POST", MINT,
        jsonResponse(429, error(429, "Too Many Requests"), RID).withHeader("retry-after", at),
        jsonResponse(201, github.token(TOKEN, READ), RID));

    app.issueReadToken(REPO, OptionalLong.empty());

    assertThat(sleeper.waits()).containsExactly(Duration.ofSeconds(20));
  }

  @Test
  void interruptedWaitStopsAndKeepsTheInterrupt() throws Exception {
    GitHubApp interrupted = GitHubApp.create(config(), HTTP, clock, d -> {
      throw new InterruptedException();
    });
    github.stub("GET", LOOKUP, jsonResponse(500, error(500, "Server Error"), RID));
    try {
      BrokerException e =
          catchThrowableOfType(BrokerException.class, () -> interrupted.installationId(REPO));

      assertThat(e.reason()).isEqualTo(Reason.INTERRUPTED);
      assertThat(e.getMessage()).isEqualTo(
          "interrupted while waiting to retry GET /repos/octocat/Hello-World/installation");
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void creatingWithAnUnusableKeyFailsAsBadKey() {
    Path missing = dir.resolve("missing.pem");

    BrokerException e = catchThrowableOfType(BrokerException.class, () -> GitHubApp.create(
        GitHubAppConfig.of(APP_ID, missing), HTTP, clock, sleeper));

    assertThat(e.reason()).isEqualTo(Reason.BAD_KEY);
    assertThat(e.getMessage()).startsWith("GitHub App private key " + missing + " does not exist");
  }

  @Test
  void timesOutWhenGitHubDoesNotAnswer() throws Exception {
    GitHubApp impatient = GitHubApp.create(config()
        .withTimeouts(Duration.ofSeconds(1), Duration.ofMillis(200), Duration.ofSeconds(2))
        .withRetries(Duration.ofSeconds(60), 2), HTTP, clock, sleeper);
    github.stub("GET", LOOKUP,
        jsonResponse(200, github.installation(INSTALLATION), RID).withFixedDelay(1000));

    BrokerException e =
        catchThrowableOfType(BrokerException.class, () -> impatient.installationId(REPO));

    assertThat(e.reason()).isEqualTo(Reason.TIMEOUT);
    assertThat(e.getMessage()).isEqualTo("GitHub did not answer GET"
        + " /repos/octocat/Hello-World/installation in time (timeouts: connect 1 s, read 0.2 s,"
        + " whole request 2 s) after 2 attempts");
    assertThat(github.requests("GET", LOOKUP)).hasSize(2);
  }

  @Test
  void networkFailureIsRetriedThenReported() {
    github.stub("GET", LOOKUP, com.github.tomakehurst.wiremock.client.WireMock.aResponse()
        .withFault(Fault.CONNECTION_RESET_BY_PEER));

    BrokerException e = catchThrowableOfType(BrokerException.class, () -> app.installationId(REPO));

    assertThat(e.reason()).isEqualTo(Reason.NETWORK);
    assertThat(e.getMessage()).startsWith("could not reach GitHub at http://127.0.0.1:"
        + github.apiBase().getPort() + " for GET /repos/octocat/Hello-World/installation (")
        .endsWith(") after 4 attempts");
    assertThat(github.requests("GET", LOOKUP)).hasSize(4);
  }

  @Test
  void unreachableGitHubIsANetworkError() throws Exception {
    java.net.ServerSocket closed = new java.net.ServerSocket(0);
    int port = closed.getLocalPort();
    closed.close();
    GitHubApp nowhere = GitHubApp.create(config()
        .withApiBaseUrl(java.net.URI.create("http://127.0.0.1:" + port + "/api/v3"))
        .withRetries(Duration.ofSeconds(60), 2), HTTP, clock, sleeper);

    BrokerException e = catchThrowableOfType(BrokerException.class, () -> nowhere.installationId(REPO));

    assertThat(e.reason()).isEqualTo(Reason.NETWORK);
    assertThat(e.getMessage()).startsWith("could not reach GitHub at http://127.0.0.1:" + port
        + " for GET /repos/octocat/Hello-World/installation (ConnectException: ")
        .endsWith(") after 2 attempts");
  }

  // --- GitHub's answers --------------------------------------------------------------------

  @Test
  void validationFailureCarriesGitHubsMessage() {
    installed();
    github.respond("POST", MINT, 422, error(422, "There is at least one repository that does not"
        + " exist or is not accessible to the parent installation."), RID);

    BrokerException e = readRefusal();

    assertThat(e.reason()).isEqualTo(Reason.VALIDATION_FAILED);
    assertThat(e.getMessage()).isEqualTo("GitHub rejected the read token request for"
        + " octocat/Hello-World (422 There is at least one repository that does not exist or is"
        + " not accessible to the parent installation.): check that the App's installation"
        + " includes the repository and grants contents: read, metadata: read, pull_requests:"
        + " write (request id " + RID + ")");
  }

  @Test
  void malformedJsonIsReported() {
    installed();
    github.stub("POST", MINT, jsonResponse(201, "{\"token\": \"ghs_", RID));

    BrokerException e = readRefusal();

    assertThat(e.reason()).isEqualTo(Reason.MALFORMED_RESPONSE);
    assertThat(e.getMessage()).isEqualTo("GitHub's answer to POST /app/installations/4242/"
        + "access_tokens is not valid JSON (request id " + RID + ")");
  }

  @Test
  void unreadableGrantWithATokenGetsThatTokenRevoked() {
    installed();
    revokes();
    var node = github.tree(github.token(TOKEN, READ));
    node.put("expires_at", "next tuesday");
    github.stub("POST", MINT, jsonResponse(201, node.toString(), RID));

    BrokerException e = readRefusal();

    assertThat(e.reason()).isEqualTo(Reason.MALFORMED_RESPONSE);
    assertThat(e.getMessage()).isEqualTo("GitHub's answer to POST /app/installations/4242/"
        + "access_tokens has an expires_at that is not a date-time; the token was revoked"
        + " (request id " + RID + ")");
    assertThat(github.requests("DELETE", REVOKE)).singleElement()
        .satisfies(r -> assertThat(r.getHeader("Authorization")).isEqualTo("Bearer " + TOKEN));
  }

  @Test
  void duplicatePermissionsKeyIsRefusedAndTheTokenRevoked() {
    installed();
    revokes();
    String text = github.token(TOKEN, Map.of("contents", "write", "metadata", "read"));
    // a second, smaller "permissions" after the real one: a lenient reader would see only that
    text = text.substring(0, text.length() - 1) + ",\"permissions\":{\"contents\":\"read\"}}";
    github.stub("POST", MINT, jsonResponse(201, text, RID));

    BrokerException e = readRefusal();

    assertThat(e.reason()).isEqualTo(Reason.MALFORMED_RESPONSE);
    assertThat(e.getMessage()).isEqualTo("GitHub's answer to POST /app/installations/4242/"
        + "access_tokens is not valid JSON; the token was revoked (request id " + RID + ")");
    assertThat(github.requests("DELETE", REVOKE)).hasSize(1);
  }

  private BrokerException readRefusal() {
    return catchThrowableOfType(BrokerException.class,
        () -> app.issueReadToken(REPO, OptionalLong.empty()));
  }

  /** Checks that {@code e} refuses a {@code kind} token granted beyond what was asked, revoked. */
  private static void assertRevokedOverGrant(BrokerException e, String kind, String beyond) {
    assertThat(e.reason()).isEqualTo(Reason.OVER_GRANTED);
    assertThat(e.getMessage()).isEqualTo("GitHub granted a " + kind + " token for"
        + " octocat/Hello-World beyond what was asked (" + beyond + "); the token was revoked"
        + " (request id " + RID + ")");
  }

  @Test
  void grantWithAPermissionNotAskedIsRevokedAtOnce() {
    installed();
    revokes();
    Map<String, String> more = new java.util.HashMap<>(READ);
    more.put("issues", "write");
    mints(more);

    assertRevokedOverGrant(readRefusal(), "read", "issues: write (not asked)");
    assertThat(github.requests("DELETE", REVOKE)).singleElement()
        .satisfies(r -> assertThat(r.getHeader("Authorization")).isEqualTo("Bearer " + TOKEN));
  }

  @Test
  void grantWithWriteWhereReadWasAskedIsRevokedAtOnce() {
    installed();
    revokes();
    mints(Map.of("contents", "write", "pull_requests", "write", "metadata", "read"));

    assertRevokedOverGrant(readRefusal(), "read", "contents: write (asked read)");
    assertThat(github.requests("DELETE", REVOKE)).hasSize(1);
  }

  @Test
  void grantForAllRepositoriesIsRevokedAtOnce() {
    installed();
    revokes();
    github.respond("POST", MINT, 201, github.token(TOKEN, READ, "all",
        List.of(Map.entry(REPO_ID, REPO.toString()))), RID);

    assertRevokedOverGrant(readRefusal(), "read",
        "it covers all repositories of the installation");
    assertThat(github.requests("DELETE", REVOKE)).hasSize(1);
  }

  @Test
  void grantForMoreRepositoriesIsRevokedAtOnce() {
    installed();
    revokes();
    github.respond("POST", MINT, 201, github.token(TOKEN, READ, "selected",
        List.of(Map.entry(REPO_ID, REPO.toString()), Map.entry(7L, "octocat/Spoon-Knife"))), RID);

    assertRevokedOverGrant(catchThrowableOfType(BrokerException.class,
        () -> app.issueWriteToken(REPO, OptionalLong.empty(), false)), "write",
        "it covers 2 repositories; pull_requests: write (not asked)");
  }

  @Test
  void grantForAnotherRepositoryIdIsRevokedAtOnce() {
    installed();
    revokes();
    github.respond("POST", MINT, 201, github.token(TOKEN, READ, "selected",
        List.of(Map.entry(7L, "octocat/Hello-World"))), RID);

    assertRevokedOverGrant(catchThrowableOfType(BrokerException.class,
        () -> app.issueReadToken(REPO, OptionalLong.of(REPO_ID))), "read",
        "it covers repository id 7, not 1296269");
  }

  @Test
  void grantForAnotherRepositoryNameIsRevokedAtOnce() {
    installed();
    revokes();
    github.respond("POST", MINT, 201, github.token(TOKEN, READ, "selected",
        List.of(Map.entry(REPO_ID, "octocat/Spoon-Knife"))), RID);

    assertRevokedOverGrant(readRefusal(), "read", "it covers octocat/Spoon-Knife");
  }

  @Test
  void grantWithoutARepositoryListCannotBeConfirmedAndIsRevoked() {
    installed();
    revokes();
    var node = github.tree(github.token(TOKEN, READ));
    node.remove("repositories");
    github.respond("POST", MINT, 201, node.toString(), RID);

    assertRevokedOverGrant(readRefusal(), "read",
        "GitHub did not list the token's repositories, so its scope cannot be confirmed");
  }

  @Test
  void overGrantWhoseRevocationFailsSaysTheTokenLivesOn() {
    installed();
    github.stub("DELETE", REVOKE, jsonResponse(500, error(500, "Server Error"), RID));
    Map<String, String> more = new java.util.HashMap<>(READ);
    more.put("administration", "write");
    mints(more);

    BrokerException e = readRefusal();

    assertThat(e.reason()).isEqualTo(Reason.OVER_GRANTED);
    assertThat(e.getMessage()).isEqualTo("GitHub granted a read token for octocat/Hello-World"
        + " beyond what was asked (administration: write (not asked)); revoking the token failed"
        + " (UPSTREAM_ERROR); it stays valid until GitHub expires it, within an hour (request id "
        + RID + ")");
    assertThat(github.requests("DELETE", REVOKE)).hasSize(4);
  }

  @Test
  void grantMissingAnAskedPermissionIsRefusedAndRevoked() {
    installed();
    revokes();
    mints(Map.of("contents", "read", "metadata", "read"));

    BrokerException e = readRefusal();

    assertThat(e.reason()).isEqualTo(Reason.FORBIDDEN);
    assertThat(e.getMessage()).isEqualTo("GitHub granted a read token for octocat/Hello-World"
        + " without pull_requests: write (not granted): give the App that permission in its"
        + " settings and accept the change on the installation; the token was revoked (request"
        + " id " + RID + ")");
    assertThat(github.requests("DELETE", REVOKE)).hasSize(1);
  }

  // --- revocation --------------------------------------------------------------------------

  @Test
  void revokeSendsDeleteAuthenticatedWithTheTokenItself() throws Exception {
    revokes();

    app.revoke(Secret.of("ghs_to_revoke"));

    assertThat(github.requests("DELETE", REVOKE)).singleElement().satisfies(r ->
        assertThat(r.getHeader("Authorization")).isEqualTo("Bearer ghs_to_revoke"));
  }

  @Test
  void revokeOfATokenAlreadyGoneSucceeds() throws Exception {
    github.stub("DELETE", REVOKE, jsonResponse(401, error(401, "Bad credentials"), RID));

    app.revoke(Secret.of("ghs_already_gone"));

    assertThat(github.requests("DELETE", REVOKE)).hasSize(1);
  }

  @Test
  void revokeRetriesServerErrors() throws Exception {
    github.sequence("DELETE", REVOKE,
        jsonResponse(503, null, RID),
        jsonResponse(204, null, RID));

    app.revoke(Secret.of("ghs_to_revoke"));

    assertThat(github.requests("DELETE", REVOKE)).hasSize(2);
  }

  @Test
  void revokeRefusedIsAnError() {
    github.stub("DELETE", REVOKE, jsonResponse(403, error(403, "Forbidden"), RID));

    BrokerException e = catchThrowableOfType(BrokerException.class,
        () -> app.revoke(Secret.of("ghs_to_revoke")));

    assertThat(e.reason()).isEqualTo(Reason.FORBIDDEN);
    assertThat(e.getMessage()).isEqualTo("GitHub did not revoke the installation token (403"
        + " Forbidden) (request id " + RID + ")");
  }

  @Test
  void revokeOfATokenThatCannotGoInAHeaderFailsWithoutSendingIt() {
    BrokerException e = catchThrowableOfType(BrokerException.class,
        () -> app.revoke(Secret.of("ghs_a\r\nX-Injected: 1")));

    assertThat(e.reason()).isEqualTo(Reason.VALIDATION_FAILED);
    assertThat(e.getMessage()).isEqualTo("cannot send DELETE /installation/token: the credential"
        + " holds characters not allowed in an HTTP header");
    assertThat(github.requests()).isEmpty();
  }
}
