package dev.pushgate.forge;

import static dev.pushgate.forge.TestForge.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** The local forge's subset of GitHub's App API, asked over HTTP the way the broker asks GitHub. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ForgeApiServletTest {
  private static final String API = "/forge/api/v3";
  private static final String MINT =
      API + "/app/installations/" + ForgeAppKey.installationIdOf("acme") + "/access_tokens";
  private static final String NOT_DECODED = "A JSON web token could not be decoded";
  private static final String NOT_ACCESSIBLE = "There is at least one repository that does not"
      + " exist or is not accessible to the parent installation.";

  private Path dir;
  private TestForge forge;
  private ForgeRepositories.ForgeRepo widget;

  /** One forge for the class: starting Jetty, Flyway and a key per test costs seconds. */
  @BeforeAll
  void start(@TempDir Path tempDir) throws Exception {
    dir = tempDir;
    forge = new TestForge(dir);
    widget = forge.create("acme/widget");
  }

  @AfterAll
  void stop() throws Exception {
    forge.close();
  }

  // ---- the App JWT

  @Test
  void aValidAppJwtReadsTheApp() throws Exception {
    HttpResponse<String> r = get(API + "/app", "Bearer " + forge.jwt());

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(json(r).get("id").asLong()).isEqualTo(1);
    assertThat(json(r).get("slug").asText()).isEqualTo("pushgate-local-forge");
  }

  @Test
  void noAuthorizationRequiresAuthentication() throws Exception {
    assertGitHubError(get(API + "/app", null), 401, "Requires authentication");
    assertGitHubError(get(API + "/app", "token " + forge.jwt()), 401, "Requires authentication");
  }

  @Test
  void somethingThatIsNotAJwtCannotBeDecoded() throws Exception {
    assertGitHubError(get(API + "/app", "Bearer not.a.jwt"), 401, NOT_DECODED);
    assertGitHubError(get(API + "/app", "Bearer x"), 401, NOT_DECODED);
  }

  @Test
  void aJwtSignedWithAnotherKeyCannotBeDecoded() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    String jwt = TestForge.sign(claims(-60, 540, ForgeAppKey.APP_ID), g.generateKeyPair().getPrivate());

    assertGitHubError(get(API + "/app", "Bearer " + jwt), 401, NOT_DECODED);
  }

  @Test
  void aJwtSignedWithAnHmacCannotBeDecoded() throws Exception {
    SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims(-60, 540, ForgeAppKey.APP_ID));
    jwt.sign(new MACSigner(new byte[32]));

    assertGitHubError(get(API + "/app", "Bearer " + jwt.serialize()), 401, NOT_DECODED);
  }

  @Test
  void aJwtWithoutExpiryOrIssueTimeCannotBeDecoded() throws Exception {
    Instant now = forge.clock.instant();
    String noExp = forge.jwt(new JWTClaimsSet.Builder().issuer(ForgeAppKey.APP_ID)
        .issueTime(Date.from(now)).build());
    String noIat = forge.jwt(new JWTClaimsSet.Builder().issuer(ForgeAppKey.APP_ID)
        .expirationTime(Date.from(now.plusSeconds(60))).build());

    assertGitHubError(get(API + "/app", "Bearer " + noExp), 401, NOT_DECODED);
    assertGitHubError(get(API + "/app", "Bearer " + noIat), 401, NOT_DECODED);
  }

  @Test
  void anExpiredJwtIsRefused() throws Exception {
    String expired = forge.jwt(claims(-600, -1, ForgeAppKey.APP_ID));
    String expiringNow = forge.jwt(claims(-600, 0, ForgeAppKey.APP_ID));
    String message = "'Expiration time' claim ('exp') must be a numeric value representing the"
        + " future time at which the assertion expires";

    assertGitHubError(get(API + "/app", "Bearer " + expired), 401, message);
    assertGitHubError(get(API + "/app", "Bearer " + expiringNow), 401, message);
  }

  @Test
  void aJwtThatOutlivedItsTenMinutesIsRefusedWhenTheClockMoves() throws Exception {
    String jwt = forge.jwt();
    forge.clock.advance(Duration.ofMinutes(10));

    assertThat(get(API + "/app", "Bearer " + jwt).statusCode()).isEqualTo(401);
  }

  @Test
  void aJwtExpiringTooFarInTheFutureIsRefused() throws Exception {
    String tooFar = forge.jwt(claims(-60, 631, ForgeAppKey.APP_ID));
    String justRight = forge.jwt(claims(-60, 630, ForgeAppKey.APP_ID));

    assertGitHubError(get(API + "/app", "Bearer " + tooFar), 401,
        "'Expiration time' claim ('exp') is too far in the future");
    assertThat(get(API + "/app", "Bearer " + justRight).statusCode()).isEqualTo(200);
  }

  @Test
  void aJwtIssuedInTheFutureIsRefused() throws Exception {
    String future = forge.jwt(claims(61, 300, ForgeAppKey.APP_ID));
    String skewed = forge.jwt(claims(60, 300, ForgeAppKey.APP_ID));

    assertGitHubError(get(API + "/app", "Bearer " + future), 401,
        "'Issued at' claim ('iat') must be an Integer representing the time that the assertion"
            + " was issued");
    assertThat(get(API + "/app", "Bearer " + skewed).statusCode()).isEqualTo(200);
  }

  @Test
  void aJwtOfAnotherAppIsNotFound() throws Exception {
    assertGitHubError(get(API + "/app", "Bearer " + forge.jwt(claims(-60, 540, "2"))), 401,
        "Integration not found");
    assertGitHubError(get(API + "/app", "Bearer " + forge.jwt(claims(-60, 540, null))), 401,
        "Integration not found");
  }

  @Test
  void theJwtIsCheckedBeforeAnyRoute() throws Exception {
    assertGitHubError(get(API + "/repos/acme/widget/installation", null), 401,
        "Requires authentication");
    assertGitHubError(send("POST", MINT, null, "{}"), 401, "Requires authentication");
  }

  // ---- routes

  @Test
  void anUnknownRouteIsNotFound() throws Exception {
    assertGitHubError(get(API + "/user", "Bearer " + forge.jwt()), 404, "Not Found");
    assertGitHubError(send("DELETE", API + "/app", "Bearer " + forge.jwt(), null), 404, "Not Found");
  }

  @Test
  void theInstallationOfAForgeRepositoryIsFound() throws Exception {
    HttpResponse<String> r = get(API + "/repos/acme/widget/installation", "Bearer " + forge.jwt());

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(json(r).get("id").asLong()).isEqualTo(ForgeAppKey.installationIdOf("acme"));
    assertThat(json(r).at("/account/login").asText()).isEqualTo("acme");
  }

  @Test
  void theInstallationOfAnUnknownOrMalformedRepositoryIsNotFound() throws Exception {
    assertGitHubError(get(API + "/repos/acme/gadget/installation", "Bearer " + forge.jwt()), 404,
        "Not Found");
    assertGitHubError(get(API + "/repos/-acme/widget/installation", "Bearer " + forge.jwt()), 404,
        "Not Found");
  }

  // ---- access tokens

  @Test
  void issuesATokenScopedToTheNamedRepository() throws Exception {
    HttpResponse<String> r = send("POST", MINT, "Bearer " + forge.jwt(),
        "{\"repositories\":[\"widget\"],\"permissions\":{\"contents\":\"read\",\"pull_requests\":\"write\"}}");

    assertThat(r.statusCode()).isEqualTo(201);
    JsonNode body = json(r);
    assertThat(body.get("token").asText()).matches("ghs_[A-Za-z0-9]{36}");
    assertThat(body.get("expires_at").asText())
        .isEqualTo(forge.clock.instant().plus(TestForge.TOKEN_LIFETIME).toString());
    assertThat(body.get("permissions")).isEqualTo(TestForge.JSON.readTree(
        "{\"contents\":\"read\",\"pull_requests\":\"write\",\"metadata\":\"read\"}"));
    assertThat(body.get("repository_selection").asText()).isEqualTo("selected");
    assertThat(body.get("repositories")).hasSize(1);
    assertThat(body.at("/repositories/0/id").asLong()).isEqualTo(widget.id());
    assertThat(body.at("/repositories/0/full_name").asText()).isEqualTo("acme/widget");
  }

  @Test
  void issuesATokenByRepositoryId() throws Exception {
    HttpResponse<String> r = send("POST", MINT, "Bearer " + forge.jwt(),
        "{\"repository_ids\":[" + widget.id() + "],\"permissions\":{\"contents\":\"write\"}}");

    assertThat(r.statusCode()).isEqualTo(201);
    assertThat(json(r).at("/repositories/0/full_name").asText()).isEqualTo("acme/widget");
  }

  @Test
  void withoutPermissionsATokenCanWriteContents() throws Exception {
    HttpResponse<String> r = send("POST", MINT, "Bearer " + forge.jwt(), "{\"repositories\":[\"widget\"]}");

    assertThat(r.statusCode()).isEqualTo(201);
    assertThat(json(r).get("permissions"))
        .isEqualTo(TestForge.JSON.readTree("{\"contents\":\"write\",\"metadata\":\"read\"}"));
  }

  @Test
  void anUnknownRepositoryIsUnprocessable() throws Exception {
    assertGitHubError(send("POST", MINT, "Bearer " + forge.jwt(),
        "{\"repositories\":[\"widget\",\"gadget\"]}"), 422, NOT_ACCESSIBLE);
    assertGitHubError(send("POST", MINT, "Bearer " + forge.jwt(),
        "{\"repositories\":[7]}"), 422, NOT_ACCESSIBLE);
    assertGitHubError(send("POST", MINT, "Bearer " + forge.jwt(),
        "{\"repository_ids\":[" + (widget.id() + 1) + "]}"), 422, NOT_ACCESSIBLE);
    assertGitHubError(send("POST", MINT, "Bearer " + forge.jwt(),
        "{\"repository_ids\":[\"widget\"]}"), 422, NOT_ACCESSIBLE);
  }

  @Test
  void aRequestNamingNoRepositoryIsUnprocessable() throws Exception {
    String message = "The local forge issues tokens for listed repositories only.";

    assertGitHubError(send("POST", MINT, "Bearer " + forge.jwt(), "{}"), 422, message);
    assertGitHubError(send("POST", MINT, "Bearer " + forge.jwt(), "{\"repositories\":[]}"), 422, message);
    assertGitHubError(send("POST", MINT, "Bearer " + forge.jwt(),
        "{\"permissions\":{\"contents\":\"read\"}}"), 422, message);
  }

  @Test
  void aPermissionTheInstallationDoesNotHaveIsUnprocessable() throws Exception {
    String message = "The permissions requested are not granted to this installation.";
    for (String permissions : new String[] {
        "{\"administration\":\"write\"}", "{\"contents\":\"admin\"}", "{\"contents\":\"WRITE\"}",
        "{\"contents\":1}", "{\"contents\":null}", "{\"contents\":\"read\",\"secrets\":\"read\"}",
        // Known to GitHub, but not declared by the forge's App, or above its declared level.
        "{\"actions\":\"write\"}", "{\"actions\":\"read\"}", "{\"checks\":\"read\"}",
        "{\"metadata\":\"write\"}", "{\"contents\":\"read\",\"metadata\":\"write\"}"}) {
      assertGitHubError(send("POST", MINT, "Bearer " + forge.jwt(),
          "{\"repositories\":[\"widget\"],\"permissions\":" + permissions + "}"), 422, message);
    }
  }

  @Test
  void aPermissionsFieldThatIsNotAnObjectIsUnprocessableNotDefaulted() throws Exception {
    for (String permissions : new String[] {"\"contents:write\"", "[\"contents\"]", "7", "null",
        "true"}) {
      assertGitHubError(send("POST", MINT, "Bearer " + forge.jwt(),
          "{\"repositories\":[\"widget\"],\"permissions\":" + permissions + "}"), 422,
          "Invalid request.\n\nFor 'properties/permissions', " + permissions
              + " is not an object.");
    }
  }

  @Test
  void everyPermissionTheAppDeclaresCanBeAskedAtItsLevelOrBelow() throws Exception {
    HttpResponse<String> r = send("POST", MINT, "Bearer " + forge.jwt(),
        "{\"repositories\":[\"widget\"],\"permissions\":{\"contents\":\"write\","
            + "\"metadata\":\"read\",\"pull_requests\":\"read\",\"workflows\":\"write\"}}");
    assertThat(r.statusCode()).isEqualTo(201);
  }

  @Test
  void anotherInstallationIsNotFound() throws Exception {
    assertGitHubError(send("POST", API + "/app/installations/2/access_tokens", "Bearer " + forge.jwt(),
        "{\"repositories\":[\"widget\"]}"), 404, "Not Found");
  }

  @Test
  void aBodyThatIsNotAJsonObjectIsAProblemParsingJson() throws Exception {
    for (String body : new String[] {"{\"repositories\":", "[\"widget\"]", "\"widget\""}) {
      assertGitHubError(send("POST", MINT, "Bearer " + forge.jwt(), body), 400, "Problems parsing JSON");
    }
  }

  // ---- revocation

  @Test
  void aTokenRevokesItselfOnceThenIsBadCredentials() throws Exception {
    String token = forge.token("{\"contents\":\"read\"}", "widget");

    HttpResponse<String> first = send("DELETE", API + "/installation/token", "token " + token, null);
    HttpResponse<String> again = send("DELETE", API + "/installation/token", "Bearer " + token, null);

    assertThat(first.statusCode()).isEqualTo(204);
    assertThat(first.body()).isEmpty();
    assertGitHubError(again, 401, "Bad credentials");
  }

  @Test
  void revokingWithoutATokenOrWithAnUnknownOneIsBadCredentials() throws Exception {
    assertGitHubError(send("DELETE", API + "/installation/token", null, null), 401, "Bad credentials");
    assertGitHubError(send("DELETE", API + "/installation/token", "token ghs_unknown", null), 401,
        "Bad credentials");
    assertGitHubError(send("DELETE", API + "/installation/token", "Basic eDp5", null), 401,
        "Bad credentials");
  }

  @Test
  void anExpiredTokenCannotBeRevoked() throws Exception {
    String token = forge.token("{\"contents\":\"read\"}", "widget");
    forge.clock.advance(TestForge.TOKEN_LIFETIME);

    assertGitHubError(send("DELETE", API + "/installation/token", "token " + token, null), 401,
        "Bad credentials");
  }

  @Test
  void everyAnswerCarriesARequestId() throws Exception {
    assertThat(get(API + "/app", null).headers().firstValue("X-GitHub-Request-Id"))
        .hasValueSatisfying(id -> assertThat(id).isNotBlank());
  }

  // ---- helpers

  private JWTClaimsSet claims(long iatOffsetSeconds, long expOffsetSeconds, String issuer) {
    Instant now = forge.clock.instant();
    return new JWTClaimsSet.Builder().issuer(issuer)
        .issueTime(Date.from(now.plusSeconds(iatOffsetSeconds)))
        .expirationTime(Date.from(now.plusSeconds(expOffsetSeconds))).build();
  }

  private HttpResponse<String> get(String path, String authorization) throws Exception {
    return forge.send("GET", path, authorization, null);
  }

  private HttpResponse<String> send(String method, String path, String authorization, String body)
      throws Exception {
    return forge.send(method, path, authorization, body);
  }

  private void assertGitHubError(HttpResponse<String> r, int status, String message)
      throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
        type -> assertThat(type).startsWith("application/json"));
    assertThat(json(r)).isEqualTo(TestForge.JSON.readTree("{\"message\":" + TestForge.JSON
        .writeValueAsString(message) + ",\"documentation_url\":\"https://docs.github.com/rest\","
        + "\"status\":\"" + status + "\"}"));
  }
}
