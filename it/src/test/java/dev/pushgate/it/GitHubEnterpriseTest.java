package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A GitHub App on a host that is not github.com (GitHub Enterprise Server) is pushed to through
 * the gateway, in every spelling git takes for that host, and never straight upstream.
 *
 * <p>Two appliances: {@code forge} runs the local forge; {@code ghes} is configured as a GitHub
 * App whose API and git host are that forge, {@code http://127.0.0.1:PORT/forge}, a host other
 * than github.com.
 */
class GitHubEnterpriseTest {
  private static final String DENY_MAIN = """
      {"workspaceId": "ws-ghes", "repository": "acme/widget",
       "rules": {"push": [{"refs": "refs/heads/main", "decision": "deny",
                           "reason": "push to main is denied"}]}}""";

  @RegisterExtension
  static final ApplianceExtension forge = ApplianceExtension.serving().withRepos("acme/widget");

  /** Started after the forge (on the first get()), with the forge as its GitHub App's host. */
  @RegisterExtension
  static final ApplianceExtension ghes = ApplianceExtension.serving().with(b -> b.serve(List.of(
      "--github-app-id", "1",
      "--github-app-key", forge.get().dataDir.resolve("forge-app.pem").toString(),
      "--github-api-url", "http://" + host() + "/forge/api/v3",
      "--github-host", "http://" + host() + "/forge")));

  /** The enterprise host: the forge's address. */
  private static String host() {
    return "127.0.0.1:" + forge.get().port();
  }

  @Test
  void pushesToTheEnterpriseHostAreJudgedByTheGatewayAndAudited() throws Exception {
    assertThat(ghes.get().gatewayUrl())
        .isEqualTo("http://127.0.0.1:" + ghes.get().port() + "/git/" + host() + "/");
    JsonNode run = ghes.get().createRun(DENY_MAIN);
    GitRun git = new GitRun(Files.createDirectories(ghes.dir().resolve("home")),
        ForgeRefs.env(run));
    // the clone goes through the gateway too, which reads the enterprise host with its own token
    git.in(ghes.dir(), "clone", "-q", "http://" + host() + "/forge/acme/widget.git", "widget").ok();
    Path w = ghes.dir().resolve("widget");
    Files.writeString(w.resolve("ghes.txt"), "ghes\n");
    git.in(w, "add", ".").ok();
    git.in(w, "commit", "-q", "-m", "ghes").ok();
    ObjectId head = ObjectId.fromString(git.in(w, "rev-parse", "HEAD").ok().stdout().strip());
    Map<String, ObjectId> before = ForgeRefs.of(forge.get(), "acme/widget");

    assertThat(git.in(w, "remote", "get-url", "--push", "origin").ok().stdout().strip())
        .isEqualTo(ghes.get().gatewayUrl() + "acme/widget.git");
    GitRun.Result refused = git.in(w, "push", "origin", "HEAD:main").failed();
    assertThat(refused.stderr()).contains(
        "! [remote rejected] HEAD -> main (Control Center policy: push to main is denied)");
    assertThat(ForgeRefs.of(forge.get(), "acme/widget")).isEqualTo(before);

    git.in(w, "push", "origin", "HEAD:refs/heads/feature").ok();
    assertThat(ForgeRefs.ref(forge.get(), "acme/widget", "refs/heads/feature")).isEqualTo(head);

    // the host's other spellings, scp-like with git's own user included, reach the gateway too
    git.in(w, "remote", "add", "scp", "git@127.0.0.1:acme/widget.git").ok();
    git.in(w, "push", "scp", "HEAD:refs/heads/via-scp").ok();
    assertThat(ForgeRefs.ref(forge.get(), "acme/widget", "refs/heads/via-scp")).isEqualTo(head);
    assertThat(git.in(w, "push", "scp", "HEAD:main").failed().stderr())
        .contains("(Control Center policy: push to main is denied)");

    JsonNode audit = ghes.get().control().get("/v1/audit?runId="
        + run.get("runId").asText()).body();
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
