package dev.pushgate.appliance;

import dev.pushgate.broker.GitHubAppConfig;
import dev.pushgate.sandbox.SandboxSwitch;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPairGenerator;
import java.util.Base64;
import java.time.Duration;

/** The appliance started in this JVM on port 0, for tests of what it serves over HTTP. */
final class TestAppliance implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).build();

  final Appliance appliance;
  final ByteArrayOutputStream out = new ByteArrayOutputStream();

  private TestAppliance(Settings settings, Duration readinessInterval) throws Exception {
    appliance = Appliance.start(settings,
        new PrintStream(out, true, StandardCharsets.UTF_8), readinessInterval);
  }

  /** The local forge (or {@code github}), sandbox off, the App's readiness decided every 100 ms. */
  static TestAppliance start(Path dataDir, GitHubAppConfig github) throws Exception {
    return start(dataDir, github, null);
  }

  /** As {@link #start(Path, GitHubAppConfig)}, on {@code databaseUrl} (null: the data dir's file). */
  static TestAppliance start(Path dataDir, GitHubAppConfig github, String databaseUrl)
      throws Exception {
    Settings d = Settings.defaults(dataDir);
    Settings s = new Settings(dataDir, d.bindHost(), 0, false, github, d.runTtl(), d.maxRunTtl(),
        d.refreshBefore(), d.forgeTokenLifetime(), d.maxPackBytes(), d.clientTimeout(),
        d.upstreamTimeout(), d.sweepInterval(), Duration.ofSeconds(2), SandboxSwitch.OFF,
        d.approvalTimeout(), d.approverPollGrace(), d.hookAsk(), databaseUrl, d.defaultRules(),
        d.writeTokensPerMinute(), d.limits(), d.passEnv(), d.auditSinks(),
        null, d.webhooks(), null);
    return new TestAppliance(s, Duration.ofMillis(100));
  }

  /**
   * A GitHub App of a fresh RSA key, written to {@code dir}/app.pem, whose API is {@code api};
   * each call tried once, given up after {@code retryFor}.
   */
  static GitHubAppConfig appWithFreshKey(Path dir, URI api, Duration retryFor) throws Exception {
    var gen = KeyPairGenerator.getInstance("RSA");
    gen.initialize(2048);
    Path key = dir.resolve("app.pem");
    Files.writeString(key, "-----BEGIN PRIVATE KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
            .encodeToString(gen.generateKeyPair().getPrivate().getEncoded())
        + "\n-----END PRIVATE KEY-----\n");
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
    return GitHubAppConfig.of("1", key).withApiBaseUrl(api)
        .withGitHost(URI.create("https://github.com")).withRetries(retryFor, 1);
  }

  HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + appliance.port() + path))
        .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  @Override
  public void close() {
    appliance.close();
  }
}
