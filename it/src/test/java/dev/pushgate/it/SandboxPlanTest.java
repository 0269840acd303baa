package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.ControlClient;
import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sandbox part of {@code POST /v1/runs} on this Linux host, where CI installs bubblewrap and
 * socat: the truth about what a run gets, never a silently weaker policy.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SandboxPlanTest {
  /**
   * Without the name-deny layer, as on a host lacking pushgate-denyfs: these tests check the
   * refusal such a host gets (ExecTest shows the default rules launching with the layer).
   */
  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving("--pass-env", "ANTHROPIC_API_KEY")
      .with(RunningAppliance.Builder::withoutDenyLayer).withRepos("acme/widget");

  Path workdir;
  Path config;

  @BeforeAll
  void start() throws Exception {
    workdir = Files.createDirectories(app.dir().resolve("agents/a1/work"));
    config = Files.createDirectories(app.dir().resolve("agents/a1/config"));
  }

  @Test
  void theStartupLineTellsWhatTheHostOffers() throws Exception {
    assertThat(app.get().logText()).contains(
        "agent sandbox ON: bubblewrap — namespace-level isolation, no kernel boundary");
  }

  /**
   * Issue 14, item 16: a run that may not launch holds nothing live. It used to be created (201)
   * with a read token and a gateway credential the launcher had to remember to delete.
   */
  @Test
  void aPlanThatMayNotLaunchIsAnsweredWithItsVerdictAndIssuesNothing() throws Exception {
    int runsBefore = app.get().control().get("/v1/runs").body().get("runs").size();
    int recordedBefore = Forge.recordedRuns(app.get());
    int tokensBefore = Forge.liveForgeTokens(app.get());
    ControlClient.Answer a = app.get().control().post("/v1/runs", request("\"mode\": \"chat\""));
    assertThat(a.status()).as(a.raw()).isEqualTo(422);
    assertThat(a.body().get("error").asText())
        .startsWith("not launched: bubblewrap cannot deny creating .env inside a writable mount");
    JsonNode sandbox = a.body().get("sandbox");
    assertThat(sandbox.get("verdict").get("launch").asText()).isEqualTo("refused");
    // The appliance of these tests runs without pushgate-denyfs: the name-deny layer that
    // would let the default rules launch (sandbox-bridge's NameDenyLayerTest) is missing, and the
    // reason says so.
    assertThat(sandbox.get("verdict").get("reason").asText())
        .startsWith("bubblewrap cannot deny creating .env inside a writable mount, and the"
            + " name-deny layer cannot run: this host lacks pushgate-denyfs");
    assertThat(sandbox.get("verdict").get("waysOut").toString())
        .contains("denyWriteGlobs").contains("--sandbox off");
    assertThat(sandbox.get("effectiveBackend").asText()).isEqualTo("none");
    // Nothing live: no run id, no token, no credential, no ledger row, nothing on the forge.
    assertThat(a.body().has("runId")).isFalse();
    assertThat(a.body().has("env")).isFalse();
    assertThat(a.raw()).doesNotContain("ghs_").doesNotContain("pgr_").doesNotContain("GH_TOKEN");
    assertThat(app.get().control().get("/v1/runs").body().get("runs")).hasSize(runsBefore);
    assertThat(Forge.recordedRuns(app.get())).isEqualTo(recordedBefore);
    assertThat(Forge.liveForgeTokens(app.get())).isEqualTo(tokensBefore);
  }

  /**
   * Issue 14, item 5: any absolute path used to be a mount, writable in chat mode: the system, the
   * appliance's data directory (control socket, ledger key, forge key) and the forge.
   */
  @Test
  void mountsOfTheSystemOrOfTheAppliancesOwnDirectoriesAreRefusedNamingTheField()
      throws Exception {
    Path data = app.get().dataDir.toRealPath();
    Path forgeRepo = app.get().forgeRepo("acme/widget").toRealPath();
    Path linkToEtc = Files.createSymbolicLink(app.dir().resolve("link-to-etc"), Path.of("/etc"));
    Path linkToData = Files.createSymbolicLink(app.dir().resolve("link-to-data"), data);
    String gatewaySocketDir = app.get().logText().lines()
        .filter(l -> l.startsWith("pushgate gateway socket for sandboxes at "))
        .map(l -> Path.of(l.substring(l.lastIndexOf(' ') + 1)).getParent().toString())
        .findFirst().orElseThrow();
    String[][] cases = {
        {"workdir", "/", "is / or a top-level directory"},
        {"workdir", "/etc", "lies in the system tree /etc"},
        {"workdir", "/usr/local/lib", "lies in the system tree /usr"},
        {"workdir", "/tmp", "is / or a top-level directory"},
        {"workdir", "/var/lib", "is /var/lib"},
        {"workdir", data.toString(), "is or lies inside " + data},
        {"workdir", data.resolve("runs").toString(), "is or lies inside " + data},
        {"workdir", forgeRepo.toString(), "is or lies inside " + data},
        {"workdir", data.getParent().toString(), "contains " + data},
        {"workdir", linkToEtc.toString(), "lies in the system tree /etc (it resolves to /etc)"},
        {"workdir", linkToData.resolve("forge").toString(), "is or lies inside " + data},
        {"workdir", gatewaySocketDir, "is or lies inside " + gatewaySocketDir},
        {"agentConfigDir", "/etc/ssh", "lies in the system tree /etc"},
        {"reposDir", data.resolve("forge").toString(), "is or lies inside " + data},
        {"attachmentsDir", "/root", "is / or a top-level directory"},
        {"runnerStateDirs[0]", data.resolve("cache").toString(), "is or lies inside " + data},
        {"execGrantRoots[0]", "/usr", "lies in the system tree /usr"},
    };
    int before = app.get().control().get("/v1/runs").body().get("runs").size();
    int recordedBefore = Forge.recordedRuns(app.get());
    for (String[] c : cases) {
      String field = c[0].replaceFirst("\\[0]$", "");
      String value = field.equals(c[0]) ? "\"" + c[1] + "\"" : "[\"" + c[1] + "\"]";
      String workdirValue = field.equals("workdir") ? value : "\"" + workdir + "\"";
      String configValue = field.equals("agentConfigDir") ? value : "\"" + config + "\"";
      String other = field.equals("workdir") || field.equals("agentConfigDir") ? ""
          : ", \"" + field + "\": " + value;
      String body = "{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\", \"workdir\": "
          + workdirValue + ", \"agentConfigDir\": " + configValue + other + "}";
      ControlClient.Answer a = app.get().control().post("/v1/runs", body);
      assertThat(a.status()).as(c[0] + " " + c[1] + ": " + a.raw()).isEqualTo(400);
      assertThat(a.body().get("error").asText()).as(c[0] + " " + c[1])
          .startsWith(c[0] + " ").contains(c[2]);
    }
    assertThat(app.get().control().get("/v1/runs").body().get("runs")).hasSize(before);
    assertThat(Forge.recordedRuns(app.get())).isEqualTo(recordedBefore);
  }

  /**
   * A runner state directory is writable in every mode: one that is a link to the workdir made a
   * plan run's workspace writable at the link's path (a docs-only attack), one that is a link to
   * a protected checkout made it writable. Refused, naming it; nothing is issued.
   */
  @Test
  void aRunnerStateDirectoryThatResolvesToTheWorkdirOrAProtectedPathIsRefusedNamingIt()
      throws Exception {
    Path link = Files.createSymbolicLink(app.dir().resolve("state-link-to-work"), workdir);
    int before = app.get().control().get("/v1/runs").body().get("runs").size();
    int recordedBefore = Forge.recordedRuns(app.get());
    ControlClient.Answer a = app.get().control().post("/v1/runs", request("\"mode\": \"plan\","
        + " \"runnerStateDirs\": [\"" + link + "\"]"));
    assertThat(a.status()).as(a.raw()).isEqualTo(400);
    assertThat(a.body().get("error").asText()).isEqualTo("runnerStateDirs[0] " + link
        + " resolves to " + workdir + ", which is the read-only workdir " + workdir + ": mounted"
        + " writable, it would make that directory writable through another path; give a"
        + " directory that neither is nor contains it, as the kernel resolves both");
    assertThat(a.raw()).doesNotContain("ghs_").doesNotContain("pgr_");

    Path checkout = Files.createDirectories(app.dir().resolve("home/u/src/repo"));
    Path toCheckout = Files.createSymbolicLink(app.dir().resolve("state-link-to-checkout"),
        checkout);
    ControlClient.Answer b = app.get().control().post("/v1/runs", request("\"mode\": \"chat\","
        + " \"protectedPaths\": [\"" + checkout + "\"], \"runnerStateDirs\": [\"" + toCheckout
        + "\"]"));
    assertThat(b.status()).as(b.raw()).isEqualTo(400);
    assertThat(b.body().get("error").asText()).startsWith("runnerStateDirs[0] " + toCheckout
        + " resolves to " + checkout + ", which is the protected path " + checkout + ":");
    assertThat(app.get().control().get("/v1/runs").body().get("runs")).hasSize(before);
    assertThat(Forge.recordedRuns(app.get())).isEqualTo(recordedBefore);
  }

  @Test
  void anExplicitEmptyGlobListLaunchesNativelyAndSaysItWeakened() throws Exception {
    JsonNode run = app.get().createRun(request("\"mode\": \"review\","
        + " \"rules\": {\"denyWriteGlobs\": [], \"access-network\": \"deny\"},"
        + " \"env\": {\"LD_PRELOAD\": \"/evil.so\", \"LANG\": \"C.UTF-8\","
        + " \"AWS_SECRET_ACCESS_KEY\": \"aws-secret\", \"VAULT_TOKEN\": \"hvs.x\","
        + " \"GITHUB_PAT\": \"ghp_x\", \"PUSHGATE_DATABASE_URL\": \"postgresql://u:p@db/x\","
        + " \"ANTHROPIC_API_KEY\": \"sk-ant-passed\", \"EDITOR\": \"vi\"}"));
    JsonNode sandbox = run.get("sandbox");
    assertThat(sandbox.get("verdict").get("launch").asText()).isEqualTo("allowed");
    assertThat(sandbox.get("effectiveBackend").asText()).isEqualTo("native");
    assertThat(sandbox.get("spec").get("networkEnabled").asBoolean()).isFalse();
    assertThat(sandbox.get("spec").get("bindMounts")).allSatisfy(m ->
        assertThat(m.get("readOnly").asBoolean()).isTrue());
    assertThat(sandbox.get("enforcement").get("weakenings").toString()).contains("denyWriteGlobs");
    assertThat(sandbox.get("env").has("LD_PRELOAD")).isFalse();
    // Issue 14, item 6: an allowlist, so the operator's secrets never reach the agent.
    assertThat(sandbox.get("env").has("AWS_SECRET_ACCESS_KEY")).isFalse();
    assertThat(sandbox.get("env").has("VAULT_TOKEN")).isFalse();
    assertThat(sandbox.get("env").has("GITHUB_PAT")).isFalse();
    assertThat(sandbox.get("env").has("PUSHGATE_DATABASE_URL")).isFalse();
    assertThat(sandbox.get("env").has("EDITOR")).isFalse();
    // The one name the operator passes (serve --pass-env) is kept.
    assertThat(sandbox.get("env").get("ANTHROPIC_API_KEY").asText()).isEqualTo("sk-ant-passed");
    assertThat(sandbox.get("env").get("LANG").asText()).isEqualTo("C.UTF-8");
    assertThat(sandbox.get("env").get("GIT_CONFIG_GLOBAL").asText())
        .isEqualTo(run.get("gitConfigPath").asText());
    assertThat(app.get().control().get("/v1/runs/" + run.get("runId").asText()).body()
        .get("backend").asText()).isEqualTo("native");
    // the list (what `pushgate runs` shows) has it too, not only the ledger
    assertThat(app.get().control().get("/v1/runs").body().get("runs")).filteredOn(r ->
        r.get("runId").asText().equals(run.get("runId").asText())).singleElement()
        .satisfies(r -> assertThat(r.get("backend").asText()).isEqualTo("native"));
  }

  @Test
  void aProtectedPatternInsideAWritableMountIsRefusedWithItsWaysOut() throws Exception {
    Path repos = Files.createDirectories(app.dir().resolve("conv/repos"));
    Files.writeString(repos.resolve("keep.bak"), "the original\n");
    String glob = repos.toRealPath() + "/*.bak";
    ControlClient.Answer a = app.get().control().post("/v1/runs", request("\"mode\": \"chat\","
        + " \"reposDir\": \"" + repos + "\", \"protectedPaths\": [\"" + glob + "\"],"
        + " \"rules\": {\"denyWriteGlobs\": []}"));
    assertThat(a.status()).as(a.raw()).isEqualTo(422);
    assertThat(a.body().has("runId")).isFalse();
    JsonNode run = a.body();
    JsonNode verdict = run.get("sandbox").get("verdict");
    assertThat(verdict.get("launch").asText()).isEqualTo("refused");
    assertThat(verdict.get("reason").asText())
        .isEqualTo("bubblewrap cannot protect " + glob + " inside the writable mount "
            + repos.toRealPath() + ": it covers only paths that exist, never a pattern, and the"
            + " name-deny layer cannot run: this host lacks pushgate-denyfs");
    assertThat(verdict.get("waysOut").toString())
        .contains("list the protected paths without * or ?").contains("--sandbox off");
    assertThat(run.get("sandbox").get("effectiveBackend").asText()).isEqualTo("none");

    // The same pattern outside every writable mount, or the path itself, launches.
    JsonNode literal = app.get().createRun(request("\"mode\": \"chat\", \"reposDir\": \"" + repos
        + "\", \"protectedPaths\": [\"" + repos.toRealPath().resolve("keep.bak") + "\", \""
        + app.dir().toRealPath().resolve("elsewhere/*.bak") + "\"],"
        + " \"rules\": {\"denyWriteGlobs\": []}"));
    assertThat(literal.get("sandbox").get("verdict").get("launch").asText()).isEqualTo("allowed");
    assertThat(literal.get("sandbox").get("effectiveBackend").asText()).isEqualTo("native");
  }

  @Test
  void aRelativePathIsRefusedNamingTheFieldAndNothingIsCreated() throws Exception {
    int before = app.get().control().get("/v1/runs").body().get("runs").size();
    ControlClient.Answer a = app.get().control().post("/v1/runs", "{\"workspaceId\": \"ws\","
        + " \"repository\": \"acme/widget\", \"workdir\": \"relative/dir\"}");
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.body().get("error").asText()).contains("workdir");
    ControlClient.Answer b = app.get().control().post("/v1/runs", "{\"workspaceId\": \"ws\","
        + " \"repository\": \"acme/widget\", \"runner\": \"acp\"}");
    assertThat(b.status()).isEqualTo(400);
    assertThat(b.body().get("error").asText()).contains("workdir");
    assertThat(app.get().control().get("/v1/runs").body().get("runs")).hasSize(before);
  }

  private String request(String extra) {
    return "{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\", \"workdir\": \""
        + workdir + "\", \"agentConfigDir\": \"" + config + "\", " + extra + "}";
  }
}
