package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ControlClient;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults are survived: an upstream that vanishes, cannot store a pack or dies mid-forward, a
 * GitHub API that answers 5xx, an audit log that cannot be written. The client always gets an
 * error, no upstream ref moves, and the next push after the fault lands.
 *
 * <p>Two appliances: {@code forge} runs the local forge; {@code app} is configured as a GitHub
 * App whose API and git host are that forge, reached through a {@link FaultProxy}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FaultSurvivalTest {
  private Path tmp;
  private RunningAppliance forge;
  private FaultProxy proxy;
  private RunningAppliance app;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    tmp = dir;
    forge = RunningAppliance.start(tmp.resolve("forge"));
    for (String repo : new String[] {"acme/widget", "acme/vanish", "acme/full", "acme/audit"}) {
      forge.forgeCreate(repo);
    }
    proxy = FaultProxy.to(forge.port());
    String upstream = "http://127.0.0.1:" + proxy.port() + "/forge";
    app = RunningAppliance.start(tmp.resolve("app"), "--github-app-id", "1",
        "--github-app-key", forge.dataDir.resolve("forge-app.pem").toString(),
        "--github-api-url", upstream + "/api/v3", "--github-host", upstream,
        "--sweep-interval", "1s");
  }

  @AfterAll
  void stop() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {app, proxy, forge}) {
      if (c != null) {
        c.close();
      }
    }
  }

  @AfterEach
  void heal() {
    proxy.heal();
  }

  // --- faults of the local forge, on the forge appliance itself ---

  @Test
  void anUpstreamRepositoryGoneAfterTheAdvertisementFailsThePushAndMovesNothing() throws Exception {
    JsonNode run = forge.createRun("{\"workspaceId\": \"ws\", \"repository\": \"acme/vanish\"}");
    GitRun git = git(run);
    Path w = clone(git, "acme/vanish", "vanish");
    commit(git, w, "one");
    Path repo = forge.forgeRepo("acme/vanish");
    Path away = repo.resolveSibling("vanish.git.away");
    // git runs pre-push after it read the gateway's advertisement and before it sends the pack.
    Path hook = w.resolve(".git/hooks/pre-push");
    Files.writeString(hook, "#!/bin/sh\nmv '" + repo + "' '" + away + "'\n");
    hook.toFile().setExecutable(true);
    Map<String, ObjectId> before = ForgeRefs.of(repo);

    // Upstream no longer knows the repository. The write token's mint starts at the
    // advertisement: if it was done before the repository went, the forward finds nothing
    // (upstream answers 404, often while the push is still being sent); if not, upstream mints
    // no token for it.
    String why = "(the gateway could not get a write token for acme/vanish; nothing was pushed"
        + "|upstream push failed: http://127\\.0\\.0\\.1:" + forge.port()
        + "/forge/acme/vanish\\.git: .+)";
    GitRun.Result r = git.in(w, "push", "origin", "HEAD:refs/heads/feature").failed();
    assertThat(r.stderr()).containsPattern("! \\[remote rejected\\] HEAD -> feature \\(" + why
        + "\\)");
    Files.move(away, repo);
    assertThat(ForgeRefs.of(repo)).isEqualTo(before);
    JsonNode audit = forge.control().get("/v1/audit?runId=" + runId(run)).body();
    assertThat(audit.get("decisions")).anySatisfy(d -> {
      assertThat(d.get("ref").asText()).isEqualTo("refs/heads/feature");
      assertThat(d.get("decision").asText()).isEqualTo("allowed");
      assertThat(d.get("outcome").asText()).matches("rejected upstream: " + why);
    });

    Files.delete(hook);
    git.in(w, "push", "origin", "HEAD:refs/heads/feature").ok();
    assertThat(ForgeRefs.of(repo).get("refs/heads/feature")).isEqualTo(head(git, w));
  }

  @Test
  void anUpstreamThatCannotBeReadRefusesThePushBeforeAnythingIsSent() throws Exception {
    JsonNode run = forge.createRun("{\"workspaceId\": \"ws\", \"repository\": \"acme/vanish\"}");
    GitRun git = git(run);
    Path w = clone(git, "acme/vanish", "unreadable");
    commit(git, w, "two");
    Path repo = forge.forgeRepo("acme/vanish");
    Path away = repo.resolveSibling("vanish.git.away");
    Files.move(repo, away);
    try {
      GitRun.Result r = git.in(w, "push", "origin", "HEAD:refs/heads/unreadable").failed();
      assertThat(r.stderr()).contains("remote: Control Center policy: upstream acme/vanish"
          + " cannot be read right now; nothing was pushed, try again");
    } finally {
      Files.move(away, repo);
    }
    assertThat(ForgeRefs.of(repo)).doesNotContainKey("refs/heads/unreadable");
    git.in(w, "push", "origin", "HEAD:refs/heads/unreadable").ok();
  }

  @Test
  void aCacheFetchThatFailsAfterTheAdvertisementFailsThePushAndMovesNothing() throws Exception {
    JsonNode run = app.createRun("{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\"}");
    GitRun git = git(run);
    Path w = cloneFromForge(git, run, "fetch-fails");
    commit(git, w, "before-the-move");
    git.in(w, "push", "gh", "HEAD:refs/heads/fetch-fails").ok(); // the cache is in step
    // Upstream moves past the gateway, and then answers the cache's fetch with 503: the
    // advertisement, made before the fetch, showed upstream's refs.
    Path other = tmp.resolve("fetch-fails-other");
    git.in(tmp, "clone", "-q", forge.forgeRepo("acme/widget").toString(), other.toString()).ok();
    commit(git, other, "moved-upstream");
    git.in(other, "push", "-q", "origin", "HEAD:refs/heads/moved-upstream").ok();
    proxy.rule(line -> line.startsWith("POST") && line.contains("/git-upload-pack")
        ? FaultProxy.Action.FAIL_503
        : FaultProxy.Action.PASS);
    commit(git, w, "after-the-move");
    Map<String, ObjectId> before = ForgeRefs.of(forge.forgeRepo("acme/widget"));

    GitRun.Result r = git.in(w, "push", "gh", "HEAD:refs/heads/fetch-fails").failed();

    assertThat(r.stderr()).contains("upstream acme/widget cannot be read right now; nothing was"
        + " pushed, try again");
    assertThat(proxy.seen()).as("the advertisement came first, then the fetch failed")
        .anyMatch(l -> l.startsWith("POST") && l.contains("/git-upload-pack"));
    assertThat(ForgeRefs.of(forge.forgeRepo("acme/widget"))).isEqualTo(before);
    proxy.heal();
    git.in(w, "push", "gh", "HEAD:refs/heads/fetch-fails").ok();
    assertThat(ForgeRefs.of(forge.forgeRepo("acme/widget")).get("refs/heads/fetch-fails"))
        .isEqualTo(head(git, w));
  }

  @Test
  void anUpstreamThatCannotStoreThePackRejectsItAndNothingMoves() throws Exception {
    JsonNode run = forge.createRun("{\"workspaceId\": \"ws\", \"repository\": \"acme/full\"}");
    GitRun git = git(run);
    Path w = clone(git, "acme/full", "full");
    commit(git, w, "three");
    Path repo = forge.forgeRepo("acme/full");
    Map<String, ObjectId> before = ForgeRefs.of(repo);
    // Where upstream stores received packs is not a directory: as a full or broken disk would,
    // storing the pack fails.
    Path packs = repo.resolve("objects/pack");
    Path saved = repo.resolve("objects/pack.saved");
    Files.move(packs, saved);
    Files.writeString(packs, "not a directory\n");
    try {
      GitRun.Result r = git.in(w, "push", "origin", "HEAD:refs/heads/full").failed();
      // The gateway reaches the forge on a port of its own (the forge's own threads).
      assertThat(r.stderr()).containsPattern(Pattern.quote("! [remote rejected] HEAD -> full"
          + " (upstream push failed: http://127.0.0.1:") + "\\d+" + Pattern.quote("/forge/acme/"
          + "full.git: error occurred during unpacking on the remote end: error Creating"
          + " directories for "));
    } finally {
      Files.delete(packs);
      Files.move(saved, packs);
    }
    assertThat(ForgeRefs.of(repo)).isEqualTo(before);
    git.in(w, "push", "origin", "HEAD:refs/heads/full").ok();
    assertThat(ForgeRefs.of(repo).get("refs/heads/full")).isEqualTo(head(git, w));
  }

  @Test
  void pushesAreRefusedNotUnauditedWhileTheAuditLogCannotBeWritten() throws Exception {
    JsonNode run = forge.createRun("{\"workspaceId\": \"ws\", \"repository\": \"acme/audit\"}");
    GitRun git = git(run);
    Path w = clone(git, "acme/audit", "audit");
    commit(git, w, "four");
    Map<String, ObjectId> before = ForgeRefs.of(forge, "acme/audit");
    // Another process holds the database's write lock: every write waits, then fails.
    try (Connection c = DriverManager.getConnection(
            "jdbc:sqlite:" + forge.dataDir.resolve("pushgate.db"));
        Statement s = c.createStatement()) {
      s.execute("BEGIN EXCLUSIVE");
      GitRun.Result r = git.in(w, "push", "origin", "HEAD:refs/heads/unaudited").failed();
      assertThat(r.stderr()).contains("! [remote rejected] HEAD -> unaudited (Control Center"
          + " policy: the audit log is unavailable, so nothing can be pushed; try again later)");
      assertThat(ForgeRefs.of(forge, "acme/audit")).isEqualTo(before);
      s.execute("ROLLBACK");
    }
    assertThat(forge.logText()).contains("audit log unavailable, push to acme/audit refused");
    git.in(w, "push", "origin", "HEAD:refs/heads/unaudited").ok();
    JsonNode audit = forge.control().get("/v1/audit?runId=" + runId(run)).body();
    assertThat(audit.get("decisions")).hasSize(1);
    assertThat(audit.get("decisions").get(0).get("outcome").asText()).isEqualTo("ok");
  }

  // --- faults between the gateway and a GitHub-like upstream, through the proxy ---

  @Test
  void anUpstreamThatDiesMidForwardFailsThePushAndMovesNothing() throws Exception {
    JsonNode run = app.createRun("{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\"}");
    GitRun git = git(run);
    Path w = cloneFromForge(git, run, "dies");
    commit(git, w, "five");
    Map<String, ObjectId> before = ForgeRefs.of(forge, "acme/widget");
    proxy.rule(line -> line.startsWith("POST /forge/acme/widget.git/git-receive-pack ")
        ? FaultProxy.Action.DIE_MID_BODY : FaultProxy.Action.PASS);

    GitRun.Result r = git.in(w, "push", "gh", "HEAD:refs/heads/dies").failed();
    assertThat(r.stderr()).contains("! [remote rejected] HEAD -> dies (upstream push failed:"
        + " http://127.0.0.1:" + proxy.port() + "/forge/acme/widget.git: ");
    assertThat(proxy.seen()).contains("POST /forge/acme/widget.git/git-receive-pack HTTP/1.1");
    assertThat(ForgeRefs.of(forge, "acme/widget")).isEqualTo(before);
    JsonNode audit = app.control().get("/v1/audit?runId=" + runId(run)).body();
    assertThat(audit.get("decisions").get(0).get("outcome").asText())
        .startsWith("rejected upstream: upstream push failed: ");

    proxy.heal();
    git.in(w, "push", "gh", "HEAD:refs/heads/dies").ok();
    assertThat(ForgeRefs.ref(forge, "acme/widget", "refs/heads/dies")).isEqualTo(head(git, w));
  }

  @Test
  void gitHubApiErrorsAreRetriedAndThePushStillLands() throws Exception {
    JsonNode run = app.createRun("{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\"}");
    GitRun git = git(run);
    Path w = cloneFromForge(git, run, "retried");
    commit(git, w, "six");
    AtomicInteger failures = new AtomicInteger();
    proxy.rule(line -> line.startsWith("POST /forge/api/v3/app/installations/")
        && failures.getAndIncrement() < 2 ? FaultProxy.Action.FAIL_503 : FaultProxy.Action.PASS);

    git.in(w, "push", "gh", "HEAD:refs/heads/retried").ok();
    assertThat(ForgeRefs.ref(forge, "acme/widget", "refs/heads/retried")).isEqualTo(head(git, w));
    assertThat(failures.get()).isGreaterThanOrEqualTo(3);
    assertThat(metrics(app)).containsPattern(
        "pushgate_github_calls_total\\{operation=\"issue-token\",status=\"503\"\\} 2");
  }

  @Test
  void anApiThatKeepsFailingRefusesThePushWithAClearReason() throws Exception {
    JsonNode run = app.createRun("{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\"}");
    GitRun git = git(run);
    Path w = cloneFromForge(git, run, "refused");
    commit(git, w, "seven");
    Map<String, ObjectId> before = ForgeRefs.of(forge, "acme/widget");
    proxy.rule(line -> line.startsWith("POST /forge/api/v3/app/installations/")
        ? FaultProxy.Action.FAIL_503 : FaultProxy.Action.PASS);

    // The gateway's retries end: git is killed and the test fails if they outlast 60 s.
    GitRun.Result r = git.withTimeout(Duration.ofSeconds(60))
        .in(w, "push", "gh", "HEAD:refs/heads/refused").failed();
    assertThat(r.stderr()).contains("! [remote rejected] HEAD -> refused (the gateway could not"
        + " get a write token for acme/widget; nothing was pushed)");
    assertThat(ForgeRefs.of(forge, "acme/widget")).isEqualTo(before);
  }

  @Test
  void aRevocationThatFailsIsReportedAndRetriedUntilUpstreamConfirmsIt() throws Exception {
    JsonNode run = app.createRun("{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\"}");
    // The run holds a sentinel; its read token stays in the appliance. The forge's newest token
    // is that one: the run's creation issued it, and nothing else was issued since.
    String readToken = newestForgeToken();
    assertThat(forgeTokenRevoked(readToken)).isFalse();
    proxy.rule(line -> line.startsWith("DELETE /forge/api/v3/installation/token ")
        ? FaultProxy.Action.FAIL_503 : FaultProxy.Action.PASS);

    ControlClient.Answer down = app.control().delete("/v1/runs/" + runId(run));
    assertThat(down.status()).isEqualTo(200);
    assertThat(down.body().get("pending")).anySatisfy(p -> {
      assertThat(p.get("kind").asText()).isEqualTo("read");
      assertThat(p.get("error").asText()).isNotBlank();
    });
    assertThat(forgeTokenRevoked(readToken)).as("not revoked yet").isFalse();
    assertThat(Forge.liveCredentials(app, runId(run))).isPositive();

    proxy.heal();
    Wait.until(Duration.ofSeconds(30), "the sweeper to revoke the run's credentials",
        () -> Forge.liveCredentials(app, runId(run)) == 0);
    assertThat(Forge.liveCredentials(app, runId(run))).as("the sweeper retried").isZero();
    assertThat(forgeTokenRevoked(readToken)).as("revoked upstream").isTrue();
    assertThat(app.logText()).containsPattern("revocation of credential \\d+ failed, will retry");
  }

  @Test
  void aWriteTokenWhoseRevocationFailsIsRetriedByTheSweeperWhileItsRunLives() throws Exception {
    JsonNode run = app.createRun("{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\"}");
    GitRun git = git(run);
    Path w = cloneFromForge(git, run, "revoke-retry");
    commit(git, w, "revoke-retry");
    proxy.rule(line -> line.startsWith("DELETE /forge/api/v3/installation/token ")
        ? FaultProxy.Action.FAIL_503 : FaultProxy.Action.PASS);

    long failuresBefore = revocationFailures();
    git.in(w, "push", "gh", "HEAD:refs/heads/revoke-retry").ok();
    Wait.until(Duration.ofSeconds(90), "the revocation after the push to fail",
        () -> revocationFailures() != failuresBefore);
    assertThat(revocationFailures()).as("the revocation after the push failed")
        .isGreaterThan(failuresBefore);
    assertThat(Forge.liveCredentials(app, runId(run), "write")).isEqualTo(1);

    proxy.heal();
    Wait.until(Duration.ofSeconds(90), "the sweeper to revoke the write token",
        () -> Forge.liveCredentials(app, runId(run), "write") == 0);
    assertThat(Forge.liveCredentials(app, runId(run), "write")).as("the sweeper retried").isZero();
    assertThat(app.control().get("/v1/runs/" + runId(run)).body().get("state").asText())
        .isEqualTo("live");
  }

  // --- helpers ---

  private long revocationFailures() throws Exception {
    return java.util.regex.Pattern.compile("revocation of credential \\d+ failed, will retry")
        .matcher(app.logText()).results().count();
  }

  private GitRun git(JsonNode run) throws Exception {
    return new GitRun(Files.createDirectories(tmp.resolve("home")), ForgeRefs.env(run));
  }

  private Path clone(GitRun git, String repo, String name) throws Exception {
    git.in(tmp, "clone", "-q", "https://github.com/" + repo + ".git", name).ok();
    return tmp.resolve(name);
  }

  /**
   * The forge behind the proxy is this appliance's upstream; the test clones from the forge
   * with a read token minted there (a run holds none: its GH_TOKEN is a sentinel), and pushes
   * through a {@code gh} remote on the configured git host, which the run's git config rewrites
   * to the gateway.
   */
  private Path cloneFromForge(GitRun git, JsonNode run, String name) throws Exception {
    String token = Forge.mintReadToken(forge, "acme/widget");
    git.in(tmp, "clone", "-q", "http://x-access-token:" + token + "@127.0.0.1:" + forge.port()
        + "/forge/acme/widget.git", name).ok();
    Path w = tmp.resolve(name);
    git.in(w, "remote", "add", "gh", "http://127.0.0.1:" + proxy.port()
        + "/forge/acme/widget.git").ok();
    return w;
  }

  /** The hash of the token the forge issued last (they all live as long). */
  private String newestForgeToken() throws Exception {
    try (Connection c = DriverManager.getConnection(
            "jdbc:sqlite:" + forge.dataDir.resolve("pushgate.db"));
        Statement s = c.createStatement();
        java.sql.ResultSet rs = s.executeQuery(
            "SELECT hash FROM forge_tokens ORDER BY expires_at DESC LIMIT 1")) {
      assertThat(rs.next()).as("the forge issued a token").isTrue();
      return rs.getString(1);
    }
  }

  private boolean forgeTokenRevoked(String hash) throws Exception {
    try (Connection c = DriverManager.getConnection(
            "jdbc:sqlite:" + forge.dataDir.resolve("pushgate.db"));
        java.sql.PreparedStatement ps =
            c.prepareStatement("SELECT revoked_at FROM forge_tokens WHERE hash = ?")) {
      ps.setString(1, hash);
      try (java.sql.ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        rs.getLong(1);
        return !rs.wasNull();
      }
    }
  }

  private void commit(GitRun git, Path w, String content) throws Exception {
    Files.writeString(w.resolve(content + ".txt"), content + "\n");
    git.in(w, "add", ".").ok();
    git.in(w, "commit", "-q", "-m", content).ok();
  }

  private ObjectId head(GitRun git, Path w) throws Exception {
    return ObjectId.fromString(git.in(w, "rev-parse", "HEAD").ok().stdout().strip());
  }

  private String runId(JsonNode run) {
    return run.get("runId").asText();
  }

  private String metrics(RunningAppliance a) throws Exception {
    return Wire.tcp(a.port(), "GET", "/metrics", null, null, null).body();
  }
}
