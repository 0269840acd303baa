package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.ControlClient;
import dev.pushgate.testkit.GitRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A run started with a {@code workdir} whose repository has an explicit {@code remote.*.pushurl}
 * (which git never applies {@code pushInsteadOf} to): the push URL is rewritten to the gateway
 * and the answer says so, or, when it cannot be, the launch verdict is {@code refused}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WorkdirPushUrlTest {

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().withRepos("acme/widget");

  private GitRun plainGit;

  @BeforeAll
  void start() throws Exception {
    plainGit = new GitRun(Files.createDirectories(app.dir().resolve("home")), Map.of());
  }

  @Test
  void anExplicitPushUrlOfTheWorkdirIsRewrittenAtLaunchAndItsPushesMeetTheRules()
      throws Exception {
    Path w = worktree("rewritten");
    plainGit.in(w, "config", "remote.origin.pushurl", "https://GitHub.com/acme/widget.git").ok();
    plainGit.in(w, "config", "--add", "remote.origin.pushurl",
        "ssh://deploy@github.com:22/acme/widget/").ok();

    JsonNode run = app.get().createRun(request(w));
    assertThat(run.get("sandbox").get("verdict").get("launch").asText()).isEqualTo("allowed");
    String to = app.get().gatewayUrl() + "acme/widget.git";
    assertThat(run.get("pushUrlRewrites").toString()).isEqualTo("[{\"remote\":\"origin\","
        + "\"from\":\"https://GitHub.com/acme/widget.git\",\"to\":\"" + to + "\"},"
        + "{\"remote\":\"origin\",\"from\":\"ssh://***@github.com:22/acme/widget/\",\"to\":\""
        + to + "\"}]");

    GitRun git = new GitRun(app.dir().resolve("home"), ForgeRefs.env(run));
    assertThat(git.in(w, "remote", "get-url", "--push", "--all", "origin").ok().stdout())
        .isEqualTo(to + "\n" + to + "\n");
    commit(git, w, "rewritten");
    Map<String, ObjectId> before = ForgeRefs.of(app.get(), "acme/widget");
    // forced, so that git itself has no reason to hold the push back: the rule refuses it
    GitRun.Result refused = git.in(w, "push", "--force", "origin", "HEAD:main").failed();
    assertThat(refused.stderr()).contains(
        "! [remote rejected] HEAD -> main (Control Center policy: push to main is denied)");
    assertThat(ForgeRefs.of(app.get(), "acme/widget")).isEqualTo(before);
    // A sandboxed chat run's push asks (issue 28): the approver allows what no rule denies.
    try (AllowingApprover approver = AllowingApprover.connect(app.get())) {
      git.in(w, "push", "origin", "HEAD:refs/heads/rewritten").ok();
    }
    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/rewritten"))
        .isEqualTo(ObjectId.fromString(git.in(w, "rev-parse", "HEAD").ok().stdout().strip()));
  }

  @Test
  void aPushUrlThatCannotBeRewrittenRefusesTheLaunchAndChangesNothing() throws Exception {
    Path w = worktree("unsafe");
    plainGit.in(w, "config", "remote.origin.pushurl", "https://github.com/acme/widget.git").ok();
    plainGit.in(w, "config", "remote.evil.pushurl", "git@github.com:../widget.git").ok();
    Path config = w.resolve(".git/config");
    String before = Files.readString(config);

    int runsBefore = app.get().control().get("/v1/runs").body().get("runs").size();
    ControlClient.Answer a = app.get().control().post("/v1/runs", request(w));
    assertThat(a.status()).as(a.raw()).isEqualTo(422);
    JsonNode verdict = a.body().get("sandbox").get("verdict");
    assertThat(verdict.get("launch").asText()).isEqualTo("refused");
    assertThat(verdict.get("reason").asText()).isEqualTo("the workdir's push URLs cannot be sent"
        + " to the gateway, so a push could go around the rules: remote \"evil\" has a push URL"
        + " that does not name a safe repository (not a valid owner: \"..\"):"
        + " git@github.com:../widget.git");
    assertThat(verdict.get("waysOut").toString()).contains("--unset-all remote.<name>.pushurl");
    assertThat(a.body().get("sandbox").get("effectiveBackend").asText()).isEqualTo("none");
    // A run that may not launch holds nothing live (item 16).
    assertThat(a.body().has("runId")).isFalse();
    assertThat(a.raw()).doesNotContain("ghs_").doesNotContain("pgr_");
    assertThat(app.get().control().get("/v1/runs").body().get("runs")).hasSize(runsBefore);
    assertThat(Files.readString(config)).isEqualTo(before);
  }

  @Test
  void aWorkdirWithoutARepositoryHasNothingToRewrite() throws Exception {
    Path w = Files.createDirectories(app.dir().resolve("empty"));
    JsonNode run = app.get().createRun(request(w));
    assertThat(run.get("sandbox").get("verdict").get("launch").asText()).isEqualTo("allowed");
    assertThat(run.get("pushUrlRewrites")).isEmpty();
  }

  private Path worktree(String name) throws Exception {
    plainGit.in(app.dir(), "init", "-q", "-b", "main", name).ok();
    Path w = app.dir().resolve(name);
    plainGit.in(w, "remote", "add", "origin", "https://github.com/acme/widget.git").ok();
    commit(plainGit, w, name + "-base");
    return w;
  }

  /** A run in {@code w}; no glob denies, so bubblewrap can launch it as planned. */
  private String request(Path w) {
    return "{\"workspaceId\": \"ws-workdir\", \"mode\": \"chat\", \"repository\":"
        + " \"acme/widget\", \"workdir\": \"" + w + "\", \"runner\": \"harness-bash\","
        + " \"rules\": {\"denyWriteGlobs\": [],"
        + " \"push\": [{\"refs\": \"refs/heads/main\", \"decision\": \"deny\","
        + " \"reason\": \"push to main is denied\"}]}}";
  }

  private void commit(GitRun git, Path w, String content) throws Exception {
    Files.writeString(w.resolve(content + ".txt"), content + "\n");
    git.in(w, "add", ".").ok();
    git.in(w, "commit", "-q", "-m", content).ok();
  }
}
