package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.gateway.api.ApiSentinel;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.ControlClient;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The push path end to end: the real git CLI, with a run's environment, against the appliance
 * jar and its local forge. The class shares one appliance; each test has a run, a clone and a git
 * transcript of its own, so that the tests pass in any order.
 */
class PushPathTest {
  private static final String DENY_MAIN = """
      {"workspaceId": "ws-1", "mode": "chat", "repository": "acme/widget",
       "attachedRepositories": ["acme/lib"],
       "rules": {"push": [{"refs": "refs/heads/main", "decision": "deny",
                           "reason": "push to main is denied"}]}}""";
  private static final Pattern GITHUB_TOKEN = Pattern.compile("gh[pousr]_[A-Za-z0-9]{20,}");

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving()
      .withRepos("acme/widget", "acme/lib", "acme/other");

  /** This test's directory: its home, its clone and whatever else it makes. */
  private Path dir;
  private JsonNode run;
  private GitRun git;
  /** Every git output of this test, for the leak check: other tests put tokens in URLs. */
  private final StringBuffer transcript = new StringBuffer();
  private Path work;

  @BeforeEach
  void arrange(TestInfo test) throws Exception {
    dir = Files.createDirectories(app.dir().resolve(test.getTestMethod().orElseThrow().getName()));
    run = app.get().createRun(DENY_MAIN);
    git = new GitRun(Files.createDirectories(dir.resolve("home")), env(run))
        .withTranscript(transcript);
    git.in(dir, "clone", "https://github.com/acme/widget.git", "widget").ok();
    work = dir.resolve("widget");
  }

  @Test
  void pushesANewBranchAndRefusesMainInGitsOwnOutput() throws Exception {
    ObjectId mainBefore = forgeRef("acme/widget", "refs/heads/main");
    commit(work, "feature.txt", "one");
    git.in(work, "push", "origin", "main:feature").ok();
    assertThat(forgeRef("acme/widget", "refs/heads/feature")).isEqualTo(head(work));

    GitRun.Result refused = git.in(work, "push", "origin", "main").failed();
    assertThat(refused.stderr()).contains(
        "! [remote rejected] main -> main (Control Center policy: push to main is denied)");
    assertThat(forgeRef("acme/widget", "refs/heads/main")).isEqualTo(mainBefore);

    JsonNode audit = app.get().control()
        .get("/v1/audit?decision=denied&runId=" + run.get("runId").asText()).body();
    assertThat(audit.get("decisions")).anySatisfy(d -> {
      assertThat(d.get("ref").asText()).isEqualTo("refs/heads/main");
      assertThat(d.get("decision").asText()).isEqualTo("denied");
      assertThat(d.get("code").asText()).isEqualTo("RULE_DENIED");
      assertThat(d.get("reason").asText()).isEqualTo("push to main is denied");
      assertThat(d.get("kind").asText()).isEqualTo("update-or-force");
    });
  }

  @Test
  void everyGitHubUrlFormReachesTheGateway() throws Exception {
    commit(work, "forms.txt", "two");
    git.in(work, "remote", "add", "scp", "git@github.com:acme/widget.git").ok();
    git.in(work, "remote", "add", "sshurl", "ssh://git@github.com/acme/widget").ok();
    git.in(work, "push", "scp", "main:via-scp").ok();
    git.in(work, "push", "sshurl", "main:via-ssh-url").ok();
    assertThat(forgeRef("acme/widget", "refs/heads/via-scp")).isEqualTo(head(work));
    assertThat(forgeRef("acme/widget", "refs/heads/via-ssh-url")).isEqualTo(head(work));
    assertThat(git.in(work, "push", "scp", "main").failed().stderr())
        .contains("(Control Center policy: push to main is denied)");

    // every other spelling git takes for github.com, each of which once went around the gateway
    String[] spellings = {"ssh://github.com/acme/widget", "ssh://git@github.com:22/acme/widget",
        "github.com:acme/widget.git", "git+ssh://git@github.com/acme/widget.git",
        "https://github.com:443/acme/widget.git", "http://github.com/acme/widget.git",
        "https://github.com./acme/widget.git", "https://github.com/acme/widget/"};
    for (int i = 0; i < spellings.length; i++) {
      git.in(work, "push", spellings[i], "main:via-spelling-" + i).ok();
      assertThat(forgeRef("acme/widget", "refs/heads/via-spelling-" + i)).as(spellings[i])
          .isEqualTo(head(work));
      assertThat(git.in(work, "push", spellings[i], "main").failed().stderr()).as(spellings[i])
          .contains("(Control Center policy: push to main is denied)");
    }
    // what no prefix can list (another user, the host in other case) is refused before ssh runs
    for (String url : new String[] {"deploy@github.com:acme/widget",
        "ssh://GitHub.com/acme/widget"}) {
      assertThat(git.in(work, "push", url, "main:never").failed().stderr()).as(url)
          .contains("was not sent to the gateway").contains(
              "Use https://github.com/acme/widget instead, where the run's rules judge it.");
    }
    assertThat(forgeRef("acme/widget", "refs/heads/never")).isNull();
  }

  @Test
  void anExplicitPushUrlIsRewrittenToTheGateway() throws Exception {
    git.in(work, "remote", "add", "explicit", "https://github.com/acme/widget.git").ok();
    git.in(work, "config", "remote.explicit.pushurl", "https://github.com/acme/widget.git").ok();
    RunningAppliance.cli("rewrite-push-urls", work.toString(),
        "--gateway", "http://127.0.0.1:" + app.get().port());
    assertThat(git.in(work, "remote", "get-url", "--push", "explicit").ok().stdout().strip())
        .isEqualTo(app.get().gatewayUrl() + "acme/widget.git");
    git.in(work, "push", "explicit", "main:via-pushurl").ok();
    assertThat(forgeRef("acme/widget", "refs/heads/via-pushurl")).isEqualTo(head(work));
  }

  @Test
  void theRunsTokenCannotPushToTheForgeDirectly() throws Exception {
    // The run's GH_TOKEN is the sentinel of its API boundary: the forge does not know it at all.
    assertThat(readToken()).startsWith(ApiSentinel.PREFIX);
    GitRun.Result r =
        direct(readToken()).in(work, "push", app.get().forgeUrl("acme/widget"),
            "main:direct").failed();
    assertThat(r.stderr()).contains("Invalid username or token");
    assertThat(forgeRef("acme/widget", "refs/heads/direct")).isNull();
  }

  @Test
  void aRepositoryNotAttachedIsRefusedAndAnAttachedOneWorks() throws Exception {
    git.in(work, "remote", "add", "other", "https://github.com/acme/other.git").ok();
    GitRun.Result r = git.in(work, "push", "other", "main:stray").failed();
    assertThat(r.stderr()).contains(
        "Control Center policy: acme/other is neither this run's repository nor attached to its workspace");
    assertThat(forgeRef("acme/other", "refs/heads/stray")).isNull();
    JsonNode audit = app.get().control()
        .get("/v1/audit?decision=denied&runId=" + run.get("runId").asText()).body();
    assertThat(audit.get("decisions")).anySatisfy(d ->
        assertThat(d.get("code").asText()).isEqualTo("REPO_NOT_ATTACHED"));

    // The read token covers the run's own repository only; a push to an attached one needs no
    // fetch from it.
    git.in(work, "remote", "add", "lib", "https://github.com/acme/lib.git").ok();
    git.in(work, "push", "lib", "main:from-widget").ok();
    assertThat(forgeRef("acme/lib", "refs/heads/from-widget")).isEqualTo(head(work));
  }

  @Test
  void multiRefPushesLandRefByRefUnlessAtomic() throws Exception {
    commit(work, "multi.txt", "three");
    GitRun.Result mixed =
        git.in(work, "push", "origin", "main:multi-ok", "main:main").failed();
    assertThat(mixed.stderr()).contains("main -> multi-ok");
    assertThat(mixed.stderr()).contains(
        "! [remote rejected] main -> main (Control Center policy: push to main is denied)");
    assertThat(forgeRef("acme/widget", "refs/heads/multi-ok")).isEqualTo(head(work));

    commit(work, "atomic.txt", "four");
    GitRun.Result atomic =
        git.in(work, "push", "--atomic", "origin", "main:atomic-ok", "main:main").failed();
    assertThat(atomic.stderr()).contains("Control Center policy: push to main is denied");
    assertThat(forgeRef("acme/widget", "refs/heads/atomic-ok")).isNull();
  }

  @Test
  void afterUpstreamMovedThePushSeesItsRefsAndBuildsOnThem() throws Exception {
    // A second run: the one that pushes while someone else moves upstream.
    JsonNode mover = app.get().createRun(DENY_MAIN);
    GitRun moverGit = new GitRun(Files.createDirectories(dir.resolve("mover-home")),
        env(mover))
        .withTranscript(transcript);
    moverGit.in(dir, "clone", "-q", "https://github.com/acme/widget.git", "mover").ok();
    Path w = dir.resolve("mover");
    commit(moverGit, w, "moving.txt", "one");
    moverGit.in(w, "push", "origin", "HEAD:moving").ok();
    // Someone else pushes upstream, past the gateway: onto the run's branch and onto another.
    Path other = dir.resolve("someone-else");
    git.in(dir, "clone", "-q", app.get().forgeRepo("acme/widget").toString(),
        other.toString()).ok();
    git.in(other, "checkout", "-q", "moving").ok();
    commit(git, other, "theirs.txt", "theirs");
    git.in(other, "push", "-q", "origin", "moving", "moving:elsewhere").ok();
    ObjectId theirs = head(other);

    // The gateway advertises upstream's refs as they are now, before its cache has their
    // objects: git itself sees that the branch moved.
    GitRun.Result behind = moverGit.in(w, "push", "origin", "HEAD:moving").failed();
    assertThat(behind.stderr()).containsPattern("! \\[rejected\\] +HEAD -> moving \\(fetch first\\)");
    assertThat(forgeRef("acme/widget", "refs/heads/moving")).isEqualTo(theirs);

    // Built on theirs, the push's thin pack leaves out their objects: the cache has them by then.
    moverGit.in(w, "pull", "-q", "--no-rebase", "--no-edit", "origin", "moving").ok();
    commit(moverGit, w, "moving.txt", "two");
    moverGit.in(w, "push", "origin", "HEAD:moving").ok();
    assertThat(forgeRef("acme/widget", "refs/heads/moving")).isEqualTo(head(w));
    assertThat(app.get().control().delete("/v1/runs/" + mover.get("runId").asText()).status())
        .isEqualTo(200);
  }

  @Test
  void deletesAndForcePushesOfOtherBranchesWorkAndAreAuditedWithTheirKind() throws Exception {
    commit(work, "doomed.txt", "doomed");
    git.in(work, "push", "origin", "main:doomed").ok();
    assertThat(forgeRef("acme/widget", "refs/heads/doomed")).isEqualTo(head(work));
    git.in(work, "push", "origin", "--delete", "doomed").ok();
    assertThat(forgeRef("acme/widget", "refs/heads/doomed")).isNull();

    commit(work, "force.txt", "five");
    git.in(work, "push", "origin", "main:rewritten").ok();
    git.in(work, "reset", "--hard", "HEAD~1").ok();
    commit(work, "force.txt", "six");
    git.in(work, "push", "--force", "origin", "main:rewritten").ok();
    assertThat(forgeRef("acme/widget", "refs/heads/rewritten")).isEqualTo(head(work));

    JsonNode audit = app.get().control().get("/v1/audit?runId=" + run.get("runId").asText()).body();
    assertThat(audit.get("decisions")).anySatisfy(d -> {
      assertThat(d.get("ref").asText()).isEqualTo("refs/heads/doomed");
      assertThat(d.get("kind").asText()).isEqualTo("delete");
      assertThat(d.get("outcome").asText()).isEqualTo("ok");
    });
    assertThat(audit.get("decisions")).anySatisfy(d -> {
      assertThat(d.get("ref").asText()).isEqualTo("refs/heads/rewritten");
      assertThat(d.get("kind").asText()).isEqualTo("force");
      assertThat(d.get("outcome").asText()).isEqualTo("ok");
    });
  }

  @Test
  void aPushReadsSettledInTheAuditTheMomentGitReturns() throws Exception {
    // The outcome record is written just after git's answer; every reader started once git
    // returned waits for it: the control API (and `pushgate audit`, which asks it) and the
    // run's timeline, read from the database.
    String runId = run.get("runId").asText();
    for (int i = 1; i <= 5; i++) {
      commit(work, "settled.txt", "push " + i);
      git.in(work, "push", "origin", "main:settled").ok();

      JsonNode audit = app.get().control().get("/v1/audit?runId=" + runId).body();
      assertThat(audit.get("decisions")).as("push %d in the control API", i)
          .allSatisfy(d -> assertThat(d.get("outcome").asText()).isNotEqualTo("pending"))
          .hasSize(i);
      String timeline = RunningAppliance.cli("audit", "--run", runId, "--json", "--data-dir",
          app.get().dataDir.toString());
      assertThat(timeline.lines().filter(l -> l.contains("\"record_type\":\"push-outcome\"")))
          .as("push %d in the timeline", i).hasSize(i);
    }
  }

  @Test
  void malformedInputGetsAClearErrorAndChangesNothing() throws Exception {
    Map<String, ObjectId> before = forgeRefs("acme/widget");
    String receivePack = app.get().gatewayUrl() + "acme/widget.git/git-receive-pack";

    HttpResponse<String> garbage = post(receivePack, "this is not a pkt-line".getBytes());
    assertThat(garbage.statusCode()).isEqualTo(400);
    assertThat(garbage.body()).startsWith("malformed push request: Invalid packet line header");

    ObjectId main = before.get("refs/heads/main");
    byte[] truncated = RawPush.request(
        RawPush.command(ObjectId.zeroId(), main, "refs/heads/truncated"),
        RawPush.truncatedPack());
    HttpResponse<String> t = post(receivePack, truncated);
    assertThat(t.body()).doesNotContain("ok refs/heads/truncated");

    byte[] badName = RawPush.request(
        RawPush.command(ObjectId.zeroId(), main, "refs/heads/../x"), RawPush.emptyPack());
    HttpResponse<String> b = post(receivePack, badName);
    assertThat(b.statusCode()).isEqualTo(400);
    assertThat(b.body()).isEqualTo("malformed push request: a command is not"
        + " '<old-id> <new-id> <ref>' with a valid ref name\n");

    for (String path : new String[] {"acme/../widget.git", "acme/%2e%2e/widget.git",
        "..%2f..%2fetc.git", "acme/wid%5cget.git"}) {
      HttpResponse<String> r = HttpClient.newHttpClient().send(
          authorized(URI.create(app.get().gatewayUrl() + path
              + "/info/refs?service=git-receive-pack"))
              .GET().build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(path).isBetween(400, 404);
    }
    assertThat(forgeRefs("acme/widget")).isEqualTo(before);
    assertThat(app.get().healthz()).isEqualTo(200);
  }

  @Test
  void malformedRunRequestsAreRefusedWithAClearMessage() throws Exception {
    int live = app.get().control().get("/v1/runs").body().get("runs").size();
    assertThat(app.get().control().post("/v1/runs", "{not json").status()).isEqualTo(400);
    assertThat(app.get().control().post("/v1/runs",
        "{\"workspaceId\": 3, \"repository\": \"acme/widget\"}").body()
        .get("error").asText()).isEqualTo("'workspaceId' must be a non-empty string");
    assertThat(app.get().control().post("/v1/runs",
        "{\"workspaceId\": \"w\", \"repository\": \"acme/nope\"}").body()
        .get("error").asText()).startsWith("unknown repository acme/nope");
    assertThat(app.get().control().post("/v1/runs",
        "{\"workspaceId\": \"w\", \"repository\": \"acme/widget\","
        + " \"rules\": {\"push\": [{\"refs\": \"heads/main\", \"decision\": \"deny\"}]}}").status())
        .isEqualTo(400);
    assertThat(app.get().control().get("/v1/runs").body().get("runs")).hasSize(live);
  }

  /** A push the rules allow from its commands alone is copied upstream while it arrives. */
  @Test
  void aLargePushIsCopiedUpstreamWhileItArrivesAndLandsWhole() throws Exception {
    byte[] noise = new byte[4 << 20];
    new java.util.Random(11).nextBytes(noise);
    Files.write(work.resolve("noise.bin"), noise);
    git.in(work, "add", "noise.bin").ok();
    git.in(work, "commit", "-q", "-m", "4 MiB that does not compress").ok();

    git.in(work, "push", "origin", "HEAD:refs/heads/large").ok();

    assertThat(forgeRef("acme/widget", "refs/heads/large")).isEqualTo(head(work));
    try (Repository r = new FileRepository(app.get().forgeRepo("acme/widget").toFile())) {
      assertThat(r.getObjectDatabase().has(r.resolve("refs/heads/large:noise.bin"))).isTrue();
    }
  }

  @Test
  void aPushsWriteTokenIsRevokedAtTheForgeSoonAfterThePushNotAtTeardown() throws Exception {
    // The revocation starts once git has its answer, no longer before it: it still happens.
    String runId = run.get("runId").asText();
    int liveBefore = Forge.liveForgeTokens(app.get());
    commit(work, "revoked.txt", "one");

    git.in(work, "push", "origin", "main:revoked-soon").ok();

    Wait.until(Duration.ofSeconds(30), "the push's write token to be revoked at the forge",
        () -> Forge.liveForgeTokens(app.get()) == liveBefore);
    // The ledger records the revocation after the forge answered it: a moment later.
    Wait.until(Duration.ofSeconds(30), "the revocation recorded in the ledger too",
        () -> Forge.liveCredentials(app.get(), runId, "write") == 0);
    assertThat(app.get().control().get("/v1/runs/" + runId).body().get("state").asText())
        .isNotEqualTo("ended");
  }

  @Test
  void teardownRevokesEverythingTheRunHeld() throws Exception {
    String runId = run.get("runId").asText();
    String readToken = run.get("env").get("GH_TOKEN").asText();
    Path gitConfig = Path.of(run.get("gitConfigPath").asText());
    String credential = runCredential(gitConfig);

    ControlClient.Answer down = app.get().control().delete("/v1/runs/" + runId);
    assertThat(down.status()).isEqualTo(200);
    assertThat(down.body().get("pending")).isEmpty();
    assertThat(Files.exists(gitConfig)).isFalse();

    HttpResponse<String> fetch = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create(app.get().forgeUrl("acme/widget") + "/info/refs?service=git-upload-pack"))
        .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
            ("x-access-token:" + readToken).getBytes(StandardCharsets.UTF_8)))
        .GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(fetch.statusCode()).isEqualTo(401);
    assertThat(direct(readToken).in(work, "fetch",
        app.get().forgeUrl("acme/widget")).failed().stderr())
        .contains("Authentication failed");

    HttpResponse<String> push = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create(app.get().gatewayUrl()
                + "acme/widget.git/info/refs?service=git-receive-pack"))
        .header("Authorization", "Bearer " + credential).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(push.statusCode()).isEqualTo(401);

    try (Connection c = DriverManager.getConnection(
            "jdbc:sqlite:" + app.get().dataDir.resolve("pushgate.db"));
        PreparedStatement ps = c.prepareStatement(
            "SELECT count(*) FROM credentials WHERE run_id = ? AND revoked_at IS NULL")) {
      ps.setString(1, runId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        assertThat(rs.getInt(1)).isZero();
      }
    }
    assertThat(app.get().control().get("/v1/runs/" + runId).body().get("state").asText())
        .isEqualTo("ended");
  }

  @Test
  void noTokenAppearsInLogsGitOutputOrDataFiles() throws Exception {
    // What hands tokens around: a fetch, an allowed and a refused push, a token refused by the
    // forge, a teardown.
    commit(work, "leak.txt", "one");
    git.in(work, "push", "origin", "main:leak-check").ok();
    git.in(work, "push", "origin", "main").failed();
    direct(readToken()).in(work, "fetch", app.get().forgeUrl("acme/widget")).failed();
    assertThat(app.get().control().delete("/v1/runs/" + run.get("runId").asText()).status())
        .isEqualTo(200);

    assertThat(GITHUB_TOKEN.matcher(app.get().logText()).find()).as("appliance log").isFalse();
    assertThat(app.get().logText()).doesNotContain("pgr_");
    assertThat(GITHUB_TOKEN.matcher(transcript).find()).as("git output").isFalse();
    assertThat(transcript.toString()).doesNotContain("pgr_");
    try (Stream<Path> files = Files.walk(app.get().dataDir)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        if (f.getFileName().toString().startsWith("pushgate.db")) {
          continue; // the encrypted ledger
        }
        String text = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
        assertThat(GITHUB_TOKEN.matcher(text).find()).as(f.toString()).isFalse();
      }
    }
  }

  @Test
  void metricsCountWhatHappened() throws Exception {
    // A create streamed, main refused beside a branch (that push stored, then forwarded), a
    // teardown revoking the run's tokens.
    commit(work, "counted.txt", "one");
    git.in(work, "push", "origin", "main:counted").ok();
    commit(work, "counted.txt", "two");
    git.in(work, "push", "origin", "main:counted", "main:main").failed();
    assertThat(app.get().control().delete("/v1/runs/" + run.get("runId").asText()).status())
        .isEqualTo(200);

    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + app.get().port() + "/metrics")).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    String m = r.body();
    // Each series counted at least once. Pushes the rules allow from their commands alone are
    // streamed; the others (main denied in the same push) are stored, then forwarded.
    for (String counted : List.of(
        "pushgate_push_decisions_total\\{code=\"RULE_DENIED\",decision=\"denied\",kind=\"update\"\\}",
        "pushgate_push_decisions_total\\{code=\"none\",decision=\"allowed\",kind=\"create\"\\}",
        "pushgate_tokens_total\\{event=\"issued\"\\}",
        "pushgate_tokens_total\\{event=\"revoked\"\\}",
        "pushgate_github_calls_total\\{operation=\"issue-token\",status=\"201\"\\}",
        "pushgate_forwards_total\\{mode=\"streamed\",outcome=\"ok\"\\}",
        "pushgate_forwards_total\\{mode=\"stored\",outcome=\"ok\"\\}")) {
      assertThat(m).containsPattern(counted + " [1-9]");
    }
    assertThat(m).contains("pushgate_forward_seconds_bucket");
    assertThat(m).contains("pushgate_cache_sync_seconds_count");
    assertThat(m).contains("pushgate_runs_live");
    assertThat(GITHUB_TOKEN.matcher(m).find()).isFalse();
  }

  private Map<String, String> env(JsonNode run) {
    return Map.of("GIT_CONFIG_GLOBAL", run.get("env").get("GIT_CONFIG_GLOBAL").asText(),
        "GH_TOKEN", run.get("env").get("GH_TOKEN").asText());
  }

  /** The run's GH_TOKEN: the sentinel of its API boundary, not a GitHub token. */
  private String readToken() {
    return run.get("env").get("GH_TOKEN").asText();
  }

  /** git without the run's config: only a credential helper that answers with {@code token}. */
  private GitRun direct(String token) throws Exception {
    Path config = dir.resolve("direct.gitconfig");
    Files.writeString(config, "[credential]\n\thelper = \"!f() { test \\\"$1\\\" = get || exit 0;"
        + " echo username=x-access-token; echo password=$GH_TOKEN; }; f\"\n");
    return new GitRun(dir.resolve("home"), Map.of("GIT_CONFIG_GLOBAL", config.toString(),
        "GH_TOKEN", token)).withTranscript(transcript);
  }

  private String runCredential(Path gitConfig) throws Exception {
    var m = Pattern.compile("Bearer (pgr_[A-Za-z0-9_-]+)").matcher(Files.readString(gitConfig));
    assertThat(m.find()).isTrue();
    return m.group(1);
  }

  private HttpRequest.Builder authorized(URI uri) throws Exception {
    return HttpRequest.newBuilder(uri).header("Authorization",
        "Bearer " + runCredential(Path.of(run.get("gitConfigPath").asText())));
  }

  private HttpResponse<String> post(String url, byte[] body) throws Exception {
    return HttpClient.newHttpClient().send(authorized(URI.create(url))
            .header("Content-Type", "application/x-git-receive-pack-request")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.ISO_8859_1));
  }

  private void commit(Path dir, String file, String content) throws Exception {
    commit(git, dir, file, content);
  }

  private void commit(GitRun git, Path dir, String file, String content) throws Exception {
    Files.writeString(dir.resolve(file), content + "\n");
    git.in(dir, "add", file).ok();
    git.in(dir, "commit", "-q", "-m", "change " + file + " to " + content).ok();
  }

  private ObjectId head(Path dir) throws Exception {
    return ObjectId.fromString(git.in(dir, "rev-parse", "HEAD").ok().stdout().strip());
  }

  private ObjectId forgeRef(String repo, String ref) throws Exception {
    try (Repository r = new FileRepository(app.get().forgeRepo(repo).toFile())) {
      var found = r.exactRef(ref);
      return found == null ? null : found.getObjectId();
    }
  }

  private Map<String, ObjectId> forgeRefs(String repo) throws Exception {
    try (Repository r = new FileRepository(app.get().forgeRepo(repo).toFile())) {
      Map<String, ObjectId> refs = new java.util.TreeMap<>();
      for (var ref : r.getRefDatabase().getRefs()) {
        refs.put(ref.getName(), ref.getObjectId());
      }
      return refs;
    }
  }

}
