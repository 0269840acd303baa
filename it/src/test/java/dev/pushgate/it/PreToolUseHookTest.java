package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.appliance.runs.RunBoundary;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.RunningAppliance;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Claude Code's PreToolUse hook against the running appliance, over HTTP and as a command. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PreToolUseHookTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path EXAMPLES =
      Path.of("src/test/resources/claude-code-pretooluse-examples.json");

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().withRepos("acme/widget");

  private JsonNode examples;
  private JsonNode chatRun;
  private JsonNode planRun;
  /** A chat run wrapped in bubblewrap: its pushes are judged at the gateway. */
  private JsonNode sandboxedChatRun;
  private Path hookScript;

  @BeforeAll
  void start() throws Exception {
    // The script as the appliance ships it.
    RunningAppliance.cli("hook", "install", "--to", app.dir().resolve("bin").toString());
    hookScript = app.dir().resolve("bin/pushgate-hook");
    examples = JSON.readTree(Files.readString(EXAMPLES)).get("input_examples");
    chatRun = app.get().createRun("{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\"}");
    planRun = app.get().createRun(
        "{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\", \"mode\": \"plan\"}");
    Path workdir = Files.createDirectories(app.dir().resolve("work"));
    // harness-bash needs no agent config directory; no glob denies, so bubblewrap launches it
    sandboxedChatRun = app.get().createRun("{\"workspaceId\": \"ws\", \"repository\":"
        + " \"acme/widget\", \"workdir\": \"" + workdir + "\", \"runner\": \"harness-bash\","
        + " \"rules\": {\"denyWriteGlobs\": []}}");
  }

  @Test
  void aPushAsksAndWithNoApproverConnectedIsDenied() throws Exception {
    JsonNode out = post(chatRun,
        examples.get("bash_git_push").toString()).get("hookSpecificOutput");
    assertThat(out.get("hookEventName").asText()).isEqualTo("PreToolUse");
    assertThat(out.get("permissionDecision").asText()).isEqualTo("deny");
    assertThat(out.get("permissionDecisionReason").asText())
        .isEqualTo("Control Center policy: `git push` would push to a remote, which needs"
            + " approval in chat mode (no approver is connected)");
  }

  @Test
  void aPushOfASandboxedRunIsLetThroughToTheGatewayThatJudgesIt() throws Exception {
    assertThat(sandboxedChatRun.at("/sandbox/effectiveBackend").asText())
        .as("bubblewrap runs here (.ci/run installs it)").isEqualTo("native");
    String push = bash("git push origin feature");

    JsonNode out = post(sandboxedChatRun, push).get("hookSpecificOutput");
    assertThat(out.get("permissionDecision").asText()).isEqualTo("allow");
    assertThat(out.get("permissionDecisionReason").asText()).isEqualTo("Control Center policy:"
        + " `git push` would push to a remote, which is judged at the push gateway");

    // Without the boundary (no OS sandbox: the host's SSH keys are within reach) it still asks,
    // and with nobody to answer that is a deny.
    assertThat(chatRun.at("/sandbox").isMissingNode() || chatRun.at("/sandbox").isNull()).isTrue();
    JsonNode unwrapped = post(chatRun, push).get("hookSpecificOutput");
    assertThat(unwrapped.get("permissionDecision").asText()).isEqualTo("deny");
    assertThat(unwrapped.get("permissionDecisionReason").asText()).isEqualTo("Control Center"
        + " policy: `git push` would push to a remote, which needs approval in chat mode (no"
        + " approver is connected)");
  }

  @Test
  void aGhCallOfASandboxedRunIsLetThroughOnlyOnceTheApiBoundaryIsInForce() throws Exception {
    JsonNode out = post(sandboxedChatRun, bash("gh pr create --fill")).get("hookSpecificOutput");
    if (RunBoundary.GITHUB_API_BOUNDARY_IN_FORCE) {
      assertThat(out.get("permissionDecision").asText()).isEqualTo("allow");
      assertThat(out.get("permissionDecisionReason").asText()).isEqualTo("Control Center policy:"
          + " `gh pr create` would open a pull request, which is judged at the GitHub API"
          + " boundary");
    } else {
      // not in force: gh keeps asking, here denied for want of an approver
      assertThat(out.get("permissionDecision").asText()).isEqualTo("deny");
      assertThat(out.get("permissionDecisionReason").asText()).isEqualTo("Control Center policy:"
          + " `gh pr create` would open a pull request, which needs approval in chat mode (no"
          + " approver is connected)");
    }
  }

  @Test
  void aCommitIsAllowedInChatAndDeniedInPlan() throws Exception {
    String commit = examples.get("bash_git_commit").toString();
    assertThat(post(chatRun, commit).at("/hookSpecificOutput/permissionDecision").asText())
        .isEqualTo("allow");
    assertThat(post(planRun, commit).at("/hookSpecificOutput/permissionDecision").asText())
        .isEqualTo("deny");
  }

  @Test
  void otherToolsPassThroughUntouched() throws Exception {
    assertThat(post(chatRun, examples.get("write_file").toString()).isEmpty()).isTrue();
  }

  @Test
  void garbageIsADenyNotAnError() throws Exception {
    JsonNode out = post(chatRun, "{not json");
    assertThat(out.at("/hookSpecificOutput/permissionDecision").asText()).isEqualTo("deny");
    assertThat(out.at("/hookSpecificOutput/permissionDecisionReason").asText())
        .startsWith("Control Center policy: malformed hook input");
  }

  @Test
  void anUnknownCredentialIsRefused() throws Exception {
    HttpResponse<String> r = send("pgr_nobody", "{}");
    assertThat(r.statusCode()).isEqualTo(401);
  }

  @Test
  void theCommandHookForwardsStdinAndBlocksWhenTheApplianceIsDown() throws Exception {
    String commit = examples.get("bash_git_commit").toString();
    Result ok = hookScript(chatRun.at("/env/PUSHGATE_HOOK_URL").asText(), commit);
    assertThat(ok.exit).isZero();
    assertThat(JSON.readTree(ok.stdout).at("/hookSpecificOutput/permissionDecision").asText())
        .isEqualTo("allow");

    Result down = hookScript("http://127.0.0.1:9/v1/hooks/pre-tool-use", commit);
    assertThat(down.exit).isEqualTo(2);
    assertThat(down.stderr).startsWith("pushgate-hook: ");
  }

  private record Result(int exit, String stdout, String stderr) {}

  private String bash(String command) {
    com.fasterxml.jackson.databind.node.ObjectNode input = JSON.createObjectNode();
    input.put("hook_event_name", "PreToolUse");
    input.put("tool_name", "Bash");
    input.putObject("tool_input").put("command", command);
    return input.toString();
  }

  private Result hookScript(String url, String stdin) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(hookScript.toString());
    pb.environment().put("PUSHGATE_HOOK_URL", url);
    pb.environment().put("PUSHGATE_RUN_TOKEN", chatRun.at("/env/PUSHGATE_RUN_TOKEN").asText());
    pb.environment().put("PUSHGATE_HOOK_TIMEOUT", "10");
    Process p = pb.start();
    p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return new Result(p.exitValue(), out, err);
  }

  private JsonNode post(JsonNode run, String body) throws Exception {
    HttpResponse<String> r = send(run.at("/env/PUSHGATE_RUN_TOKEN").asText(), body);
    assertThat(r.statusCode()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private HttpResponse<String> send(String credential, String body) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + app.get().port() + "/v1/hooks/pre-tool-use"))
        .header("Authorization", "Bearer " + credential)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
