package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.policy.Mode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30, item 6: every refusal reaches the agent with its reason, each attempt again, in the
 * log the sandbox shows read-only at {@link ViolationLog#GUEST_PATH} (which the run's {@code
 * PostToolUse} hook reads) as in the launcher's events.
 */
class RefusalReportsTest {
  @TempDir Path tmp;
  private Path work;
  private Path home;
  private final LocalLauncher launcher = new LocalLauncher(LocalLauncher.Settings.defaults());

  @BeforeEach
  void layout() throws Exception {
    RealBwrap.require();
    Path root = RealBwrap.searchable(tmp);
    work = Files.createDirectories(root.resolve("agents/a1/work"));
    home = Files.createDirectories(root.resolve("home/u"));
    Files.writeString(work.resolve(".env.example"), "A=1\n");
  }

  private SandboxPlan plan(DenyWriteGlobs globs, NameDenyLayer.Availability layer) {
    SandboxRequest request = SandboxRequest.builder("space-1", "ws-1", Runner.HARNESS_BASH,
        RunPaths.workdirOnly(work.toString())).mode(Mode.CHAT).denyWriteGlobs(globs).build();
    return RealBwrap.planner(home, Map.of("PATH", "/usr/bin:/bin", "HOME", home.toString()),
        SandboxSwitch.ON).withNameDenyLayer(layer).plan(request);
  }

  /** Waits, with a deadline of 10 s, until the log holds {@code n} lines; then prints it. */
  private static String awaitLog(int n) {
    return "i=0; until [ \"$(grep -c . \"$PUSHGATE_VIOLATIONS\")\" -ge " + n + " ]"
        + " || [ $i -ge 200 ]; do sleep 0.05; i=$((i+1)); done; cat \"$PUSHGATE_VIOLATIONS\"";
  }

  /** The name-deny layer, or the test skipped where it cannot run (unless it must). */
  private static NameDenyLayer.Availability layer() {
    NameDenyLayer.Availability layer = NameDenyLayer.Availability.probe();
    Assumptions.assumeTrue(layer.available() || "1".equals(System.getenv("SANDBOX_REQUIRE_BWRAP")),
        "the name-deny layer cannot run here");
    return layer;
  }

  /** The log's line for a write of {@code name} in the workdir that the rules' names deny. */
  private String deniedByRules(String name) {
    return "file-write* \"" + work.resolve(name) + "\": the run's rules deny writing a file"
        + " of this name (a secret file such as .env, *.key or *.pem, or a protected path); keep"
        + " such a file out of the checkout, or ask the operator to change the rules";
  }

  /** Runs {@code script} under the default rules, with the name-deny layer enforcing them. */
  private RealBwrap.Run underDefaultRules(String script) throws Exception {
    return sh(plan(DenyWriteGlobs.DEFAULT, layer()), script);
  }

  private RealBwrap.Run sh(SandboxPlan plan, String script) throws Exception {
    return RealBwrap.run(launcher, LaunchRequest.of(plan, List.of("/bin/sh", "-c", script)));
  }

  @Test
  void eachAttemptOnAReadOnlyPathIsReportedWithItsReasonInsideAndOut() throws Exception {
    RealBwrap.Run run = sh(plan(DenyWriteGlobs.explicit(List.of()),
            NameDenyLayer.Availability.probe()),
        "touch /usr/x; touch /usr/x; " + awaitLog(2) + "; echo > $PUSHGATE_VIOLATIONS");
    String reason = "the sandbox keeps this path read-only: it is outside the run's writable"
        + " directories, or one the run may not change (git metadata such as .git/config and"
        + " hooks, agent and editor settings, shell startup files)";
    assertThat(run.stdout()).isEqualTo("file-write* \"/usr/x\": " + reason + "\n"
        + "file-write* \"/usr/x\": " + reason + "\n");
    assertThat(run.violations()).extracting(SandboxViolation::target)
        .containsSubsequence("/usr/x", "/usr/x");
    assertThat(run.stderr()).contains(ViolationLog.GUEST_PATH);
  }

  @Test
  void copyingOntoASecretFileNameIsReportedEveryTimeWithTheRulesReason() throws Exception {
    RealBwrap.Run run = underDefaultRules(
        "echo A=2 > .env; cp .env.example .env; " + awaitLog(2));
    String line = deniedByRules(".env");
    assertThat(run.stdout().split("\n")).containsExactly(line, line);
    assertThat(work.resolve(".env")).doesNotExist();
  }

  /**
   * Walk 30: bash's {@code .env: Permission denied} and Python's {@code PermissionError: [Errno 13]
   * Permission denied: '.env'} name no write; they were reported again as a read of a path the
   * sandbox hides, telling the model its own checkout's file was a hidden secret. They are the
   * same attempt as the layer's report, whatever their wording, and are dropped.
   */
  @Test
  void aWriteTheLayerRefusedIsReportedOnceWhateverTheProgramSays() throws Exception {
    RealBwrap.Run run = underDefaultRules(
        "bash -c 'echo A=2 > .env'; python3 -c 'open(\".env\", \"w\")'; " + awaitLog(2));
    String line = deniedByRules(".env");
    assertThat(run.stderr()).as("the programs' own lines").contains(".env: Permission denied")
        .contains("PermissionError");
    assertThat(run.stdout().split("\n")).containsExactly(line, line);
    assertThat(run.violations()).extracting(SandboxViolation::action)
        .containsExactly("file-write*", "file-write*");
  }

  /**
   * Walk 30: .mcp.json and .claude/settings.json, which every run is denied (a host tool runs
   * them later), were given the secret-file reason, "… or ask the operator to change the rules":
   * no rules change opens them.
   */
  @Test
  void anAgentSettingsFileIsRefusedAsOneAHostToolRunsNotAsASecret() throws Exception {
    RealBwrap.Run run = underDefaultRules(
        "echo {} > .mcp.json; mkdir -p .claude; echo {} > .claude/settings.json; " + awaitLog(2));
    String reason = "\": the sandbox denies every run writing this path: a tool on the operator's"
        + " side runs what it finds here later (agent and editor settings such as .mcp.json and"
        + " .claude/settings.json, git hooks and config, shell start-up files), so no rules change"
        + " opens it; if the change is needed, say so and a person makes it";
    assertThat(run.stdout().split("\n")).containsExactly(
        "file-write* \"" + work.resolve(".mcp.json") + reason,
        "file-write* \"" + work.resolve(".claude/settings.json") + reason);
  }
}
