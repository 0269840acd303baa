package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.broker.GitHubApp;
import dev.pushgate.broker.GitHubAppConfig;
import dev.pushgate.broker.InstallationToken;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.types.RepoSlug;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.OptionalLong;
import okhttp3.OkHttpClient;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Pushes that change {@code .github/workflows/}: the local forge refuses them without the
 * {@code workflows} permission as GitHub does, so a workflow change the gateway failed to see
 * would come back as upstream's refusal instead of landing or being refused by the rules.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WorkflowChangesTest {
  private static final String REPO = "acme/widget";
  private static final String CI = ".github/workflows/ci.yml";
  private static final String FORGE_REFUSAL =
      "refusing to allow a GitHub App to create or update workflow";

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().withRepos(REPO);

  private GitHubApp forgeApp;
  /** A clone holding main with a workflow, and a branch {@code ci-update} that changes it. */
  private Path seed;

  @BeforeAll
  void start() throws Exception {
    String forge = "http://127.0.0.1:" + app.get().port() + "/forge";
    forgeApp = GitHubApp.create(GitHubAppConfig.of("1", app.get().dataDir.resolve("forge-app.pem"))
            .withApiBaseUrl(URI.create(forge + "/api/v3")).withGitHost(URI.create(forge)),
        new OkHttpClient(), Clock.systemUTC());
    GitRun direct = direct(token(true));
    direct.in(app.dir(), "clone", "-q", app.get().forgeUrl(REPO), "seed").ok();
    seed = app.dir().resolve("seed");
    write(seed, CI, "on: push\n");
    commitAll(direct, seed, "add ci");
    direct.in(seed, "push", "-q", "origin", "HEAD:main").ok();
    direct.in(seed, "checkout", "-q", "-b", "ci-update").ok();
    write(seed, CI, "on: [push, pull_request]\n");
    commitAll(direct, seed, "widen ci");
    direct.in(seed, "push", "-q", "origin", "ci-update").ok();
  }

  @Test
  void theForgeRefusesAWorkflowChangeWithoutTheWorkflowsPermissionInGitHubsWords()
      throws Exception {
    GitRun withoutWorkflows = direct(token(false));
    Path work = clone(withoutWorkflows, "direct");
    write(work, ".github/workflows/x.yml", "on: push\n");
    commitAll(withoutWorkflows, work, "add x");

    GitRun.Result r = withoutWorkflows.in(work, "push", "origin", "HEAD:direct").failed();

    assertThat(r.stderr()).contains("! [remote rejected] HEAD -> direct (" + FORGE_REFUSAL
        + " `.github/workflows/x.yml` without `workflows` permission)");
    assertThat(ForgeRefs.ref(app.get(), REPO, "refs/heads/direct")).isNull();
    direct(token(true)).in(work, "push", "-q", "origin", "HEAD:direct").ok();
    assertThat(ForgeRefs.ref(app.get(), REPO, "refs/heads/direct")).isNotNull();
  }

  @Test
  void withoutPushWorkflowsEveryWayOfChangingAWorkflowIsRefusedByTheRulesAndNothingMoves()
      throws Exception {
    RunClone clone = runClone("{\"push\": \"allow\"}", "deny");
    JsonNode run = clone.run();
    GitRun git = clone.git();
    Path work = clone.work();
    String refused = "(Control Center policy: pushing a change to CI workflows is denied"
        + " (push-workflows): ";

    write(work, ".github/workflows/new.yml", "on: push\n");
    commitAll(git, work, "add a workflow");
    assertRefused(git, work, "HEAD:added", refused + ".github/workflows/new.yml)");

    git.in(work, "reset", "-q", "--hard", "origin/main").ok();
    write(work, CI, "on: workflow_dispatch\n");
    commitAll(git, work, "edit ci");
    assertRefused(git, work, "HEAD:edited", refused + CI + ")");

    git.in(work, "reset", "-q", "--hard", "origin/main").ok();
    git.in(work, "mv", CI, "ci.yml").ok();
    commitAll(git, work, "move ci out");
    assertRefused(git, work, "HEAD:moved", refused + CI + ")");

    git.in(work, "reset", "-q", "--hard", "origin/main").ok();
    git.in(work, "rm", "-q", CI).ok();
    commitAll(git, work, "remove ci");
    assertRefused(git, work, "HEAD:removed", refused + CI + ")");

    // A merge bringing in a branch's workflow change, which is already upstream.
    git.in(work, "reset", "-q", "--hard", "origin/main").ok();
    write(work, "notes.txt", "notes\n");
    commitAll(git, work, "notes");
    git.in(work, "merge", "-q", "--no-edit", "origin/ci-update").ok();
    assertRefused(git, work, "HEAD:merged", refused + CI + ")");

    // No new commit at all: main moved onto the branch upstream has. GitHub's own check, and
    // the forge's, look at new commits only; the gateway compares what the ref held.
    assertRefused(git, work, "origin/ci-update:main", refused + CI + ")");

    git.in(work, "reset", "-q", "--hard", "origin/main").ok();
    write(work, ".github/workflows/release.yml", "on: push\n");
    commitAll(git, work, "release workflow");
    git.in(work, "tag", "-a", "-m", "v1", "v1").ok();
    assertRefused(git, work, "v1", refused + ".github/workflows/release.yml)");

    git.in(work, "reset", "-q", "--hard", "origin/main").ok();
    write(work, "README.md", "no workflow here\n");
    commitAll(git, work, "docs");
    git.in(work, "push", "-q", "origin", "HEAD:docs").ok();
    assertThat(ForgeRefs.ref(app.get(), REPO, "refs/heads/docs")).isEqualTo(head(git, work));

    JsonNode audit = app.get().control()
        .get("/v1/audit?decision=denied&runId=" + run.get("runId").asText()).body();
    assertThat(audit.get("decisions")).hasSize(7).allSatisfy(d -> {
      assertThat(d.get("code").asText()).isEqualTo("RULE_DENIED");
      assertThat(d.get("rule").asText()).isEqualTo("push-workflows -> deny");
    });
  }

  @Test
  void aRunAllowedToChangeWorkflowsPushesThemWithATokenTheForgeAccepts() throws Exception {
    RunClone clone = runClone("{\"push\": \"allow\", \"push-workflows\": \"allow\"}", "allow");
    JsonNode run = clone.run();
    GitRun git = clone.git();
    Path work = clone.work();

    write(work, ".github/workflows/lint.yml", "on: push\n");
    commitAll(git, work, "add lint");
    git.in(work, "push", "-q", "origin", "HEAD:lint").ok();
    assertThat(ForgeRefs.ref(app.get(), REPO, "refs/heads/lint")).isEqualTo(head(git, work));

    git.in(work, "rm", "-q", CI).ok();
    commitAll(git, work, "remove ci");
    git.in(work, "push", "-q", "origin", "HEAD:no-ci").ok();
    assertThat(ForgeRefs.ref(app.get(), REPO, "refs/heads/no-ci")).isEqualTo(head(git, work));

    JsonNode audit = app.get().control()
        .get("/v1/audit?decision=allowed&runId=" + run.get("runId").asText()).body();
    assertThat(audit.get("decisions")).hasSize(2).allSatisfy(d -> assertThat(
        d.get("rule").asText()).isEqualTo("push -> allow and push-workflows -> allow"));
  }

  @Test
  void aWorkflowChangeThatNeedsApprovalIsRefusedWhenNobodyCanAnswer() throws Exception {
    RunClone clone = runClone("{\"push\": \"allow\", \"push-workflows\": \"ask\"}", "ask");
    GitRun git = clone.git();
    Path work = clone.work();
    write(work, CI, "on: schedule\n");
    commitAll(git, work, "edit ci");

    GitRun.Result r = git.in(work, "push", "origin", "HEAD:asked").failed();

    assertThat(r.stderr()).contains("(Control Center policy: pushing a change to CI workflows needs"
        + " approval (push-workflows): .github/workflows/ci.yml (no approver is connected))");
    assertThat(r.stderr()).doesNotContain(FORGE_REFUSAL);
    assertThat(ForgeRefs.ref(app.get(), REPO, "refs/heads/asked")).isNull();
  }

  private void assertRefused(GitRun git, Path work, String refspec, String why)
      throws Exception {
    String dst = refspec.substring(refspec.indexOf(':') + 1);
    String ref = dst.startsWith("v") ? "refs/tags/" + dst : "refs/heads/" + dst;
    ObjectId before = ForgeRefs.ref(app.get(), REPO, ref);
    GitRun.Result r = git.in(work, "push", "origin", refspec).failed();
    assertThat(r.stderr()).as(refspec).contains(why).doesNotContain(FORGE_REFUSAL);
    assertThat(ForgeRefs.ref(app.get(), REPO, ref)).as(refspec).isEqualTo(before);
  }

  private String token(boolean workflows) throws Exception {
    InstallationToken t = forgeApp.issueWriteToken(RepoSlug.parse(REPO), OptionalLong.empty(),
        workflows);
    return t.token().reveal();
  }

  /** git without a run: a credential helper that answers with {@code token}. */
  private GitRun direct(String token) throws Exception {
    Path config = app.dir().resolve("direct.gitconfig");
    Files.writeString(config, "[credential]\n\thelper = \"!f() { test \\\"$1\\\" = get || exit 0;"
        + " echo username=x-access-token; echo password=$GH_TOKEN; }; f\"\n");
    return new GitRun(Files.createDirectories(app.dir().resolve("home-direct")),
        Map.of("GIT_CONFIG_GLOBAL", config.toString(), "GH_TOKEN", token));
  }

  /** A run of acme/widget in chat mode with these rules, and its clone in {@code name}. */
  private record RunClone(JsonNode run, GitRun git, Path work) {}

  private RunClone runClone(String rules, String name) throws Exception {
    JsonNode run = app.get().createRun("{\"workspaceId\": \"ws-1\", \"mode\": \"chat\","
        + " \"repository\": \"acme/widget\", \"rules\": " + rules + "}");
    GitRun git = new GitRun(Files.createDirectories(app.dir().resolve("home-" + name)),
        ForgeRefs.env(run));
    git.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", name).ok();
    return new RunClone(run, git, app.dir().resolve(name));
  }

  private Path clone(GitRun git, String name) throws Exception {
    git.in(app.dir(), "clone", "-q", app.get().forgeUrl(REPO), name).ok();
    return app.dir().resolve(name);
  }

  private void write(Path work, String file, String content) throws Exception {
    Path p = work.resolve(file);
    Files.createDirectories(p.getParent());
    Files.writeString(p, content);
  }

  private void commitAll(GitRun git, Path work, String message) throws Exception {
    git.in(work, "add", "-A").ok();
    git.in(work, "commit", "-q", "-m", message).ok();
  }

  private ObjectId head(GitRun git, Path work) throws Exception {
    return ObjectId.fromString(git.in(work, "rev-parse", "HEAD").ok().stdout().strip());
  }
}
