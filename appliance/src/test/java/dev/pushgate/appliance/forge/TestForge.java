package dev.pushgate.appliance.forge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.pushgate.appliance.store.Database;
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
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The local forge served by Jetty on a free loopback port, on a temporary data directory and
 * SQLite file, with a clock the test moves and App JWTs signed with the forge's own key.
 */
final class TestForge implements AutoCloseable {
  static final Duration TOKEN_LIFETIME = Duration.ofHours(1);
  static final ObjectMapper JSON = new ObjectMapper();


  final MutableClock clock = new MutableClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
  final ForgeRepositories repos;
  final ForgeAppKey appKey;
  private final Database db;
  private final Server server;
  private final HttpClient http = HttpClient.newHttpClient();

  TestForge(Path dir) throws Exception {
    repos = new ForgeRepositories(dir.resolve("forge"));
    db = Database.open(dir.resolve("pushgate.db"));
    Path keyFile = dir.resolve("forge-app.pem");
    Files.copy(sharedKey(), keyFile);
    appKey = ForgeAppKey.openOrCreate(keyFile);
    LocalForge forge = new LocalForge(repos, new ForgeTokens(db, clock, TOKEN_LIFETIME), appKey, clock);
    server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    server.setHandler(forge.handler());
    server.start();
  }

  private static Path sharedKey;

  /** One App key for every forge of the test run, made by the forge itself: RSA keys are slow. */
  private static synchronized Path sharedKey() throws IOException {
    if (sharedKey == null) {
      Path dir = Files.createTempDirectory("pushgate-forge-key");
      dir.toFile().deleteOnExit();
      sharedKey = ForgeAppKey.openOrCreate(dir.resolve("forge-app.pem")).privateKeyFile();
      sharedKey.toFile().deleteOnExit();
    }
    return sharedKey;
  }

  ForgeRepositories.ForgeRepo create(String slug) throws IOException {
    return repos.create(RepoSlug.parse(slug));
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort()
        + path);
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
    db.close();
  }
}
