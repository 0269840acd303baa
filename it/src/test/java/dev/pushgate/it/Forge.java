package dev.pushgate.it;

import dev.pushgate.broker.GitHubApp;
import dev.pushgate.broker.GitHubAppConfig;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.types.RepoSlug;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.OptionalLong;
import okhttp3.OkHttpClient;

/** What the local forge and the ledger say, asked directly, without git. */
final class Forge {
  private Forge() {}

  /**
   * A read token for {@code repo}, minted with the forge's App key as the appliance mints the one
   * it keeps for a run: a run itself holds none (its {@code GH_TOKEN} is a sentinel).
   */
  static String mintReadToken(RunningAppliance app, String repo) throws Exception {
    String forge = "http://127.0.0.1:" + app.port() + "/forge";
    GitHubAppConfig config = GitHubAppConfig.of("1", app.dataDir.resolve("forge-app.pem"))
        .withApiBaseUrl(URI.create(forge + "/api/v3")).withGitHost(URI.create(forge));
    OkHttpClient http = new OkHttpClient();
    try {
      return GitHubApp.create(config, http, Clock.systemUTC())
          .issueReadToken(RepoSlug.parse(repo), OptionalLong.empty()).token().reveal();
    } finally {
      http.dispatcher().executorService().shutdown();
      http.connectionPool().evictAll();
    }
  }

  /** The status the forge answers a fetch advertisement made with {@code token}. */
  static int fetchStatus(RunningAppliance app, String repo, String token) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create(app.forgeUrl(repo) + "/info/refs?service=git-upload-pack"))
        .timeout(Duration.ofSeconds(30))
        .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
            ("x-access-token:" + token).getBytes(StandardCharsets.UTF_8)))
        .GET().build(), HttpResponse.BodyHandlers.ofString());
    return r.statusCode();
  }

  /** The status the gateway answers a push advertisement made with a run credential. */
  static int gatewayStatus(RunningAppliance app, String repo, String credential) throws Exception {
    return advertisementStatus(app, repo, credential, "git-receive-pack");
  }

  /** The status the gateway answers a fetch advertisement made with a run credential. */
  static int gatewayFetchStatus(RunningAppliance app, String repo, String credential)
      throws Exception {
    return advertisementStatus(app, repo, credential, "git-upload-pack");
  }

  private static int advertisementStatus(RunningAppliance app, String repo, String credential,
      String service) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create(app.gatewayUrl() + repo + ".git/info/refs?service=" + service))
        .timeout(Duration.ofSeconds(30))
        .header("Authorization", "Bearer " + credential).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    return r.statusCode();
  }

  /** Read tokens the appliance was ever issued for a run (it keeps them; the run holds none). */
  static int readTokensIssued(RunningAppliance app, String runId) throws Exception {
    return (int) overReadTokens(app, runId, "count(*)");
  }

  /** When the first read token the appliance was issued for a run expires, in epoch millis. */
  static long firstReadTokenExpiry(RunningAppliance app, String runId) throws Exception {
    return overReadTokens(app, runId, "min(expires_at)");
  }

  /** {@code aggregate} over the rows of the read tokens issued for a run. */
  private static long overReadTokens(RunningAppliance app, String runId, String aggregate)
      throws Exception {
    try (Connection c = DriverManager.getConnection(
            "jdbc:sqlite:" + app.dataDir.resolve("pushgate.db"));
        PreparedStatement ps = c.prepareStatement("SELECT " + aggregate + " FROM credentials"
            + " WHERE run_id = ? AND kind = 'read'")) {
      ps.setString(1, runId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** Tokens the local forge would still accept, of every run: none is revoked or expired. */
  static int liveForgeTokens(RunningAppliance app) throws Exception {
    return count(app, "SELECT count(*) FROM forge_tokens WHERE revoked_at IS NULL");
  }

  /** Runs the ledger has ever recorded, live or ended. */
  static int recordedRuns(RunningAppliance app) throws Exception {
    return count(app, "SELECT count(*) FROM runs");
  }

  private static int count(RunningAppliance app, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(
            "jdbc:sqlite:" + app.dataDir.resolve("pushgate.db"));
        PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** Credentials of a run the ledger does not know to be revoked. */
  static int liveCredentials(RunningAppliance app, String runId) throws Exception {
    return liveCredentials(app, runId, null);
  }

  /** The run's credentials of {@code kind} (read, write, sync; null for any) not revoked yet. */
  static int liveCredentials(RunningAppliance app, String runId, String kind) throws Exception {
    try (Connection c = DriverManager.getConnection(
            "jdbc:sqlite:" + app.dataDir.resolve("pushgate.db"));
        PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM credentials"
            + " WHERE run_id = ? AND revoked_at IS NULL AND (? IS NULL OR kind = ?)")) {
      ps.setString(1, runId);
      ps.setString(2, kind);
      ps.setString(3, kind);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }
}
