package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Walk 30: a write the name-deny layer refuses, made the way an agent makes it most often, with a
 * shell redirection ({@code echo DB=x > .env}) or from Python, whose error line reaches the
 * launcher on the command's standard error. docs/sandbox.md ("Every refusal reaches the agent with
 * its reason") says the command's own error line for a refusal the layer has just reported is
 * dropped (dash's {@code cannot create .env} line is); it must at least never be reported as something else. Seen in walk 30: bash's
 * {@code line 1: .env: Permission denied} and Python's {@code PermissionError: … '.env'} became a
 * second violation {@code file-read* .env: the sandbox hides this path: a secret (such as ~/.ssh
 * or ~/.aws) or a directory that is not the run's}, on exec's standard error and in the
 * {@code PostToolUse} hook's {@code additionalContext}, telling the model that its own checkout's
 * file is a hidden secret path. The same for a write to the read-only
 * {@code /opt/pushgate/bin/pushgate-hook}. ({@code cp x .env}'s and dash's lines are dropped, as documented.)
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RefusedWriteReasonTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String SCRIPT = """
      bash -c 'echo DB=x > .env'
      python3 -c 'open(".env.production", "w")' 2>&1 >/dev/null | tail -1 >&2
      bash -c 'echo x >> /opt/pushgate/bin/pushgate-hook'
      sleep 2
      /opt/pushgate/bin/pushgate-hook --post-tool-use < /dev/null
      """;

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving()
      .forSandboxedRuns().withRepos("acme/widget");

  @BeforeAll
  void start() throws Exception {
    ExecTest.requireBwrap();
    RunningAppliance.assumeDenyfs();
  }

  @Test
  void aRefusedWriteIsNeverReportedAsAHiddenPathRead() throws Exception {
    Path cwd = app.dir().resolve("agent");
    Files.createDirectories(cwd);
    Files.setPosixFilePermissions(cwd, PosixFilePermissions.fromString("rwxrwxrwx"));
    PushgateExec.Result exec = PushgateExec.on(app.get().dataDir,
        app.dir().resolve("home")).withDenyLayer()
        .run(cwd, Map.of(), "--", "sh", "-c", SCRIPT);
    String all = exec.stdout() + "\n" + exec.stderr();
    Path checkout = cwd.resolve("widget");

    // The layer's own report, with the right reason, is there.
    assertThat(exec.stderr()).as(all)
        .contains("pushgate: sandbox violation: file-write* \"" + checkout.resolve(".env") + "\"\n"
            + "pushgate:   why: the run's rules deny writing a file of this name")
        .contains("pushgate: sandbox violation: file-write* \""
            + checkout.resolve(".env.production") + "\"\n");
    // No second report reads the failed write as a read of a hidden secret path.
    assertThat(exec.stderr()).as(all)
        .doesNotContain("file-read* \".env\"")
        .doesNotContain("file-read* \".env.production\"")
        .doesNotContain("file-read* \"/opt/pushgate/bin/pushgate-hook\"");

    // What the model is told through the PostToolUse hook says the same.
    int json = exec.stdout().indexOf("{\"hookSpecificOutput\"");
    assertThat(json).as(all).isNotNegative();
    JsonNode hook = JSON.readTree(exec.stdout().substring(json));
    String context = hook.path("hookSpecificOutput").path("additionalContext").asText();
    assertThat(context).as(all)
        .contains("file-write* \"" + checkout.resolve(".env") + "\": the run's rules deny writing")
        .doesNotContain("the sandbox hides this path");
  }

  /**
   * Walk 30: a refusal that shows only in the failing program's own output never reached the
   * model: Claude Code's Bash tool captures the command's standard error, so the launcher never
   * reads git's {@code could not write config file .git/config: Device or resource busy} (the
   * .git/config bound read-only where the name-deny layer does not run, which {@code git push -u}
   * cannot store its upstream in). The real hook,
   * fed a Claude-Code-shaped PostToolUse input, gets its reason from the appliance, which reads
   * the tool's output with the launcher's parser; once, though git says it twice.
   */
  @Test
  void aRefusalOnlyTheToolsOutputShowsReachesTheModelOnce() throws Exception {
    Path cwd = app.dir().resolve("agent-post");
    Files.createDirectories(cwd);
    Files.setPosixFilePermissions(cwd, PosixFilePermissions.fromString("rwxrwxrwx"));
    String busy = "error: could not write config file .git/config: Device or resource busy";
    String script = "printf '{\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Bash\","
        + "\"cwd\":\"%s\",\"tool_input\":{\"command\":\"git push -u origin HEAD\"},"
        + "\"tool_response\":{\"stdout\":\"\",\"stderr\":\"" + busy + "\\\\n" + busy
        + "\\\\nbranch x set up to track origin/x.\",\"interrupted\":false}}' \"$PWD\""
        + " > \"/tmp/post.json\"\n"
        + "/opt/pushgate/bin/pushgate-hook --post-tool-use < \"/tmp/post.json\"\n";
    PushgateExec.Result exec = PushgateExec.on(app.get().dataDir, app.dir().resolve("home-post"))
        .withDenyLayer().run(cwd, Map.of(), "--", "sh", "-c", script);
    String all = exec.stdout() + "\n" + exec.stderr();
    int json = exec.stdout().indexOf("{\"hookSpecificOutput\"");
    assertThat(json).as(all).isNotNegative();
    String context = JSON.readTree(exec.stdout().substring(json))
        .path("hookSpecificOutput").path("additionalContext").asText();
    String reason = "file-write* \".git/config\": git stored nothing in the repository's"
        + " .git/config";
    assertThat(context).as(all).contains(reason);
    assertThat(context.split(java.util.regex.Pattern.quote(reason), -1)).as(context).hasSize(2);
  }
}
