package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.ControlClient;
import dev.pushgate.testkit.ProxyConnect;
import dev.pushgate.testkit.Wait;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The README's by-hand run with the real {@code gh}, outside any sandbox: a run created with
 * {@code POST /v1/runs}, its {@code env} loaded into a shell, {@code gh pr create} refused by one
 * run's rules and allowed by another's. The answer carries {@code HTTPS_PROXY}: the loopback
 * proxy every run used by hand shares, with the run's own login in the URL; curl, Python and git
 * send it too, a request without it is refused 407, and the login ends with the run.
 */
class ByHandGhTest {
  /** The README's by-hand steps after loading the run's env, then {@code gh pr create}. */
  private static final String BY_HAND = """
      export GH_PROMPT_DISABLED=1 GH_NO_UPDATE_NOTIFIER=1 NO_COLOR=1 GH_CONFIG_DIR="$PWD/gh-config"
      git clone -q https://github.com/acme/widget.git widget && cd widget
      git config user.name Agent && git config user.email agent@example.com
      git checkout -q -b "$BRANCH"
      echo change > change.txt && git add change.txt && git commit -qm change
      git push -q origin "$BRANCH"
      gh pr create -R acme/widget --head "$BRANCH" --base main --title "Add $BRANCH" --body "by hand"
      echo "create=$?"
      """;

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().withRepos("acme/widget");

  @BeforeAll
  static void start() throws Exception {
    boolean gh = new File("/usr/bin/gh").canExecute();
    if (!gh && "true".equals(System.getenv("CI"))) {
      fail("gh is not installed: .ci/run installs Debian's package gh");
    }
    Assumptions.assumeTrue(gh, "gh is not installed");
  }

  @Test
  void ghPrCreateIsRefusedByTheRunsRuleWithItsReason() throws Exception {
    JsonNode run = createRun("denied", "{\"open-pull-request\": \"deny\"}");
    String out = byHand(run, "denied");
    assertThat(out).contains("create=1",
        "Control Center policy: opening a pull request is denied (open-pull-request)");
  }

  @Test
  void ghPrCreateOpensThePullRequestWhenTheRunAllowsItAndTheProxyEndsWithTheRun()
      throws Exception {
    JsonNode run = createRun("allowed", "{\"open-pull-request\": \"allow\"}");
    String proxy = run.get("env").get("HTTPS_PROXY").asText();
    String runId = run.get("runId").asText();
    assertThat(proxy).matches("http://" + runId + ":[A-Za-z0-9_-]{43}@127\\.0\\.0\\.1:[0-9]+");
    assertThat(run.get("env").get("NODE_USE_ENV_PROXY").asText()).isEqualTo("1");
    String out = byHand(run, "allowed");
    assertThat(out).contains("create=0", "/acme/widget/pull/");

    URI url = URI.create(proxy);
    assertThat(ProxyConnect.toApi(url.getPort(), url.getUserInfo())).startsWith("HTTP/1.1 200");
    ControlClient.Answer ended = app.get().control().delete("/v1/runs/" + runId);
    assertThat(ended.status()).as(ended.raw()).isEqualTo(200);
    Wait.until(Duration.ofSeconds(30), "the run's proxy login to end with the run",
        () -> ProxyConnect.toApi(url.getPort(), url.getUserInfo()).startsWith("HTTP/1.1 407"));
  }

  @Test
  void curlPythonAndGitSendTheRunsLoginToTheSharedProxyAndNothingPassesWithoutIt()
      throws Exception {
    JsonNode run = createRun("clients", "{\"open-pull-request\": \"allow\"}");
    JsonNode other = createRun("other", "{\"open-pull-request\": \"allow\"}");
    String proxy = run.get("env").get("HTTPS_PROXY").asText();
    assertThat(URI.create(proxy).getPort())
        .isEqualTo(URI.create(other.get("env").get("HTTPS_PROXY").asText()).getPort());
    String clients = """
        api=https://api.github.com/installation/repositories
        echo "curl=$(curl -sS --max-time 30 -o /dev/null -w '%{http_code}' \
          -H "Authorization: token $GH_TOKEN" "$api")"
        python3 - <<'PY'
        import os, urllib.request, requests
        auth = {"Authorization": "token " + os.environ["GH_TOKEN"]}
        api = "https://api.github.com/installation/repositories"
        print("requests=%d" % requests.get(api, headers=auth, timeout=30).status_code)
        print("urllib=%d" % urllib.request.urlopen(urllib.request.Request(api, headers=auth),
                                                   timeout=30).status)
        PY
        echo "git: $(GIT_TERMINAL_PROMPT=0 git ls-remote https://elsewhere.invalid/x.git 2>&1 \\
          | grep fatal | head -1)"
        """;
    String out = byHand(run, "clients", clients);
    assertThat(out).contains("curl=200", "requests=200", "urllib=200")
        // git's CONNECT was let through (the run's git config keeps the GitHub names from the
        // proxy; another host's is tried, and does not resolve), not refused 407
        .containsPattern("git: fatal: .*response 5[0-9][0-9]").doesNotContain("407");

    // The same clients with the login taken out of the URL: the proxy answers 407.
    URI url = URI.create(proxy);
    String bare = "http://127.0.0.1:" + url.getPort();
    String without = byHand(run, "no-login", "export HTTPS_PROXY=" + bare + " https_proxy="
        + bare + "\n" + clients);
    assertThat(without).doesNotContain("curl=200", "requests=200", "urllib=200")
        .contains("curl=000", "407 Proxy Authentication Required")
        .containsPattern("git: fatal: .*response 407");
    assertThat(ProxyConnect.toApi(url.getPort(), null)).startsWith("HTTP/1.1 407")
        .contains("name your run in the proxy URL");
    // another run's secret with this run's id is no login
    String otherSecret = URI.create(other.get("env").get("HTTPS_PROXY").asText()).getUserInfo()
        .split(":", 2)[1];
    assertThat(ProxyConnect.toApi(url.getPort(), run.get("runId").asText() + ":" + otherSecret))
        .startsWith("HTTP/1.1 407");
  }

  /**
   * attack36: a call whose body stops arriving was promised a 408, but through the run's proxy
   * the client read a bare close: the proxy's tunnel has a 30 s idle timeout of its own, and the
   * boundary's body deadline was 30 s too. The deadline (20 s, from the head) now comes before
   * any idle timeout on the way (30 s, from the last byte).
   */
  @Test
  void aBodyThatStopsArrivingIsAnswered408ThroughTheRunsProxy() throws Exception {
    JsonNode run = createRun("stalled", "{\"write-tracker\": \"allow\"}");
    String out = byHand(run, "stalled", """
        python3 - <<'PY'
        import base64, os, socket, ssl, urllib.parse
        u = urllib.parse.urlparse(os.environ["HTTPS_PROXY"])
        s = socket.create_connection((u.hostname, u.port))
        login = base64.b64encode(("%s:%s" % (u.username, u.password)).encode()).decode()
        s.sendall(("CONNECT api.github.com:443 HTTP/1.1\\r\\nHost: api.github.com:443\\r\\n"
                   "Proxy-Authorization: Basic %s\\r\\n\\r\\n" % login).encode())
        head = b""
        while b"\\r\\n\\r\\n" not in head:
            head += s.recv(4096)
        t = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"]).wrap_socket(
            s, server_hostname="api.github.com")
        t.sendall(("POST /repos/acme/widget/issues HTTP/1.1\\r\\nHost: api.github.com\\r\\n"
                   "Authorization: token %s\\r\\nContent-Type: application/json\\r\\n"
                   "Content-Length: 1000\\r\\n\\r\\n{" % os.environ["GH_TOKEN"]).encode())
        t.settimeout(90)
        answer = b""
        while True:
            more = t.recv(65536)
            if not more:
                break
            answer += more
        print("answer=" + (answer.split(b"\\r\\n")[0].decode() if answer else "EOF"))
        print(answer.decode(errors="replace"))
        PY
        """);
    assertThat(out).contains("answer=HTTP/1.1 408 ",
        "pushgate reads a call's whole body within 20 s of its head, and this one's had not all"
            + " arrived: send the body at once, with the request");
  }

  /**
   * Finding (attack38): an asked API call through the run's proxy waits for its approver past the
   * proxy's own 30 s idle timeout, up to the approval timeout (5 min here): nothing crosses the
   * tunnel while the boundary waits, and the proxy closed it at 30 s, which the boundary took
   * for the client gone and withdrew the question.
   */
  @Test
  void anAskedCallThroughTheRunsProxyWaitsForAnApproverPastThirtySeconds() throws Exception {
    JsonNode run = createRun("slow-approver", "{\"open-pull-request\": \"ask\"}");
    try (ApproverWatch watch = ApproverWatch.start(app.get().dataDir)) {
      java.util.concurrent.CompletableFuture<String> created =
          java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
              return byHand(run, "slow-approver"); // gh pr create, asked
            } catch (Exception e) {
              throw new java.util.concurrent.CompletionException(e);
            }
          });
      String id = ApprovalEdgesTest.questionId(watch.awaitLine("? q_"));
      // The scenario: an approver who takes longer than the proxy's 30 s idle timeout to answer.
      // Each second until then the question must still be pending (the old proxy withdrew it
      // at 30 s), which is what this waits on.
      long answerAt = System.nanoTime() + Duration.ofSeconds(35).toNanos();
      Wait.atMost(Duration.ofSeconds(60), Duration.ofSeconds(1)).until(
          "35 s of the approver's deciding, the question pending throughout", () -> {
            assertThat(app.get().control().get("/v1/approvals").raw())
                .as("the question while its approver decides").contains(id);
            return System.nanoTime() >= answerAt;
          });
      ControlClient.Answer allowed = app.get().control().post("/v1/approvals/" + id,
          "{\"decision\": \"allow\", \"by\": \"slow approver\"}");
      assertThat(allowed.status()).as(allowed.raw()).isEqualTo(200);
      assertThat(created.get(120, TimeUnit.SECONDS)).contains("create=0");
    }
  }

  /**
   * Finding (attack35l): a tunnel through the shared proxy to a host other than the API names is
   * judged once, at its CONNECT; it must end with the run whose login opened it.
   */
  @Test
  void aTunnelThroughTheSharedProxyEndsWithItsRun() throws Exception {
    JsonNode run = createRun("tunnel", "{\"open-pull-request\": \"allow\"}");
    URI proxy = URI.create(run.get("env").get("HTTPS_PROXY").asText());
    String login = java.util.Base64.getEncoder().encodeToString(
        proxy.getUserInfo().getBytes(StandardCharsets.UTF_8));
    try (java.net.ServerSocket far = new java.net.ServerSocket(0, 5,
            java.net.InetAddress.getLoopbackAddress());
        java.net.Socket client = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(),
            proxy.getPort())) {
      client.setSoTimeout(30_000);
      String target = "127.0.0.1:" + far.getLocalPort();
      client.getOutputStream().write(("CONNECT " + target + " HTTP/1.1\r\nHost: " + target
          + "\r\nProxy-Authorization: Basic " + login + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      client.getOutputStream().flush();
      try (java.net.Socket tunnelled = far.accept()) {
        // Well inside the proxy's 30 s idle timeout, which would close an idle tunnel anyway (a
        // busy one it never closes): the run's end must close it, not the idle timer.
        tunnelled.setSoTimeout(10_000);
        assertThat(new String(client.getInputStream().readNBytes(12), StandardCharsets.US_ASCII))
            .isEqualTo("HTTP/1.1 200");
        ControlClient.Answer ended = app.get().control().delete("/v1/runs/"
            + run.get("runId").asText());
        assertThat(ended.status()).as(ended.raw()).isEqualTo(200);
        assertThat(tunnelled.getInputStream().read()).as("the tunnel's far end after its run")
            .isEqualTo(-1);
      }
    }
  }

  private static JsonNode createRun(String name, String rules) throws Exception {
    ControlClient.Answer created = app.get().control().post("/v1/runs", "{\"workspaceId\": \"ws-"
        + name + "\", \"mode\": \"chat\", \"repository\": \"acme/widget\", \"rules\": {"
        + "\"push\": \"allow\", " + rules.substring(1) + "}");
    assertThat(created.status()).as(created.raw()).isEqualTo(201);
    return created.body();
  }

  /** Runs {@link #BY_HAND} with exactly the run's env (and a PATH and HOME), as the README does. */
  private static String byHand(JsonNode run, String branch) throws Exception {
    return byHand(run, branch, BY_HAND);
  }

  private static String byHand(JsonNode run, String branch, String script) throws Exception {
    Path dir = Files.createDirectories(app.dir().resolve("by-hand-" + branch));
    ProcessBuilder pb = new ProcessBuilder("sh", "-c", script).directory(dir.toFile())
        .redirectErrorStream(true);
    Map<String, String> env = pb.environment();
    env.clear();
    env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
    env.put("HOME", dir.toString());
    env.put("BRANCH", branch);
    run.get("env").fields().forEachRemaining(e -> env.put(e.getKey(), e.getValue().asText()));
    Process p = pb.start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("the by-hand steps did not finish:\n" + out);
    }
    return out;
  }
}
