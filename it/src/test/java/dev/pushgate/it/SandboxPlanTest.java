package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sandbox part of {@code POST /v1/runs} on this Linux host, where CI installs bubblewrap and
 * socat: the truth about what a run gets, never a silently weaker policy.
 */
class SandboxPlanTest {
  @TempDir static Path tmp;
  static RunningAppliance app;
  static Path workdir;
  static Path config;

  @BeforeAll
  static void start() throws Exception {
    app = RunningAppliance.start(tmp.resolve("data"));
    app.forgeCreate("acme/widget");
    workdir = Files.createDirectories(tmp.resolve("agents/a1/work"));
    config = Files.createDirectories(tmp.resolve("agents/a1/config"));
  }

  @AfterAll
  static void stop() throws Exception {
    app.close();
  }

  @Test
  void theStartupLineTellsWhatTheHostOffers() throws Exception {
    assertThat(app.logText()).contains(
        "agent sandbox ON: bubblewrap — namespace-level isolation, no kernel boundary");
  }

  @Test
  void defaultGlobDeniesAreNotLaunchableOnLinuxButTheRunIsCreated() throws Exception {
    JsonNode run = app.createRun(request("\"mode\": \"chat\""));
    JsonNode sandbox = run.get("sandbox");
    assertThat(sandbox.get("verdict").get("launch").asText()).isEqualTo("refused");
    assertThat(sandbox.get("verdict").get("reason").asText())
        .isEqualTo("bubblewrap cannot deny creating .env inside a writable mount");
    assertThat(sandbox.get("verdict").get("waysOut").toString())
        .contains("denyWriteGlobs").contains("--sandbox off");
    assertThat(sandbox.get("effectiveBackend").asText()).isEqualTo("none");
    assertThat(run.get("env").get("GH_TOKEN").asText()).isNotEmpty();
  }

  @Test
  void anExplicitEmptyGlobListLaunchesNativelyAndSaysItWeakened() throws Exception {
    JsonNode run = app.createRun(request("\"mode\": \"review\","
        + " \"rules\": {\"denyWriteGlobs\": [], \"access-network\": \"deny\"},"
        + " \"env\": {\"LD_PRELOAD\": \"/evil.so\", \"LANG\": \"C.UTF-8\"}"));
    JsonNode sandbox = run.get("sandbox");
    assertThat(sandbox.get("verdict").get("launch").asText()).isEqualTo("allowed");
    assertThat(sandbox.get("effectiveBackend").asText()).isEqualTo("native");
    assertThat(sandbox.get("spec").get("networkEnabled").asBoolean()).isFalse();
    assertThat(sandbox.get("spec").get("bindMounts")).allSatisfy(m ->
        assertThat(m.get("readOnly").asBoolean()).isTrue());
    assertThat(sandbox.get("enforcement").get("weakenings").toString()).contains("denyWriteGlobs");
    assertThat(sandbox.get("env").has("LD_PRELOAD")).isFalse();
    assertThat(sandbox.get("env").get("LANG").asText()).isEqualTo("C.UTF-8");
    assertThat(sandbox.get("env").get("GIT_CONFIG_GLOBAL").asText())
        .isEqualTo(run.get("gitConfigPath").asText());
    assertThat(app.control().get("/v1/runs/" + run.get("runId").asText()).body()
        .get("backend").asText()).isEqualTo("native");
  }

  @Test
  void aProtectedPatternInsideAWritableMountIsRefusedWithItsWaysOut() throws Exception {
    Path repos = Files.createDirectories(tmp.resolve("conv/repos"));
    Files.writeString(repos.resolve("keep.bak"), "the original\n");
    String glob = repos.toRealPath() + "/*.bak";
    JsonNode run = app.createRun(request("\"mode\": \"chat\", \"reposDir\": \"" + repos
        + "\", \"protectedPaths\": [\"" + glob + "\"],"
        + " \"rules\": {\"denyWriteGlobs\": []}"));
    JsonNode verdict = run.get("sandbox").get("verdict");
    assertThat(verdict.get("launch").asText()).isEqualTo("refused");
    assertThat(verdict.get("reason").asText())
        .isEqualTo("bubblewrap cannot protect " + glob + " inside the writable mount "
            + repos.toRealPath() + ": it covers only paths that exist, never a pattern");
    assertThat(verdict.get("waysOut").toString())
        .contains("list the protected paths without * or ?").contains("--sandbox off");
    assertThat(run.get("sandbox").get("effectiveBackend").asText()).isEqualTo("none");

    // The same pattern outside every writable mount, or the path itself, launches.
    JsonNode literal = app.createRun(request("\"mode\": \"chat\", \"reposDir\": \"" + repos
        + "\", \"protectedPaths\": [\"" + repos.toRealPath().resolve("keep.bak") + "\", \""
        + tmp.toRealPath().resolve("elsewhere/*.bak") + "\"],"
        + " \"rules\": {\"denyWriteGlobs\": []}"));
    assertThat(literal.get("sandbox").get("verdict").get("launch").asText()).isEqualTo("allowed");
    assertThat(literal.get("sandbox").get("effectiveBackend").asText()).isEqualTo("native");
  }

  @Test
  void aRelativePathIsRefusedNamingTheFieldAndNothingIsCreated() throws Exception {
    int before = app.control().get("/v1/runs").body().get("runs").size();
    ControlClient.Answer a = app.control().post("/v1/runs", "{\"workspaceId\": \"ws\","
        + " \"repository\": \"acme/widget\", \"workdir\": \"relative/dir\"}");
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.body().get("error").asText()).contains("workdir");
    ControlClient.Answer b = app.control().post("/v1/runs", "{\"workspaceId\": \"ws\","
        + " \"repository\": \"acme/widget\", \"runner\": \"acp\"}");
    assertThat(b.status()).isEqualTo(400);
    assertThat(b.body().get("error").asText()).contains("workdir");
    assertThat(app.control().get("/v1/runs").body().get("runs")).hasSize(before);
  }

  private static String request(String extra) {
    return "{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\", \"workdir\": \""
        + workdir + "\", \"agentConfigDir\": \"" + config + "\", " + extra + "}";
  }
}
