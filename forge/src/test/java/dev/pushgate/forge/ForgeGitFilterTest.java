package dev.pushgate.forge;

import static dev.pushgate.forge.TestForge.basic;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** GitHub's token semantics on the local forge's git endpoints, asked over HTTP as git asks. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ForgeGitFilterTest {
  private static final String READ = "{\"contents\":\"read\",\"metadata\":\"read\"}";
  private static final String WRITE = "{\"contents\":\"write\"}";
  private static final String FETCH_ADVERTISEMENT = "/forge/acme/widget.git/info/refs?service=git-upload-pack";
  private static final String PUSH_ADVERTISEMENT = "/forge/acme/widget.git/info/refs?service=git-receive-pack";
  private static final String UNAUTHORIZED =
      "Invalid username or token. Password authentication is not supported for Git operations.\n";

  private Path dir;
  private TestForge forge;

  /** One forge for the class: starting Jetty, Flyway and a key per test costs seconds. */
  @BeforeAll
  void start(@TempDir Path tempDir) throws Exception {
    dir = tempDir;
    forge = new TestForge(dir);
    forge.create("acme/widget");
    forge.create("acme/other");
  }

  @AfterAll
  void stop() throws Exception {
    forge.close();
  }

  @Test
  void noCredentialIsAskedForBasicAuthentication() throws Exception {
    HttpResponse<String> r = forge.send("GET", FETCH_ADVERTISEMENT, null, null);

    assertThat(r.statusCode()).isEqualTo(401);
    assertThat(r.headers().firstValue("WWW-Authenticate"))
        .contains("Basic realm=\"pushgate local forge\"");
    assertThat(r.body()).isEqualTo(UNAUTHORIZED);
  }

  @Test
  void aCredentialThatIsNotALiveTokenIs401() throws Exception {
    for (String auth : new String[] {
        basic("ghs_notAToken"), "Bearer " + forge.token(READ, "widget"), "Basic !!!notbase64",
        "Basic " + java.util.Base64.getEncoder().encodeToString("no-colon".getBytes())}) {
      HttpResponse<String> r = forge.send("GET", FETCH_ADVERTISEMENT, auth, null);
      assertThat(r.statusCode()).as(auth).isEqualTo(401);
      assertThat(r.body()).isEqualTo(UNAUTHORIZED);
    }
  }

  /** A read token fetches; a write token is offered the push. */
  @ParameterizedTest
  @CsvSource({"read, upload-pack", "write, receive-pack"})
  void aTokenIsOfferedWhatItsPermissionAllows(String permission, String service)
      throws Exception {
    HttpResponse<String> r = forge.send("GET", "/forge/acme/widget.git/info/refs?service=git-"
        + service, basic(forge.token(permission.equals("read") ? READ : WRITE, "widget")), null);

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type"))
        .contains("application/x-git-" + service + "-advertisement");
  }

  @Test
  void aReadTokenCannotPush() throws Exception {
    String token = forge.token(READ, "widget");

    HttpResponse<String> advertisement = forge.send("GET", PUSH_ADVERTISEMENT, basic(token), null);
    HttpResponse<String> push = forge.send("POST", "/forge/acme/widget.git/git-receive-pack",
        basic(token), "0000", "application/x-git-receive-pack-request");

    assertAnswered(advertisement, 403, "Write access to repository not granted.\n");
    assertAnswered(push, 403, "Write access to repository not granted.\n");
  }

  @Test
  void aPathWithParametersOrEscapesIsRefusedWhateverTheToken() throws Exception {
    for (String token : new String[] {forge.token(READ, "widget"), forge.token(WRITE, "widget")}) {
      for (String path : new String[] {"/forge/acme/widget.git/git-receive-pack;x",
          "/forge/acme/widget.git/git-receive-pac%6b", "/forge/acme/widget.git;x/git-receive-pack",
          "/forge/acme/widget.git/info/refs;x?service=git-receive-pack",
          "/forge/acme/widge%74.git/info/refs?service=git-upload-pack"}) {
        HttpResponse<String> r = forge.send(path.contains("info/refs") ? "GET" : "POST", path,
            basic(token), path.contains("info/refs") ? null : "0000",
            "application/x-git-receive-pack-request");
        assertThat(r.statusCode()).as(path).isEqualTo(400);
        assertThat(r.body()).as(path).startsWith("Bad request: git paths take no ");
      }
    }
  }

  @Test
  void aNameInAnotherCaseIsTheSameRepository() throws Exception {
    HttpResponse<String> r = forge.send("GET",
        "/forge/ACME/Widget.git/info/refs?service=git-upload-pack",
        basic(forge.token(READ, "widget")), null);

    assertThat(r.statusCode()).isEqualTo(200);
  }


  @Test
  void aTokenForAnotherRepositorySeesNoRepository() throws Exception {
    String other = forge.token(WRITE, "other");

    HttpResponse<String> fetch = forge.send("GET", FETCH_ADVERTISEMENT, basic(other), null);
    HttpResponse<String> push = forge.send("GET", PUSH_ADVERTISEMENT, basic(other), null);

    assertAnswered(fetch, 404, "Repository not found.\n");
    assertAnswered(push, 404, "Repository not found.\n");
  }

  @Test
  void aTokenWithoutContentsSeesNoRepository() throws Exception {
    String metadataOnly = forge.token("{\"metadata\":\"read\"}", "widget");

    HttpResponse<String> r = forge.send("GET", FETCH_ADVERTISEMENT, basic(metadataOnly), null);

    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(r.body()).isEqualTo("Repository not found.\n");
  }

  @Test
  void anUnknownOrMalformedRepositoryIsNotFound() throws Exception {
    String token = forge.token(WRITE, "widget");
    for (String path : new String[] {
        "/forge/acme/gadget.git/info/refs?service=git-upload-pack",
        "/forge/acme/widget.git",
        "/forge/acme/.git/info/refs?service=git-upload-pack",
        "/forge/widget.git/info/refs?service=git-upload-pack"}) {
      HttpResponse<String> r = forge.send("GET", path, basic(token), null);
      assertThat(r.statusCode()).as(path).isEqualTo(404);
      assertThat(r.body()).as(path).isEqualTo("Repository not found.\n");
    }
  }

  @Test
  void aRevokedTokenIs401() throws Exception {
    String token = forge.token(WRITE, "widget");
    assertThat(forge.send("DELETE", "/forge/api/v3/installation/token", "token " + token, null)
        .statusCode()).isEqualTo(204);

    HttpResponse<String> r = forge.send("GET", FETCH_ADVERTISEMENT, basic(token), null);

    assertThat(r.statusCode()).isEqualTo(401);
    assertThat(r.body()).isEqualTo(UNAUTHORIZED);
  }

  @Test
  void anExpiredTokenIs401() throws Exception {
    String token = forge.token(WRITE, "widget");
    forge.clock.advance(TestForge.TOKEN_LIFETIME);

    assertThat(forge.send("GET", FETCH_ADVERTISEMENT, basic(token), null).statusCode()).isEqualTo(401);
  }

  private static void assertAnswered(HttpResponse<String> r, int status, String body) {
    assertThat(r.statusCode()).isEqualTo(status);
    assertThat(r.body()).isEqualTo(body);
  }
}
