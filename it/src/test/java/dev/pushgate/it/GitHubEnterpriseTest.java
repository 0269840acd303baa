package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A GitHub App on a host that is not github.com (GitHub Enterprise Server) is pushed to through
 * the gateway, in every spelling git takes for that host, and never straight upstream.
 *
 * <p>Two appliances: {@code forge} runs the local forge; {@code ghes} is configured as a GitHub
 * App whose API and git host are that forge, {@code http://127.0.0.1:PORT/forge}, a host other
 * than github.com.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GitHubEnterpriseTest {
  private static final String DENY_MAIN = """
      {"workspaceId": "ws-ghes", "repository": "acme/widget",
       "rules": {"push": [{"refs": "refs/heads/main", "decision": "deny",
                           "reason": "push to main is denied"}]}}""";

  private Path tmp;
  private RunningAppliance forge;
  private RunningAppliance ghes;
  private String host;

  @BeforeAll
  void start(@TempDir Path tempDir) throws Exception {
    tmp = tempDir;
    forge = RunningAppliance.start(tmp.resolve("forge"));
    forge.forgeCreate("acme/widget");
    host = "127.0.0.1:" + forge.port();
    String base = "http://" + host + "/forge";
    ghes = RunningAppliance.start(tmp.resolve("ghes"), "--github-app-id", "1",
        "--github-app-key", forge.dataDir.resolve("forge-app.pem").toString(),
        "--github-api-url", base + "/api/v3", "--github-host", base);
  }

  @AfterAll
  void stop() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {ghes, forge}) {
      if (c != null) {
        c.close();
      }
    }
  }

  @Test
  void pushesToTheEnterpriseHostAreJudgedByTheGatewayAndAudited() throws Exception {
    assertThat(ghes.gatewayUrl()).isEqualTo("http://127.0.0.1:" + ghes.port() + "/git/" + host
        + "/");
    JsonNode run = ghes.createRun(DENY_MAIN);
    GitRun git = new GitRun(Files.createDirectories(tmp.resolve("home")), ForgeRefs.env(run));
    // the clone goes through the gateway too, which reads the enterprise host with its own token
    git.in(tmp, "clone", "-q", "http://" + host + "/forge/acme/widget.git", "widget").ok();
    Path w = tmp.resolve("widget");
    Files.writeString(w.resolve("ghes.txt"), "ghes\n");
    git.in(w, "add", ".").ok();
    git.in(w, "commit", "-q", "-m", "ghes").ok();
    ObjectId head = ObjectId.fromString(git.in(w, "rev-parse", "HEAD").ok().stdout().strip());
    Map<String, ObjectId> before = ForgeRefs.of(forge, "acme/widget");

    assertThat(git.in(w, "remote", "get-url", "--push", "origin").ok().stdout().strip())
        .isEqualTo(ghes.gatewayUrl() + "acme/widget.git");
    GitRun.Result refused = git.in(w, "push", "origin", "HEAD:main").failed();
    assertThat(refused.stderr()).contains(
        "! [remote rejected] HEAD -> main (Control Center policy: push to main is denied)");
    assertThat(ForgeRefs.of(forge, "acme/widget")).isEqualTo(before);

    git.in(w, "push", "origin", "HEAD:refs/heads/feature").ok();
    assertThat(ForgeRefs.ref(forge, "acme/widget", "refs/heads/feature")).isEqualTo(head);

    // the host's other spellings, scp-like with git's own user included, reach the gateway too
    git.in(w, "remote", "add", "scp", "git@127.0.0.1:acme/widget.git").ok();
    git.in(w, "push", "scp", "HEAD:refs/heads/via-scp").ok();
    assertThat(ForgeRefs.ref(forge, "acme/widget", "refs/heads/via-scp")).isEqualTo(head);
    assertThat(git.in(w, "push", "scp", "HEAD:main").failed().stderr())
        .contains("(Control Center policy: push to main is denied)");

    JsonNode audit = ghes.control().get("/v1/audit?runId=" + run.get("runId").asText()).body();
    assertThat(audit.get("decisions")).anySatisfy(d -> {
      assertThat(d.get("ref").asText()).isEqualTo("refs/heads/main");
      assertThat(d.get("code").asText()).isEqualTo("RULE_DENIED");
    });
    assertThat(audit.get("decisions")).anySatisfy(d -> {
      assertThat(d.get("ref").asText()).isEqualTo("refs/heads/feature");
      assertThat(d.get("outcome").asText()).isEqualTo("ok");
    });

    // github.com is not this appliance's host: its URLs are not the gateway's to take
    git.in(w, "remote", "add", "dotcom", "https://github.com/acme/widget.git").ok();
    assertThat(git.in(w, "remote", "get-url", "--push", "dotcom").ok().stdout().strip())
        .isEqualTo("https://github.com/acme/widget.git");
  }
}
