package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.pushgate.testkit.Wait;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The per-run egress proxy, reached from inside real bubblewrap with curl. Test host names are
 * mapped to 127.0.0.1 by the proxy's resolver: no traffic leaves this machine.
 */
class EgressProxyTest {
  @TempDir Path tmp;
  private Path work;
  private HttpServer server;
  private int port;
  private LocalLauncher launcher;

  @BeforeEach
  void start() throws Exception {
    RealBwrap.require();
    Path root = RealBwrap.searchable(tmp);
    work = Files.createDirectories(root.resolve("work"));
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      byte[] body = ("hello from " + exchange.getRequestURI().getPath() + "\n")
          .getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
    port = server.getAddress().getPort();
    InetAddress loopback = InetAddress.getByName("127.0.0.1");
    Map<String, InetAddress> names = new LinkedHashMap<>();
    for (String name : List.of("allowed.test", "denied.test", "pypi.org")) {
      names.put(name, loopback);
    }
    launcher = new LocalLauncher(LocalLauncher.Settings.defaults()
        .withResolver(HostResolver.mapping(names, HostResolver.SYSTEM)));
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  private SandboxPlan plan(boolean network, List<String> allowlist) {
    return plan(work, network, allowlist);
  }

  private SandboxPlan plan(Path workdir, boolean network, List<String> allowlist) {
    SandboxRequest request = SandboxRequest.builder("space-1", "ws-1", Runner.HARNESS_BASH,
            RunPaths.workdirOnly(workdir.toString()))
        .denyWriteGlobs(DenyWriteGlobs.explicit(List.of()))
        .networkEnabled(network).egressAllowlist(allowlist).build();
    return RealBwrap.planner(null, Map.of("PATH", "/usr/bin:/bin"), SandboxSwitch.ON)
        .plan(request);
  }

  private RealBwrap.Run sh(SandboxPlan plan, String script) throws Exception {
    return RealBwrap.run(launcher, LaunchRequest.of(plan, List.of("/bin/sh", "-c", script)));
  }

  private String curl(String flags, String host, String path) {
    return "curl -sS --max-time 20 " + flags + " http://" + host + ":" + port + path
        + "; echo \" exit=$?\"";
  }

  /** A request that prints only the HTTP status the proxy answered with. */
  private String status(String host, String path) {
    return curl("-o /dev/null -w '%{http_code}'", host, path);
  }

  /**
   * Runs a plain request to {@code plainHost} and a CONNECT tunnel to {@code tunnelHost} and checks
   * that the proxy refused both: 403 to the request, and the tunnel never opened (curl's 56).
   */
  private RealBwrap.Run bothRefused(SandboxPlan plan, String plainHost, String tunnelHost,
      String path) throws Exception {
    RealBwrap.Run run = sh(plan, status(plainHost, path) + ";"
        + curl("-p -o /dev/null", tunnelHost, path));
    assertThat(run.stdout()).startsWith("403 exit=0\n").contains(" exit=56\n");
    return run;
  }

  @Test
  void anAllowedHostIsReachedOverHttpAndThroughAConnectTunnel() throws Exception {
    RealBwrap.Run run = sh(plan(true, List.of("allowed.test")),
        curl("", "allowed.test", "/plain") + ";" + curl("-p", "allowed.test", "/tunnel"));
    assertThat(run.stdout()).isEqualTo("hello from /plain\n exit=0\nhello from /tunnel\n exit=0\n");
    assertThat(run.violations()).isEmpty();
  }

  @Test
  void aHostOffTheAllowlistIsRefusedWithAViolationNamingIt() throws Exception {
    RealBwrap.Run run = bothRefused(plan(true, List.of("allowed.test")), "denied.test", "denied.test", "/");
    assertThat(run.violations()).isNotEmpty().allSatisfy(v -> {
      assertThat(v.action()).isEqualTo("network-outbound");
      assertThat(v.target()).isEqualTo("denied.test");
      assertThat(v.raw()).contains("denied: denied.test is not on the egress allowlist");
    });
  }

  @Test
  void withTheNetworkOffEverythingIsRefused() throws Exception {
    RealBwrap.Run run = bothRefused(plan(false, List.of("allowed.test")), "allowed.test", "github.com", "/");
    assertThat(run.violations()).extracting(SandboxViolation::target)
        .containsExactlyInAnyOrder("allowed.test", "github.com");
    assertThat(run.violations()).allSatisfy(v ->
        assertThat(v.raw()).contains("network access is off for this run"));
  }

  @Test
  void theHostsLoopbackIsUnreachableExceptThroughTheProxy() throws Exception {
    RealBwrap.Run run = sh(plan(true, List.of("allowed.test")),
        "curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:" + port + "/; echo \" exit=$?\"");
    assertThat(run.stdout()).contains(" exit=7");
    assertThat(run.violations()).extracting(SandboxViolation::action)
        .containsExactly("network-outbound");
  }

  @Test
  void aBaselineNameThatResolvesToThisHostIsRefused() throws Exception {
    RealBwrap.Run run = bothRefused(plan(true, List.of()), "pypi.org", "pypi.org", "/simple/");
    // One report for each of the two attempts: an agent that tries again hears why again.
    assertThat(run.violations()).hasSize(2).allSatisfy(v -> {
      assertThat(v.target()).isEqualTo("pypi.org");
      assertThat(v.raw()).contains("resolves to 127.0.0.1, an address of this host");
    });
  }

  @Test
  void concurrentRunsHaveTheirOwnProxies() throws Exception {
    // One worktree per run, as always: a worktree is lent to one sandbox at a time.
    Path workB = Files.createDirectories(work.resolveSibling("work-b"));
    SandboxPlan open = plan(work, true, List.of("allowed.test"));
    SandboxPlan closed = plan(workB, true, List.of());
    // Each run says it is up, then waits for the host's go (at most a minute): both sandboxes,
    // each with its own proxy, are running when either asks.
    String script = ": > started.flag; i=0; while [ ! -e go.flag ] && [ $i -lt 1200 ]; do"
        + " sleep 0.05; i=$((i + 1)); done; " + status("allowed.test", "/");
    CompletableFuture<RealBwrap.Run> a = CompletableFuture.supplyAsync(() -> run(open, script));
    CompletableFuture<RealBwrap.Run> b = CompletableFuture.supplyAsync(() -> run(closed, script));
    try {
      Wait.until(Duration.ofSeconds(60), "both runs to start",
          () -> (Files.exists(work.resolve("started.flag")) || a.isDone())
              && (Files.exists(workB.resolve("started.flag")) || b.isDone()));
      assertThat(a).as("the first run waits for the host").isNotDone();
      assertThat(b).as("the second run waits for the host").isNotDone();
    } finally {
      Files.writeString(work.resolve("go.flag"), "");
      Files.writeString(workB.resolve("go.flag"), "");
    }
    assertThat(a.get().stdout()).startsWith("200");
    assertThat(b.get().stdout()).startsWith("403");
    assertThat(a.get().violations()).isEmpty();
    assertThat(b.get().violations()).extracting(SandboxViolation::target)
        .containsExactly("allowed.test");
  }

  private RealBwrap.Run run(SandboxPlan plan, String script) {
    try {
      return sh(plan, script);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
