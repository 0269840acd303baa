package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.broker.GitHubApp;
import dev.pushgate.broker.GitHubAppConfig;
import dev.pushgate.broker.InstallationToken;
import dev.pushgate.gateway.api.ApiSentinel;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.types.RepoSlug;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.OptionalLong;
import okhttp3.OkHttpClient;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Who may push to the local forge, asked the way an attacker holding a run's read token would:
 * by every spelling of the receive-pack path, and over the socket bridged into sandboxes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ForgePushAuthorisationTest {
  private static final String LITERAL = "Bad request: git paths take no ";
  private static final String DOT_SEGMENTS = LITERAL + "dot segments ('.' or '..'), which the"
      + " server would resolve before routing; write the path as git sends it\n";

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().withRepos("acme/widget");

  private JsonNode run;
  private ObjectId main;

  @BeforeAll
  void start() throws Exception {
    run = app.get().createRun(RunJson.chatMainDenied("ws-forge", "acme/widget"));
    main = ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/main");
  }

  @Test
  void theRunsGitHubTokenIsASentinelTheForgeRefuses() throws Exception {
    String sentinel = run.get("env").get("GH_TOKEN").asText();
    assertThat(sentinel).startsWith(ApiSentinel.PREFIX);
    assertThat(Forge.fetchStatus(app.get(), "acme/widget", sentinel)).isEqualTo(401);
    Wire.Answer push = Wire.basic(app.get().port(), "POST",
        "/forge/acme/widget.git/git-receive-pack",
        sentinel, Wire.RECEIVE_PACK_REQUEST, push("refs/heads/by-sentinel"));
    assertThat(push.status()).isEqualTo(401);
    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/by-sentinel")).isNull();
  }

  @Test
  void theReadTokenPushesNothingByAnySpellingOfTheReceivePackPath() throws Exception {
    // The read token the appliance keeps for its own fetches (a run holds none): minted as the
    // appliance mints it.
    String token = token(false).token().reveal();
    String repo = "/forge/acme/widget.git";
    for (String path : List.of(repo + "/git-receive-pack;x", repo + "/git-receive-pac%6b",
        repo + "/git-receive-pack;", repo + "/git%2dreceive-pack", repo + ";x/git-receive-pack")) {
      Wire.Answer a = Wire.basic(app.get().port(), "POST", path, token, Wire.RECEIVE_PACK_REQUEST,
          push("refs/heads/sneak"));
      assertThat(a.status()).as(path).isEqualTo(400);
      assertThat(a.body()).as(path).startsWith(LITERAL);
    }
    // Jetty itself refuses an encoded slash, before the forge sees it.
    for (String path : List.of(repo + "%2fgit-receive-pack",
        "/forge/acme%2fwidget.git/git-receive-pack")) {
      Wire.Answer a = Wire.basic(app.get().port(), "POST", path, token, Wire.RECEIVE_PACK_REQUEST,
          push("refs/heads/sneak"));
      assertThat(a.status()).as(path).isEqualTo(400);
      assertThat(a.body()).as(path).contains("Ambiguous URI path separator");
    }
    for (String path : List.of(repo + "/info/refs;x?service=git-receive-pack",
        repo + "/info/ref%73?service=git-receive-pack")) {
      Wire.Answer a = Wire.basic(app.get().port(), "GET", path, token, null, null);
      assertThat(a.status()).as(path).isEqualTo(400);
      assertThat(a.body()).as(path).startsWith(LITERAL);
    }
    // The path git itself uses is refused as GitHub refuses it.
    Wire.Answer plain = Wire.basic(app.get().port(), "POST", repo + "/git-receive-pack", token,
        Wire.RECEIVE_PACK_REQUEST, push("refs/heads/sneak"));
    assertThat(plain.status()).isEqualTo(403);
    assertThat(plain.body()).isEqualTo("Write access to repository not granted.\n");
    assertThat(ForgeRefs.of(app.get(), "acme/widget")).containsOnlyKeys("refs/heads/main");
    // Fetching with the read token still works.
    assertThat(Forge.fetchStatus(app.get(), "acme/widget", token)).isEqualTo(200);
  }

  @Test
  void theGatewayRefusesPathParametersAndEncodingsToo() throws Exception {
    String credential = ForgeRefs.credential(run);
    String repo = "/git/github.com/acme/widget.git";
    for (String path : List.of(repo + "/git-receive-pack;x", repo + "/git-receive-pac%6b",
        repo + ";x/git-receive-pack", "/git/github.com/acme/widge%74.git/git-receive-pack")) {
      Wire.Answer a = Wire.post(app.get(), path, credential, push("refs/heads/main"));
      assertThat(a.status()).as(path).isEqualTo(400);
      assertThat(a.body()).as(path).startsWith(LITERAL);
    }
    Wire.Answer a = Wire.get(app.get(), repo + "/info/refs;x?service=git-receive-pack", credential);
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.body()).startsWith(LITERAL);
    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/main")).isEqualTo(main);
  }

  /**
   * Jetty resolves dot segments before it routes ({@code acme/../acme/widget.git} is served as
   * {@code acme/widget.git}), so a path written with them is refused as written, on the gateway
   * and on the forge, instead of being read two ways. git and curl send none: libcurl resolves
   * them before sending (RFC 3986), so what reaches the gateway is the literal path (curl's
   * {@code --path-as-is} and a raw request send them as written). Encoded dots, encoded
   * separators and empty segments are Jetty's 400 before any filter.
   */
  @Test
  void dotSegmentsAreRefusedAsWrittenAndGitAndCurlResolveThemBeforeSending() throws Exception {
    String credential = ForgeRefs.credential(run);
    String refs = "/info/refs?service=git-upload-pack";
    String repo = "/git/github.com/acme/widget.git";
    for (String path : List.of("/git/github.com/acme/../acme/widget.git" + refs,
        "/git/github.com/acme/./widget.git" + refs, "/git/github.com/./acme/widget.git" + refs,
        repo + "/x/.." + refs, repo + "/." + refs, "/git/x/../github.com/acme/widget.git" + refs,
        "/forge/../git/github.com/acme/widget.git" + refs,
        "/git/github.com/acme/widget.git/../../../../forge/acme/widget.git" + refs)) {
      Wire.Answer a = Wire.get(app.get(), path, credential);
      assertThat(a.status()).as(path).isEqualTo(400);
      assertThat(a.body()).as(path).isEqualTo(DOT_SEGMENTS);
    }
    Wire.Answer push = Wire.post(app.get(), "/git/github.com/acme/../acme/widget.git"
        + "/git-receive-pack", credential, push("refs/heads/main"));
    assertThat(push.status()).isEqualTo(400);
    assertThat(push.body()).isEqualTo(DOT_SEGMENTS);
    for (String path : List.of("/git/github.com/acme/%2e%2e/acme/widget.git" + refs,
        "/git/github.com/acme/.%2e/acme/widget.git" + refs, "/git/github.com/acme/%2e/widget.git"
            + refs, "/git/github.com/acme%2fwidget.git" + refs, "/git/github.com//acme/widget.git"
            + refs, "/git/github.com/acme/..;x/acme/widget.git" + refs)) {
      Wire.Answer a = Wire.get(app.get(), path, credential);
      assertThat(a.status()).as(path).isEqualTo(400);
      assertThat(a.body()).as(path).doesNotContain("# service=");
    }
    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/main")).isEqualTo(main);

    String url = "http://127.0.0.1:" + app.get().port() + "/git/github.com/acme/../acme/widget.git"
        + refs;
    assertThat(curl("--path-as-is", url)).isEqualTo("400 " + DOT_SEGMENTS);
    assertThat(curl("--no-progress-meter", url)).startsWith("200 ")
        .contains("# service=git-upload-pack");
    GitRun git = new GitRun(Files.createDirectories(app.dir().resolve("dots-home")),
        ForgeRefs.env(run));
    assertThat(git.in(app.dir(), "ls-remote", "https://github.com/acme/../acme/widget.git").ok()
        .stdout()).contains(main.name() + "\trefs/heads/main");
  }

  /** curl's answer to a GET of {@code url} with the run's credential: status, space, body. */
  private String curl(String option, String url) throws Exception {
    Process p = new ProcessBuilder("curl", "-s", option, "-H", "Authorization: Bearer "
        + ForgeRefs.credential(run), "-w", "%{http_code} ", "-o", "/dev/stderr", url)
        .redirectErrorStream(false).start();
    String body = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    String status = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).isZero();
    return status + body;
  }

  @Test
  void theSandboxSocketServesOnlyWhatARunNeedsAndTheForgeTakesNoPushOverIt() throws Exception {
    Path socket = Path.of(run.get("gateway").get("socket").asText());
    String credential = ForgeRefs.credential(run);
    for (String path : List.of("/healthz", "/metrics", "/forge/api/v3/app",
        "/forge/api/v3/repos/acme/widget/installation", "/v1/runs", "/", "/nothing")) {
      Wire.Answer a = Wire.unix(socket, "GET", path, credential, null);
      assertThat(a.status()).as(path).isEqualTo(404);
      assertThat(a.body()).as(path).startsWith("Not served to sandboxes");
    }
    // The endpoint that once handed a run its read token is gone, over the socket as well.
    Wire.Answer gone = Wire.unix(socket, "GET", "/v1/run/credential", credential, null);
    assertThat(gone.status()).isEqualTo(404);
    assertThat(gone.body()).startsWith("Not served to sandboxes");
    // What a run needs: the gateway, and fetches from the local forge (with a token a run does
    // not hold; the socket does not decide who may read, the forge does).
    assertThat(Wire.unix(socket, "GET",
        "/git/github.com/acme/widget.git/info/refs?service=git-receive-pack", credential, null)
        .status()).isEqualTo(200);
    String readToken = token(false).token().reveal();
    assertThat(Wire.unixBasic(socket, "GET",
        "/forge/acme/widget.git/info/refs?service=git-upload-pack", readToken, null, null)
        .status()).isEqualTo(200);

    // Even a write token pushes nothing to the forge over the sandbox's socket; over loopback
    // the same token and request land, so it is the socket that is refused.
    InstallationToken write = token(true);
    String path = "/forge/acme/widget.git/git-receive-pack";
    Wire.Answer refused = Wire.unixBasic(socket, "POST", path, write.token().reveal(),
        Wire.RECEIVE_PACK_REQUEST, push("refs/heads/from-sandbox"));
    assertThat(refused.status()).isEqualTo(403);
    assertThat(refused.body()).contains("The local forge takes no pushes from a sandbox");
    Wire.Answer advertised = Wire.unixBasic(socket, "GET",
        "/forge/acme/widget.git/info/refs?service=git-receive-pack", write.token().reveal(),
        null, null);
    assertThat(advertised.status()).isEqualTo(403);
    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/from-sandbox")).isNull();

    Wire.Answer landed = Wire.basic(app.get().port(), "POST", path, write.token().reveal(),
        Wire.RECEIVE_PACK_REQUEST, push("refs/heads/from-loopback"));
    assertThat(landed.status()).isEqualTo(200);
    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/from-loopback")).isEqualTo(main);
  }

  /** A push creating {@code ref} at main's commit, which the forge already holds. */
  private byte[] push(String ref) throws Exception {
    return RawPush.request(RawPush.command(ObjectId.zeroId(), main, ref), RawPush.emptyPack());
  }

  /** A write or read token for acme/widget, minted with the forge's App key as the operator could. */
  private InstallationToken token(boolean write) throws Exception {
    String forge = "http://127.0.0.1:" + app.get().port() + "/forge";
    GitHubAppConfig config = GitHubAppConfig.of("1", app.get().dataDir.resolve("forge-app.pem"))
        .withApiBaseUrl(URI.create(forge + "/api/v3")).withGitHost(URI.create(forge));
    OkHttpClient http = new OkHttpClient();
    try {
      GitHubApp github = GitHubApp.create(config, http, Clock.systemUTC());
      RepoSlug widget = new RepoSlug("acme", "widget");
      return write ? github.issueWriteToken(widget, OptionalLong.empty(), false)
          : github.issueReadToken(widget, OptionalLong.empty());
    } finally {
      http.dispatcher().executorService().shutdown();
      http.connectionPool().evictAll();
    }
  }
}
