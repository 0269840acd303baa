package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 28, "the mode at every door", for a chat run created on the control API with no sandbox:
 * every push crosses the gateway, which asks as chat mode asks, whatever command makes it (a git
 * alias, a script: doors the hook cannot see), and exactly once: the hook lets {@code git push}
 * through to the gateway instead of asking first.
 */
class ChatRunWithoutSandboxTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path tmp;
  static RunningAppliance app;

  @BeforeAll
  static void start() throws Exception {
    app = RunningAppliance.start(tmp.resolve("data"));
    app.forgeCreate("acme/widget");
  }

  @AfterAll
  static void stop() throws Exception {
    if (app != null) {
      app.close();
    }
  }

  @Test
  void everyPushIsAskedAboutOnceAtTheGatewayWhateverCommandMakesIt() throws Exception {
    JsonNode run = app.createRun(
        "{\"workspaceId\": \"ws-1\", \"mode\": \"chat\", \"repository\": \"acme/widget\"}");
    assertThat(run.at("/sandbox").isMissingNode() || run.at("/sandbox").isNull()).isTrue();
    GitRun git = new GitRun(Files.createDirectories(tmp.resolve("home")), ForgeRefs.env(run));
    Path work = Files.createDirectories(tmp.resolve("work"));
    git.in(work, "init", "-q", "-b", "main").ok();
    git.in(work, "-c", "user.name=Agent", "-c", "user.email=agent@example.com", "commit", "-q",
        "--allow-empty", "-m", "one").ok();
    git.in(work, "remote", "add", "origin", "https://github.com/acme/widget.git").ok();

    // A push through an alias is no `git push` to the hook; the gateway asks, and with nobody
    // to answer refuses.
    GitRun.Result alone = git.in(work, "-c", "alias.p=push", "p", "origin",
        "HEAD:refs/heads/alias").failed();
    assertThat(alone.stderr()).contains("(Control Center policy: push to refs/heads/alias needs"
        + " approval in chat mode (no approver is connected))");

    // The hook lets the plain line through: the gateway's is the one question.
    JsonNode hook = preToolUse(run, "git push origin HEAD:refs/heads/feature");
    assertThat(hook.at("/hookSpecificOutput/permissionDecision").asText()).isEqualTo("allow");
    assertThat(hook.at("/hookSpecificOutput/permissionDecisionReason").asText())
        .endsWith("which is judged at the push gateway");
    try (AllowingApprover approver = AllowingApprover.connect(app)) {
      git.in(work, "push", "-q", "origin", "HEAD:refs/heads/feature").ok();
      assertThat(approver.questions()).singleElement().asString()
          .contains("push to refs/heads/feature needs approval in chat mode");

      Files.writeString(work.resolve("push.sh"), "git push -q origin HEAD:refs/heads/script\n");
      git.in(work, "-c", "alias.s=!sh push.sh", "s").ok();
      assertThat(approver.questions()).hasSize(2).last().asString()
          .contains("push to refs/heads/script needs approval in chat mode");
    }
  }

  private static JsonNode preToolUse(JsonNode run, String command) throws Exception {
    ObjectNode input = JSON.createObjectNode();
    input.put("hook_event_name", "PreToolUse");
    input.put("tool_name", "Bash");
    input.putObject("tool_input").put("command", command);
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + app.port() + "/v1/hooks/pre-tool-use"))
        .header("Authorization", "Bearer " + ForgeRefs.credential(run))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(input.toString())).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return JSON.readTree(r.body());
  }
}
