package dev.pushgate.appliance.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.appliance.store.AuditEntry;
import dev.pushgate.appliance.store.AuditStore;
import dev.pushgate.appliance.store.Database;
import dev.pushgate.gateway.RunContext;
import dev.pushgate.gateway.api.ApiBoundary;
import dev.pushgate.gateway.api.ApiRecord;
import dev.pushgate.gateway.api.ApiSentinel;
import dev.pushgate.gateway.api.ApiUpstream;
import dev.pushgate.policy.PushRules;
import dev.pushgate.types.RepoSlug;
import dev.pushgate.types.Secret;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApiBoundariesTest {
  @TempDir Path dir;

  @Test
  void aRunGetsTheSentinelAndTheCaFilesAndNoKey() throws Exception {
    ApiBoundaries boundaries = newBoundaries();
    RunContext run = new RunContext("run-1", "ws", RepoSlug.parse("acme/app"), List.of(),
        PushRules.ALLOW_ALL);
    int proxyPort;
    try {
      Map<String, String> env = boundaries.open(run, Duration.ofHours(1), dir, true);
      // a run used by hand reaches the API through a proxy of its own, open while the run is
      assertThat(env.get("HTTPS_PROXY")).startsWith("http://127.0.0.1:");
      assertThat(env).containsEntry("NODE_USE_ENV_PROXY", "1");
      proxyPort = java.net.URI.create(env.get("HTTPS_PROXY")).getPort();
      new java.net.Socket("127.0.0.1", proxyPort).close();
      assertThat(env.get("GH_TOKEN")).startsWith(ApiSentinel.PREFIX)
          .isEqualTo(env.get("GITHUB_TOKEN")).hasSizeGreaterThanOrEqualTo(44);
      assertThat(env.get("SSL_CERT_FILE")).isEqualTo(env.get("CURL_CA_BUNDLE"))
          .isEqualTo(env.get("REQUESTS_CA_BUNDLE")).isEqualTo(env.get("GIT_SSL_CAINFO"))
          .isEqualTo(dir.resolve("ca-bundle.pem").toString());
      String ca = Files.readString(Path.of(env.get("NODE_EXTRA_CA_CERTS")));
      String bundle = Files.readString(Path.of(env.get("SSL_CERT_FILE")));
      assertThat(bundle).endsWith(ca);
      for (Path f : List.of(dir.resolve("ca-bundle.pem"), dir.resolve("github-api-ca.pem"))) {
        assertThat(Files.readString(f)).doesNotContain("PRIVATE KEY");
      }
      try (var files = Files.list(dir)) {
        assertThat(files.map(p -> p.getFileName().toString()))
            .containsExactlyInAnyOrder("ca-bundle.pem", "github-api-ca.pem");
      }
      assertThat(boundaries.interception("run-1").hosts())
          .containsExactly("api.github.com", "uploads.github.com");
    } finally {
      boundaries.close("run-1");
    }
    assertThat(boundaries.interception("run-1")).isNull();
    assertThatThrownBy(() -> new java.net.Socket("127.0.0.1", proxyPort).close())
        .isInstanceOf(java.net.ConnectException.class);
  }

  @Test
  void aRunWithASandboxPlanGetsNoProxyOfItsOwnItsLauncherGivesOne() throws Exception {
    ApiBoundaries boundaries = newBoundaries();
    RunContext run = new RunContext("run-2", "ws", RepoSlug.parse("acme/app"), List.of(),
        PushRules.ALLOW_ALL);
    try {
      assertThat(boundaries.open(run, Duration.ofHours(1), dir, false))
          .doesNotContainKeys("HTTPS_PROXY", "HTTP_PROXY", "NODE_USE_ENV_PROXY");
    } finally {
      boundaries.close("run-2");
    }
  }

  @Test
  void apiDecisionsAreAuditedAsApiCallsWithoutTokenOrBody() throws Exception {
    try (Database db = Database.open(dir.resolve("audit.db"))) {
      AuditStore store = new AuditStore(db);
      new AuditedApiCalls(store).record(List.of(
          new ApiRecord(Instant.EPOCH, "run-1", "ws", "POST", "api.github.com",
              "/repos/acme/app/pulls", "open-pull-request", "acme/app", "#new", "denied",
              "no pull requests in chat mode", 0, 3),
          new ApiRecord(Instant.EPOCH, "run-1", "ws", "GET", "api.github.com", "/user", "read",
              null, "/user", "allowed", "reads pass", -1, 1)));
      List<AuditEntry> written = store.list(new AuditStore.Query(null, "run-1", null, null, 0));
      assertThat(written).hasSize(2).extracting(AuditEntry::type)
          .containsOnly(AuditEntry.Type.API_CALL);
      assertThat(written.get(0).kind()).isEqualTo("open-pull-request");
      assertThat(written.get(0).subject()).isEqualTo("POST api.github.com/repos/acme/app/pulls");
      assertThat(written.get(0).ref()).isEqualTo("#new");
      assertThat(written.get(0).decision()).isEqualTo("denied");
      assertThat(written.get(0).outcome()).isEqualTo("not forwarded");
      assertThat(written.get(0).code()).isEqualTo("RULE_DENIED");
      assertThat(written.get(1).outcome()).isEqualTo("ok");
      assertThat(written.get(1).code()).isNull();
      assertThat(written.get(1).repository()).isEmpty();
    }
  }

  /** Boundaries for api.github.com whose runs read with a fixed token and never write. */
  private static ApiBoundaries newBoundaries() {
    return new ApiBoundaries(new ApiBoundary.Shared(
        ApiUpstream.of(URI.create("https://api.github.com")),
        dev.pushgate.gateway.Approvals.NONE, records -> { }, ApiBoundary.Shared.newClient(),
        Clock.systemUTC()), c -> new ReadsOnlyApiJudge(), new ApiBoundaries.RunTokens() {
          @Override
          public Secret readToken(RunContext run) {
            return Secret.of("ghs_real");
          }

          @Override
          public dev.pushgate.gateway.WriteTokenLease mintWriteToken(RunContext run,
              RepoSlug repo) {
            throw new AssertionError();
          }
        }, 10, Clock.systemUTC());
  }
}
