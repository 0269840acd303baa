package dev.pushgate.forge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.pushgate.testkit.MutableClock;
import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Date;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The local forge served by Jetty on a free loopback port, on a temporary data directory and
 * a token table in memory, with a clock the test moves and App JWTs signed with the forge's own
 * key.
 */
final class TestForge implements AutoCloseable {
  static final Duration TOKEN_LIFETIME = Duration.ofHours(1);
  static final ObjectMapper JSON = new ObjectMapper();


  final MutableClock clock = new MutableClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
  final ForgeRepositories repos;
  final ForgeAppKey appKey;
  private final Server server;
  private final HttpClient http = HttpClient.newHttpClient();

  TestForge(Path dir) throws Exception {
    repos = new ForgeRepositories(dir.resolve("forge"));
    Path keyFile = dir.resolve("forge-app.pem");
    Files.copy(sharedKey(), keyFile);
    appKey = ForgeAppKey.openOrCreate(keyFile);
    LocalForge forge = new LocalForge(repos, new ForgeTokens(new MemoryTokenTable(), clock, TOKEN_LIFETIME), appKey, clock);
    server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    server.setHandler(new GhApiHost(forge.handler()));
    server.start();
  }

  /**
   * What pushgate's API proxy does for the forge, for {@code gh} in tests: {@code gh} with
   * {@code GH_HOST=github.localhost} sends its API requests to {@code http://api.github.localhost/}
   * (through {@code HTTP_PROXY}, this server), and they are served at the forge's API base.
   */
  static final class GhApiHost extends Handler.Wrapper {
    static final String HOST = "api.github.localhost";

    GhApiHost(Handler forge) {
      super(forge);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
      HttpURI uri = request.getHttpURI();
      if (HOST.equalsIgnoreCase(Request.getServerName(request))) {
        request = Request.serveAs(request, HttpURI.build(uri)
            .path(LocalForge.CONTEXT_PATH + LocalForge.API_PATH + uri.getPath()));
      }
      return super.handle(request, response, callback);
    }
  }

  int port() {
    return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
  }

  /** A branch {@code branch} of {@code repo} from main, with one commit writing {@code path}. */
  String branch(ForgeRepositories.ForgeRepo repo, String branch, String path, String content)
      throws Exception {
    ForgeCommits commits = new ForgeCommits(new ForgeRefUpdates());
    try (org.eclipse.jgit.lib.Repository git = ForgeCommits.open(repo)) {
      if (ForgeCommits.branch(git, branch).isEmpty()) {
        commits.createRef(repo, "refs/heads/" + branch, ForgeCommits.branch(git, "main").get());
      }
      java.util.Optional<ForgeCommits.FileAt> old = ForgeCommits.file(git, branch, path);
      return commits.putFile(repo, branch, path, content.getBytes(StandardCharsets.UTF_8),
          "change " + path, old.map(f -> f.blob().name()).orElse(null),
          ForgeCommits.forgeIdent(clock.instant())).commit().name();
    }
  }

  /** The commit {@code branch} of {@code repo} points at, or null. */
  String tip(ForgeRepositories.ForgeRepo repo, String branch) throws Exception {
    return ForgePullRequests.tip(repo, branch);
  }

  /** One App key for every forge of the test run, made by the forge itself: RSA keys are slow. */
  private static Path sharedKey() {
    return SharedKey.FILE;
  }

  /** Made once, on first use (the JVM's class initialisation), and never changed after. */
  private static final class SharedKey {
    static final Path FILE = create();

    private static Path create() {
      try {
        Path dir = Files.createTempDirectory("pushgate-forge-key");
        dir.toFile().deleteOnExit();
        Path key = ForgeAppKey.openOrCreate(dir.resolve("forge-app.pem")).privateKeyFile();
        key.toFile().deleteOnExit();
        return key;
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }

  ForgeRepositories.ForgeRepo create(String slug) throws IOException {
    return repos.create(RepoSlug.parse(slug));
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port() + path);
  }

  /** A well-formed App JWT as the broker makes it: iat backdated 60 s, exp in 9 minutes. */
  String jwt() throws Exception {
    Instant now = clock.instant();
    return jwt(new JWTClaimsSet.Builder().issuer(ForgeAppKey.APP_ID)
        .issueTime(Date.from(now.minusSeconds(60))).expirationTime(Date.from(now.plusSeconds(540)))
        .build());
  }

  String jwt(JWTClaimsSet claims) throws Exception {
    return sign(claims, privateKey(appKey.privateKeyFile()));
  }

  static String sign(JWTClaimsSet claims, PrivateKey key) throws JOSEException {
    SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), claims);
    jwt.sign(new RSASSASigner(key));
    return jwt.serialize();
  }

  static PrivateKey privateKey(Path pem) throws IOException {
    try (Reader r = Files.newBufferedReader(pem, StandardCharsets.US_ASCII);
        PEMParser parser = new PEMParser(r)) {
      return new JcaPEMKeyConverter().getKeyPair((PEMKeyPair) parser.readObject()).getPrivate();
    }
  }

  HttpResponse<String> send(String method, String path, String authorization, String body)
      throws Exception {
    return send(method, path, authorization, body, "application/json");
  }

  HttpResponse<String> send(String method, String path, String authorization, String body,
      String contentType) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    if (body != null) {
      b.header("Content-Type", contentType);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Issues an installation token through the App API; returns its value. */
  String token(String permissionsJson, String... repositoryNames) throws Exception {
    StringBuilder names = new StringBuilder();
    for (String n : repositoryNames) {
      names.append(names.length() == 0 ? "" : ",").append('"').append(n).append('"');
    }
    HttpResponse<String> r = send("POST", "/forge/api/v3/app/installations/" + ForgeAppKey.installationIdOf("acme") + "/access_tokens",
        "Bearer " + jwt(), "{\"repositories\":[" + names + "],\"permissions\":" + permissionsJson + "}");
    if (r.statusCode() != 201) {
      throw new IllegalStateException("token not issued: " + r.statusCode() + " " + r.body());
    }
    return JSON.readTree(r.body()).get("token").asText();
  }

  static String basic(String token) {
    return "Basic " + Base64.getEncoder().encodeToString(
        ("x-access-token:" + token).getBytes(StandardCharsets.UTF_8));
  }

  static JsonNode json(HttpResponse<String> r) throws IOException {
    return JSON.readTree(r.body());
  }

  @Override
  public void close() throws Exception {
    server.stop();
  }
}
