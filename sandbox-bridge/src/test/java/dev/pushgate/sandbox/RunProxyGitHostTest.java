package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A spelling of the GitHub host that git's URL matching cannot read, so that no rule of the run's
 * git config applies (percent-encoded, full-width), is decoded by curl only when it connects: it
 * reaches the run's proxy (git's curl honours {@code HTTPS_PROXY}) as the plain host. Both of a
 * run's proxies refuse the git host there, however the URL spelt it, and never resolve it; the
 * API hosts still go to the boundary and other hosts through.
 */
class RunProxyGitHostTest {
  @TempDir Path tmp;
  private final List<String> resolved = new CopyOnWriteArrayList<>();
  private final List<SandboxViolation> violations = new CopyOnWriteArrayList<>();
  private ServerSocket boundary;
  private EgressProxy gated;
  private EgressProxy loopback;

  @BeforeEach
  void start() throws Exception {
    InetAddress lo = InetAddress.getLoopbackAddress();
    boundary = new ServerSocket(0, 5, lo);
    // Every name the proxies look up is recorded: the git host must never be one of them.
    HostResolver recording = host -> {
      resolved.add(host);
      return List.of(lo);
    };
    ApiInterception interception = new ApiInterception(List.of("api.github.com"),
        new InetSocketAddress(lo, boundary.getLocalPort()), "run-handle");
    gated = EgressProxy.start(tmp.resolve("proxy.sock"), EgressPolicy.resolve(true, List.of()),
        recording, violations::add, interception);
    loopback = EgressProxy.startLoopback(recording, interception);
  }

  @AfterEach
  void stop() throws IOException {
    gated.close();
    loopback.close();
    boundary.close();
  }

  /** Real git, its proxy the run's loopback one, every spelling, fetch and push, https and http. */
  @Test
  void gitReachesTheGitHostByNoSpellingThroughTheRunsProxy() throws Exception {
    Path repo = tmp.resolve("repo");
    git(tmp, "init", "-q", repo.toString());
    git(repo, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q",
        "--allow-empty", "-m", "x");
    List<String> hosts = List.of("%67ithub.com", "%47ithub.com", "github%2Ecom",
        "%67%69%74%68%75%62%2e%63%6f%6d", "GitHub.com", "github.com.", "github.com:443",
        "x@github.com", "x:y@%67ithub.com", "www.%67ithub.com", "\uff47ithub.com");
    List<String> failures = new ArrayList<>();
    for (String scheme : List.of("https", "http")) {
      for (String host : hosts) {
        String url = scheme + "://" + ("http".equals(scheme) ? host.replace(":443", ":80") : host)
            + "/acme/widget.git";
        for (List<String> op : List.of(List.of("ls-remote", url), List.of("fetch", url),
            List.of("push", url, "HEAD:refs/heads/x"))) {
          Result r = git(repo, op.toArray(String[]::new));
          String refusal = "https".equals(scheme) ? "CONNECT tunnel failed, response 403"
              : "remote: pushgate: egress refused: denied: ";
          if (r.exit() == 0 || !r.stderr().contains(refusal)) {
            failures.add(op + " -> " + r.exit() + ": " + r.stderr().strip());
          }
        }
      }
    }
    assertThat(failures).isEmpty();
    assertThat(resolved).noneMatch(h -> h.toLowerCase(java.util.Locale.ROOT).contains("github"));
  }

  @Test
  void bothProxiesRefuseTheGitHostInEveryFormAConnectNamesItAndReportIt() throws Exception {
    for (EgressProxy proxy : List.of(gated, loopback)) {
      for (String target : List.of("github.com:443", "GitHub.com:443", "github.com.:443",
          "www.github.com:443", "github.com:80", "GITHUB.COM:22", "ssh.github.com:443")) {
        String answer = ProxyRequestFormsTest.send(proxy, "CONNECT " + target + " HTTP/1.1\r\n"
            + "Host: " + target + "\r\n\r\n");
        assertThat(answer).as(target).startsWith("HTTP/1.1 403")
            .contains("spell the URL https://github.com/OWNER/REPO.git");
      }
      String plain = ProxyRequestFormsTest.send(proxy, "GET http://GitHub.com./acme/widget.git/info"
          + "/refs HTTP/1.1\r\nHost: github.com\r\nConnection: close\r\n\r\n");
      assertThat(plain).startsWith("HTTP/1.1 403").contains("spell the URL https://github.com/");
    }
    assertThat(resolved).isEmpty();
    assertThat(violations).isNotEmpty()
        .allSatisfy(v -> assertThat(v.target())
            .isIn("github.com", "www.github.com", "ssh.github.com"));
  }

  @Test
  void theApiHostStillReachesTheBoundary() throws Exception {
    assertThat(ProxyRequestFormsTest.tunnelToBoundary(loopback,
        "CONNECT api.github.com:443 HTTP/1.1\r\nHost: api.github.com:443\r\n\r\n", boundary))
        .isEqualTo("ping");
  }

  private record Result(int exit, String stderr) {}

  private Result git(Path dir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("GIT_") || k.toLowerCase().endsWith("_proxy"));
    LocalLauncher.proxyEnvironment(env, loopback.port(), EgressProxy.LAUNCH_USER,
        loopback.login().reveal());
    env.put("GIT_CONFIG_GLOBAL", "/dev/null");
    env.put("GIT_CONFIG_NOSYSTEM", "1");
    env.put("GIT_TERMINAL_PROMPT", "0");
    // a UTF-8 locale, in which curl maps a full-width host to ASCII (IDN) instead of refusing it
    env.put("LC_ALL", "C.UTF-8");
    Path err = tmp.resolve("git-stderr");
    pb.redirectError(err.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD);
    Process p = pb.start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("git " + cmd + " did not finish within 60 s");
    }
    return new Result(p.exitValue(), java.nio.file.Files.readString(err, StandardCharsets.UTF_8));
  }
}
