package dev.pushgate.appliance.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.appliance.store.AuditStore;
import dev.pushgate.appliance.store.Database;
import dev.pushgate.gateway.RunContext;
import dev.pushgate.gateway.api.ApiBoundary;
import dev.pushgate.gateway.api.ApiRecord;
import dev.pushgate.gateway.api.ApiSentinel;
import dev.pushgate.gateway.api.ApiUpstream;
import dev.pushgate.policy.PushRules;
import dev.pushgate.sandbox.ApiInterception;
import dev.pushgate.testkit.ProxyConnect;
import dev.pushgate.types.AuditEntry;
import dev.pushgate.types.RepoSlug;
import dev.pushgate.types.Secret;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApiBoundariesTest {
  @TempDir Path dir;

  @Test
  void aRunGetsTheSentinelAndTheCaFilesAndNoKey() throws Exception {
    ApiBoundaries boundaries = newBoundaries();
    RunContext run = new RunContext("run-1", "ws", RepoSlug.parse("acme/app"), List.of(),
        PushRules.ALLOW_ALL);
    java.net.URI proxyUrl;
    try {
      Map<String, String> env = boundaries.open(run, Duration.ofHours(1), dir, true);
      // a run used by hand reaches the API through the proxy such runs share, with its login
      assertThat(env.get("HTTPS_PROXY")).startsWith("http://run-1:").contains("@127.0.0.1:");
      assertThat(env).containsEntry("NODE_USE_ENV_PROXY", "1");
      proxyUrl = java.net.URI.create(env.get("HTTPS_PROXY"));
      assertThat(ProxyConnect.toApi(proxyUrl.getPort(), proxyUrl.getUserInfo()))
          .startsWith("HTTP/1.1 200");
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
    // the ended run's login names no run any more
    assertThat(ProxyConnect.toApi(proxyUrl.getPort(), proxyUrl.getUserInfo()))
        .startsWith("HTTP/1.1 407");
    boundaries.close();
  }

  @Test
  void theRunsUsedByHandShareOneProxyThatTellsThemApartByTheirLogin() throws Exception {
    ApiBoundaries boundaries = newBoundaries();
    try {
      java.net.URI one = java.net.URI.create(boundaries.open(run("run-1"), Duration.ofHours(1),
          Files.createDirectories(dir.resolve("1")), true).get("HTTPS_PROXY"));
      java.net.URI two = java.net.URI.create(boundaries.open(run("run-2"), Duration.ofHours(1),
          Files.createDirectories(dir.resolve("2")), true).get("HTTPS_PROXY"));
      assertThat(one.getPort()).isEqualTo(two.getPort());
      assertThat(one.getUserInfo()).isNotEqualTo(two.getUserInfo());
      String secretOfOne = one.getUserInfo().substring("run-1:".length());
      String secretOfTwo = two.getUserInfo().substring("run-2:".length());
      assertThat(ProxyConnect.toApi(one.getPort(), one.getUserInfo())).startsWith("HTTP/1.1 200");
      assertThat(ProxyConnect.toApi(one.getPort(), "run-2:" + secretOfTwo))
          .startsWith("HTTP/1.1 200");
      for (String forged : java.util.Arrays.asList(null, "run-1:", "run-1:" + secretOfTwo,
          "run-2:" + secretOfOne, "run-1:" + secretOfOne + "x", ":" + secretOfOne)) {
        assertThat(ProxyConnect.toApi(one.getPort(), forged)).as(String.valueOf(forged))
            .startsWith("HTTP/1.1 407")
            .containsIgnoringCase("Proxy-Authenticate: Basic realm=\"pushgate\"")
            .contains("name your run in the proxy URL");
      }
    } finally {
      boundaries.close();
    }
  }

  /**
   * The shared proxy runs in the boundary's process, which takes a CONNECT to an API name over
   * where the proxy answered it: the run's TLS (its own CA's certificate) and its calls on the
   * same socket, no connection to the boundary's listener; over the run's most connections the
   * CONNECT is refused with a line that says why; the run's end closes what it holds.
   */
  @Test
  void theSharedProxysApiConnectionIsTheRunsTlsConnectionOnTheBoundaryItself() throws Exception {
    ApiBoundaries boundaries = newBoundaries();
    List<Socket> held = new ArrayList<>();
    try {
      Map<String, String> env = boundaries.open(run("run-1"), Duration.ofHours(1), dir, true);
      URI proxy = URI.create(env.get("HTTPS_PROXY"));
      int listener = boundaries.interception("run-1").boundary().getPort();
      SSLSocketFactory tls = trusting(Path.of(env.get("NODE_EXTRA_CA_CERTS")));

      SSLSocket first = tls(tls, ProxyConnect.openToApi(proxy.getPort(), proxy.getUserInfo()));
      held.add(first);
      first.getOutputStream().write(("GET /user HTTP/1.1\r\nHost: api.github.com\r\n"
          + "Authorization: token not-the-sentinel\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      String answer = new String(first.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
      assertThat(answer).isEqualTo("HTTP/1.1 401"); // the boundary's refusal: no sentinel
      assertThat(first.getSession().getPeerPrincipal().getName()).contains("api.github.com");
      assertThat(loopbackConnectionsTo(listener)).isZero();

      for (int i = 1; i < ApiBoundary.MAX_CONNECTIONS; i++) {
        held.add(tls(tls, ProxyConnect.openToApi(proxy.getPort(), proxy.getUserInfo())));
      }
      assertThat(ProxyConnect.toApi(proxy.getPort(), proxy.getUserInfo()))
          .startsWith("HTTP/1.1 503").contains("holds its most open at once");

      boundaries.close("run-1");
      first.getInputStream().readAllBytes(); // the rest of the 401, then the close
      for (Socket s : held.subList(1, held.size())) {
        assertThat(s.getInputStream().read()).isEqualTo(-1);
      }
    } finally {
      for (Socket s : held) {
        s.close();
      }
      boundaries.close();
    }
  }

  /** A client's TLS, trusting only the run's CA, on a connection the proxy opened. */
  private static SSLSocket tls(SSLSocketFactory tls, Socket tunnel) throws Exception {
    SSLSocket s = (SSLSocket) tls.createSocket(tunnel, "api.github.com", 443, true);
    s.setSoTimeout(30_000);
    s.startHandshake();
    return s;
  }

  private static SSLSocketFactory trusting(Path caPem) throws Exception {
    KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
    trust.load(null, null);
    try (var in = Files.newInputStream(caPem)) {
      trust.setCertificateEntry("run-ca",
          CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    return context.getSocketFactory();
  }

  /** TCP connections on this host's loopback whose far end is {@code port}, from /proc. */
  private static long loopbackConnectionsTo(int port) throws Exception {
    String hex = String.format(java.util.Locale.ROOT, ":%04X", port);
    long n = 0;
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      for (String line : Files.readAllLines(Path.of(table)).subList(1,
          Files.readAllLines(Path.of(table)).size())) {
        String[] f = line.trim().split("\\s+");
        if (f[2].endsWith(hex) && "01".equals(f[3])) { // rem_address, ESTABLISHED
          n++;
        }
      }
    }
    return n;
  }

  private static RunContext run(String id) {
    return new RunContext(id, "ws", RepoSlug.parse("acme/app"), List.of(), PushRules.ALLOW_ALL);
  }


  @Test
  void aRunWithASandboxPlanGetsNoProxyOfItsOwnItsLauncherGivesOne() throws Exception {
    ApiBoundaries boundaries = newBoundaries();
    RunContext run = new RunContext("run-2", "ws", RepoSlug.parse("acme/app"), List.of(),
        PushRules.ALLOW_ALL);
    try {
      assertThat(boundaries.open(run, Duration.ofHours(1), dir, false))
          .doesNotContainKeys("HTTPS_PROXY", "HTTP_PROXY", "NODE_USE_ENV_PROXY");
      // what a launch without an OS sandbox gives its process: the shared proxy, the run's login
      ApiInterception.ProxyLogin shared = boundaries.interception("run-2").sharedProxy();
      assertThat(shared.user()).isEqualTo("run-2");
      assertThat(ProxyConnect.toApi(shared.port(), "run-2:" + shared.password().reveal()))
          .startsWith("HTTP/1.1 200");
      assertThat(ProxyConnect.toApi(shared.port(), "run-2:wrong")).startsWith("HTTP/1.1 407");
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
        dev.pushgate.gateway.Approvals.NONE, records -> { }, Clock.systemUTC()), c -> new ReadsOnlyApiJudge(), new ApiBoundaries.RunTokens() {
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
