package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.RunningAppliance;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Claude Code hook fails closed (issue 14, item 13): {@code pushgate hook} alone blocks, the
 * hook is at its documented path inside {@code pushgate exec}'s sandbox, read-only, and every
 * decision it gets (allow, ask, deny) is in the audit that {@code pushgate audit} shows. The
 * appliance leaves "ask" to Claude Code here ({@code --hook-ask passthrough}), so all three come
 * back as they are; an approver's answer to a held command is in {@link ApproverDisplayTest}.
 */
class HookFailsClosedTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String RULES = """
      denyWriteGlobs: []
      commit: deny
      push:
        - refs: refs/heads/main
          decision: deny
          reason: push to main is denied
      """;

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving("--hook-ask", "passthrough")
      .forSandboxedRuns().withRepos("acme/widget");

  @Test
  void pushgateHookWithoutASubcommandBlocksWithItsUsageOnStderr() throws Exception {
    Process p = new ProcessBuilder("java", "-jar", RunningAppliance.jar().toString(), "hook")
        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();

    assertThat(p.exitValue()).isEqualTo(2);
    assertThat(out).isEmpty();
    assertThat(err).startsWith("pushgate hook: a subcommand is needed;")
        .contains("the tool call is blocked").contains("Usage: pushgate hook");
  }

  @Test
  void insideExecTheHookIsAtItsDocumentedPathReadOnlyAndEveryDecisionIsAudited()
      throws Exception {
    ExecTest.requireBwrap();
    Path work = Files.createDirectories(app.dir().resolve("work-hook"));
    Path rules = Files.writeString(app.dir().resolve("rules.yaml"), RULES);
    List<String> cmd = new ArrayList<>(List.of("java", "-jar", RunningAppliance.jar().toString(),
        "exec", "--data-dir", app.get().dataDir.toString(), "--repo", "acme/widget",
        "--workdir", work.toString(), "--rules", rules.toString(), "--", "sh", "-c", """
            h=/opt/pushgate/bin/pushgate-hook
            test -x "$h" && echo hook-runs
            if (echo x >> "$h") 2>/dev/null; then echo hook-writable; fi
            for c in 'git status' 'git commit -m x' 'npm publish' 'git push origin main'; do
              printf '{"hook_event_name":"PreToolUse","tool_name":"Bash",'\
            '"tool_input":{"command":"%s"}}' "$c" | "$h"
              echo " exit=$?"
            done
            """));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(work.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    pb.environment().keySet().removeIf(k -> k.startsWith("GIT_") || k.equals("GH_TOKEN"));
    pb.environment().put("HOME", Files.createDirectories(app.dir().resolve("home")).toString());
    Process p = pb.start();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(err).isZero();

    List<String> lines = out.lines().toList();
    assertThat(lines).as(err).hasSize(5);
    assertThat(lines.get(0)).isEqualTo("hook-runs");
    assertThat(decision(lines.get(1))).isEqualTo("allow");
    assertThat(decision(lines.get(2))).isEqualTo("deny");
    assertThat(reason(lines.get(2))).isEqualTo("Control Center policy: `git commit` would create"
        + " a commit, which this workspace's rules deny");
    assertThat(decision(lines.get(3))).isEqualTo("ask");
    // In the sandbox pushes are judged at the gateway (which refuses main with the rule's
    // reason, in git's output): the hook lets the push through to it.
    assertThat(decision(lines.get(4))).isEqualTo("allow");
    assertThat(reason(lines.get(4))).isEqualTo("Control Center policy: `git push` would push to"
        + " a remote, which is judged at the push gateway");
    assertThat(lines.subList(1, 5)).allSatisfy(l -> assertThat(l).endsWith(" exit=0"));

    String runId = err.replaceFirst("(?s).*pushgate: run (run_[0-9a-f]+) .*", "$1");
    List<JsonNode> audit = new ArrayList<>();
    for (String l : RunningAppliance.cli("audit", "--run", runId, "--decisions", "--json",
        "--data-dir",
        app.get().dataDir.toString()).lines().toList()) {
      audit.add(JSON.readTree(l));
    }
    assertThat(audit).extracting(a -> a.get("action").asText() + " " + a.get("command").asText()
            + " -> " + a.get("decision").asText())
        .containsExactly("command git status -> allowed",
            "command git commit -m x -> denied",
            "command npm publish -> asked",
            "command git push origin main -> allowed");
    assertThat(audit.get(1).get("code").asText()).isEqualTo("RULE_DENIED");
    assertThat(audit.get(1).get("reason").asText())
        .isEqualTo("`git commit` would create a commit, which this workspace's rules deny");
    String table = RunningAppliance.cli("audit", "--run", runId, "--decisions", "--data-dir",
        app.get().dataDir.toString());
    assertThat(table).contains("REF / COMMAND").contains("git commit -m x")
        .containsPattern("npm publish +command +asked");
    assertThat(RunningAppliance.cli("audit", "--run", runId, "--refused", "--data-dir",
        app.get().dataDir.toString())).contains("git commit -m x")
        .doesNotContain("git status").doesNotContain("npm publish")
        .doesNotContain("git push");
  }

  private static String decision(String line) throws Exception {
    return JSON.readTree(line.substring(0, line.lastIndexOf(" exit=")))
        .at("/hookSpecificOutput/permissionDecision").asText();
  }

  private static String reason(String line) throws Exception {
    return JSON.readTree(line.substring(0, line.lastIndexOf(" exit=")))
        .at("/hookSpecificOutput/permissionDecisionReason").asText();
  }
}
