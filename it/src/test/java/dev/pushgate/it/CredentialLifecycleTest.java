package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No credential outlives its run: token expiry, TTL, and a crash of the appliance. The run holds
 * no GitHub token (its {@code GH_TOKEN} is a sentinel the forge refuses); the read tokens are the
 * appliance's, seen here through the ledger and through the gateway's fetches that use them.
 */
class CredentialLifecycleTest {
  @TempDir Path tmp;

  @Test
  void aRunLongerThanItsTokensKeepsFetchingWithFreshOnes() throws Exception {
    try (RunningAppliance app = startWithWidget("--forge-token-lifetime", "8s",
        "--refresh-before", "4s", "--sweep-interval", "1s")) {
      JsonNode run = app.createRun("{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\"}");
      GitRun git = git(run);
      git.in(tmp, "clone", "https://github.com/acme/widget.git", "w").ok();
      String runId = run.get("runId").asText();
      assertThat(Forge.fetchStatus(app, "acme/widget", run.get("env").get("GH_TOKEN").asText()))
          .isEqualTo(401);

      long expiry = Forge.firstReadTokenExpiry(app, runId);
      assertThat(expiry).isPositive();
      Wait.until(Duration.ofSeconds(60), "the launch read token to expire",
          () -> System.currentTimeMillis() > expiry);
      git.in(tmp.resolve("w"), "fetch", "origin").ok();
      git.in(tmp.resolve("w"), "push", "origin", "main:later").ok();
      // The gateway's fetch was made with a fresh read token, not the expired one.
      assertThat(Forge.readTokensIssued(app, runId)).isGreaterThanOrEqualTo(2);
    }
  }

  @Test
  void runsCreatedWhileTheSweeperRunsKeepTheirTokens() throws Exception {
    try (RunningAppliance app = startWithWidget("--sweep-interval", "20ms")) {
      java.util.List<java.util.concurrent.Future<JsonNode>> started = new java.util.ArrayList<>();
      var pool = java.util.concurrent.Executors.newFixedThreadPool(8);
      try {
        for (int i = 0; i < 24; i++) {
          started.add(pool.submit(() ->
              app.createRun("{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\"}")));
        }
        for (var f : started) {
          JsonNode run = f.get();
          String runId = run.get("runId").asText();
          assertThat(Forge.liveCredentials(app, runId, "read")).as(runId).isEqualTo(1);
          assertThat(Forge.gatewayFetchStatus(app, "acme/widget", credential(run)))
              .as(runId).isEqualTo(200);
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void aRunPastItsTtlIsEndedAndItsTokensRevoked() throws Exception {
    try (RunningAppliance app = startWithWidget("--sweep-interval", "1s")) {
      JsonNode run = app.createRun(
          "{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\", \"ttlSeconds\": 10}");
      String credential = credential(run);
      String runId = run.get("runId").asText();
      assertThat(Forge.gatewayFetchStatus(app, "acme/widget", credential)).isEqualTo(200);

      Wait.until(Duration.ofSeconds(60), "the sweeper to end the run past its TTL",
          () -> Forge.liveCredentials(app, runId) == 0);
      assertThat(Forge.liveCredentials(app, runId)).isZero();
      // Revoked upstream, not only in the ledger: the forge takes none of them any more.
      assertThat(Forge.liveForgeTokens(app)).isZero();
      assertThat(Forge.gatewayFetchStatus(app, "acme/widget", credential)).isEqualTo(401);
      assertThat(Forge.gatewayStatus(app, "acme/widget", credential)).isEqualTo(401);
      assertThat(app.control().get("/v1/runs/" + run.get("runId").asText()).body()
          .get("endReason").asText()).isEqualTo("expired");
    }
  }

  @Test
  void afterKillDashNineARestartRevokesWhatEndedAndResumesWhatLives() throws Exception {
    // No sweep while the appliance runs: on a busy machine the clone below can outlast the short
    // run's 3 s, and a sweep would end it before the crash this test is about.
    try (RunningAppliance app = startWithWidget("--sweep-interval", "1h")) {
      JsonNode shortRun = app.createRun(
          "{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\", \"ttlSeconds\": 3}");
      JsonNode longRun = app.createRun("{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\"}");
      GitRun git = git(longRun);
      git.in(tmp, "clone", "https://github.com/acme/widget.git", "w").ok();

      app.kill9();
      // The short run's TTL runs out while the appliance is down: the restart finds it expired.
      Instant expires = Instant.parse(shortRun.get("expiresAt").asText());
      Wait.until(Duration.ofSeconds(30), "the short run's TTL to run out (" + expires + ")",
          () -> Instant.now().isAfter(expires));
      app.restart();

      assertThat(Forge.liveCredentials(app, shortRun.get("runId").asText())).isZero();
      assertThat(Forge.gatewayFetchStatus(app, "acme/widget", credential(shortRun)))
          .isEqualTo(401);
      assertThat(app.logText()).contains("recovery: 1 run(s) resumed, 1 ended");

      Path w = tmp.resolve("w");
      Files.writeString(w.resolve("after-crash.txt"), "still here\n");
      git.in(w, "add", ".").ok();
      git.in(w, "commit", "-qm", "after the crash").ok();
      git.in(w, "push", "origin", "main:after-crash").ok();

      assertThat(app.control().delete("/v1/runs/" + longRun.get("runId").asText()).status())
          .isEqualTo(200);
      assertThat(Forge.liveCredentials(app, longRun.get("runId").asText())).isZero();
      assertThat(Forge.gatewayFetchStatus(app, "acme/widget", credential(longRun)))
          .isEqualTo(401);
    }
  }

  @Test
  void aRestartEndsARunWhoseGitConfigDidNotSurviveAndRestoresOneCutShort() throws Exception {
    // A new run's git config is not synced (docs/benchmarks.md): a power loss may leave it empty
    // or cut short. A kill -9 keeps it, so the test cuts the files as such a loss could.
    try (RunningAppliance app = startWithWidget("--sweep-interval", "1h")) {
      JsonNode lost = app.createRun("{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\"}");
      JsonNode cut = app.createRun("{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\"}");
      Path lostConfig = Path.of(lost.get("env").get("GIT_CONFIG_GLOBAL").asText());
      Path cutConfig = Path.of(cut.get("env").get("GIT_CONFIG_GLOBAL").asText());
      String written = Files.readString(cutConfig);
      int afterHeader = written.indexOf('\n', written.indexOf("Authorization: Bearer ")) + 1;

      app.kill9();
      Files.writeString(lostConfig, "");
      Files.writeString(cutConfig, written.substring(0, afterHeader));
      app.restart();

      assertThat(app.logText()).contains("recovery: 1 run(s) resumed, 1 ended");
      assertThat(Forge.liveCredentials(app, lost.get("runId").asText())).isZero();
      assertThat(Forge.gatewayFetchStatus(app, "acme/widget", credential(lost))).isEqualTo(401);
      assertThat(Files.readString(cutConfig)).isEqualTo(written);
      git(cut).in(tmp, "clone", "https://github.com/acme/widget.git", "w").ok();
    }
  }

  /**
   * A crash mid-receive left the received pack's {@code .keep} in the cache for good, and a kept
   * pack is never compacted (attack finding atk-push, low): the restarted appliance removes the
   * {@code .keep} files JGit wrote when it first opens that cache, and no other. A crash while the
   * cache moved a ref left its lock, which JGit never breaks: every later sync failed and each
   * fetch was answered 502 (CI of 2026-12-07). The crash's leftovers are written while the
   * appliance is down, as JGit writes them.
   */
  @Test
  void aPackKeptByAReceiveTheCrashCutShortIsReleasedAfterTheRestart() throws Exception {
    try (RunningAppliance app = startWithWidget("--sweep-interval", "1h")) {
      git(app.createRun("{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\"}"))
          .in(tmp, "clone", "-q", "https://github.com/acme/widget.git", "w").ok();
      Path packs = tmp.resolve("data/cache/acme/widget.git/objects/pack");
      app.kill9();
      Path pack;
      try (var files = Files.list(packs)) {
        pack = files.filter(f -> f.getFileName().toString().endsWith(".pack")).findFirst()
            .orElseThrow();
      }
      String name = pack.getFileName().toString();
      Path stale = Files.writeString(packs.resolve(name.replace(".pack", ".keep")),
          "jgit receive-pack from A <a@example.com> 1765000000 +0000\n");
      Path operators = Files.writeString(packs.resolve("pack-" + "0".repeat(40) + ".keep"),
          "kept by the operator\n");
      Path cache = packs.getParent().getParent();
      Files.writeString(cache.resolve("refs/heads/main.lock"), "0".repeat(40) + "\n");
      app.restart();
      GitRun after = git(app.createRun(
          "{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\"}"));
      after.in(tmp, "clone", "-q", "https://github.com/acme/widget.git", "after").ok();
      // The cache's main, locked by the crash, moves with a push and the sync after it.
      Path clone = tmp.resolve("after");
      Files.writeString(clone.resolve("after-crash.txt"), "still here\n");
      after.in(clone, "add", ".").ok();
      after.in(clone, "commit", "-qm", "after the crash").ok();
      after.in(clone, "push", "-q", "origin", "main").ok();
      after.in(tmp, "clone", "-q", "https://github.com/acme/widget.git", "again").ok();
      assertThat(tmp.resolve("again/after-crash.txt")).hasContent("still here");
      assertThat(cache.resolve("refs/heads/main.lock")).doesNotExist();

      assertThat(receiveKeeps(packs)).as("receive .keep files left by the crash").isEmpty();
      assertThat(stale).doesNotExist();
      assertThat(operators).as("a .keep JGit did not write").exists();
      assertThat(app.logText()).contains("removed 1 .keep file(s) in " + packs.toRealPath())
          .contains("removed 1 lock file(s) in " + cache.toRealPath() + " that a process ending"
              + " mid-write left: [refs/heads/main.lock]");
    }
  }

  private static java.util.List<Path> receiveKeeps(Path packs) throws java.io.IOException {
    if (!Files.isDirectory(packs)) {
      return java.util.List.of();
    }
    try (var files = Files.list(packs)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".keep")).filter(f -> {
        try {
          return Files.readString(f).startsWith("jgit receive-pack");
        } catch (java.io.IOException e) {
          return false; // removed meanwhile
        }
      }).toList();
    }
  }

  private GitRun git(JsonNode run) throws Exception {
    return new GitRun(Files.createDirectories(tmp.resolve("home")), Map.of(
        "GIT_CONFIG_GLOBAL", run.get("env").get("GIT_CONFIG_GLOBAL").asText(),
        "GH_TOKEN", run.get("env").get("GH_TOKEN").asText()));
  }

  private static String credential(JsonNode run) {
    return ForgeRefs.credential(run);
  }

  /** An appliance on {@code tmp/data} started with {@code serveArgs}, acme/widget on its forge. */
  private RunningAppliance startWithWidget(String... serveArgs) throws Exception {
    RunningAppliance app = RunningAppliance.start(tmp.resolve("data"), serveArgs);
    try {
      app.forgeCreate("acme/widget");
      return app;
    } catch (Exception e) {
      app.close();
      throw e;
    }
  }
}
