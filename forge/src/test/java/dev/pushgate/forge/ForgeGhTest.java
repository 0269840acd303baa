package dev.pushgate.forge;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code gh} (Debian's package {@code gh}) against the forge's stand-in of GitHub's API:
 * with {@code GH_HOST=github.localhost} it sends REST to {@code http://api.github.localhost/} and
 * GraphQL to {@code http://api.github.localhost/graphql}, here through {@code HTTP_PROXY} to the
 * test's forge, which serves that host at its API base (see {@link TestForge.GhApiHost}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ForgeGhTest {
  private Path dir;
  private TestForge forge;
  private ForgeRepositories.ForgeRepo widget;
  private String token;
  private Path ghBinary;

  @BeforeAll
  void start(@TempDir Path tempDir) throws Exception {
    dir = tempDir;
    ghBinary = onPath("gh");
    if (ghBinary == null && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI needs Debian's gh (.ci/run installs it): no gh on PATH");
    }
    Assumptions.assumeTrue(ghBinary != null, "apt-get install gh to run this test");
    forge = new TestForge(dir);
    widget = forge.create("acme/widget");
    token = forge.token(
        "{\"contents\":\"write\",\"pull_requests\":\"write\",\"issues\":\"write\"}", "widget");
  }

  @AfterAll
  void stop() throws Exception {
    if (forge != null) {
      forge.close();
    }
  }

  private Path onPath(String name) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path p = Path.of(d.isEmpty() ? "." : d, name);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }

  record Result(int exit, String out, String err) {
    Result ok() {
      assertThat(exit).as("gh failed: " + err + out).isZero();
      return this;
    }
  }

  private Result ghAs(String tokenToUse, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(ghBinary.toString()));
    cmd.addAll(List.of(args));
    Path work = Files.createTempDirectory(dir, "gh");
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(work.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectOutput(work.resolve("out").toFile()).redirectError(work.resolve("err").toFile());
    Map<String, String> env = pb.environment();
    for (String v : List.of("GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN",
        "HTTPS_PROXY", "https_proxy", "http_proxy", "NO_PROXY", "no_proxy", "GH_REPO")) {
      env.remove(v);
    }
    env.put("GH_HOST", "github.localhost");
    env.put("GH_TOKEN", tokenToUse);
    env.put("HTTP_PROXY", "http://127.0.0.1:" + forge.port());
    env.put("GH_CONFIG_DIR", work.resolve("config").toString());
    env.put("GH_NO_UPDATE_NOTIFIER", "1");
    env.put("GH_PROMPT_DISABLED", "1");
    env.put("NO_COLOR", "1");
    Process p = pb.start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("gh " + String.join(" ", args) + " did not end in 60 s");
    }
    return new Result(p.exitValue(), Files.readString(work.resolve("out")),
        Files.readString(work.resolve("err")));
  }

  private Result gh(String... args) throws Exception {
    return ghAs(token, args);
  }

  @Test
  void prCreateListViewCommentAndMergeWorkAsOnGitHub() throws Exception {
    String head = forge.branch(widget, "feature", "feature.txt", "feature\n");
    String base = forge.tip(widget, "main");

    Result created = gh("pr", "create", "-R", "acme/widget", "--head", "feature", "--base",
        "main", "--title", "Add feature", "--body", "Why it matters").ok();
    String url = created.out().strip();
    assertThat(url).matches(".*/acme/widget/pull/[0-9]+");
    String n = url.substring(url.lastIndexOf('/') + 1);

    Result list = gh("pr", "list", "-R", "acme/widget", "--head", "feature").ok();
    assertThat(list.out()).startsWith(n + "\tAdd feature\tfeature\tOPEN\t");

    Result view = gh("pr", "view", n, "-R", "acme/widget").ok();
    assertThat(view.out()).contains("title:\tAdd feature").contains("state:\tOPEN")
        .contains("Why it matters");

    gh("pr", "comment", n, "-R", "acme/widget", "--body", "Looks right").ok();
    assertThat(gh("pr", "view", n, "-R", "acme/widget", "--comments").ok().out())
        .contains("Looks right");

    gh("pr", "merge", n, "-R", "acme/widget", "--merge").ok();
    String merged = forge.tip(widget, "main");
    try (Repository git = ForgeCommits.open(widget); RevWalk walk = new RevWalk(git)) {
      RevCommit c = walk.parseCommit(git.resolve(merged));
      assertThat(c.getParents()).extracting(p -> p.name()).containsExactly(base, head);
    }
    assertThat(gh("pr", "list", "-R", "acme/widget", "--state", "merged", "--head", "feature")
        .ok().out()).startsWith(n + "\tAdd feature\tfeature\tMERGED\t");
  }

  @Test
  void aSquashMergeWithDeleteBranchMakesOneCommitAndDeletesTheHead() throws Exception {
    forge.branch(widget, "squashed", "squash.txt", "s\n");
    String base = forge.tip(widget, "main");
    gh("pr", "create", "-R", "acme/widget", "--head", "squashed", "--base", "main",
        "--title", "Squash me", "--body", "b").ok();

    gh("pr", "merge", "squashed", "-R", "acme/widget", "--squash", "--delete-branch").ok();

    try (Repository git = ForgeCommits.open(widget); RevWalk walk = new RevWalk(git)) {
      RevCommit c = walk.parseCommit(git.resolve("main"));
      assertThat(c.getParents()).extracting(p -> p.name()).containsExactly(base);
      assertThat(ForgeCommits.file(git, "main", "squash.txt")).isPresent();
    }
    assertThat(forge.tip(widget, "squashed")).isNull();
  }

  @Test
  void prCreateFromABranchTheForgeDoesNotHaveFailsWithGitHubsMessage() throws Exception {
    Result r = gh("pr", "create", "-R", "acme/widget", "--head", "no-such-branch", "--base",
        "main", "--title", "t", "--body", "b");

    assertThat(r.exit()).isNotZero();
    assertThat(r.err()).contains("Head sha can't be blank, Head ref must be a branch");
  }

  @Test
  void aGraphqlMergeThroughGhApiMerges() throws Exception {
    String head = forge.branch(widget, "by-graphql", "graphql.txt", "g\n");
    gh("pr", "create", "-R", "acme/widget", "--head", "by-graphql", "--base", "main",
        "--title", "By GraphQL", "--body", "b").ok();
    String id = gh("pr", "view", "by-graphql", "-R", "acme/widget", "--json", "id", "-q", ".id")
        .ok().out().strip();

    Result r = gh("api", "graphql", "-f", "query=mutation{mergePullRequest(input:{pullRequestId:\""
        + id + "\"}){pullRequest{number state}}}").ok();

    assertThat(r.out()).contains("\"state\":\"MERGED\"");
    try (Repository git = ForgeCommits.open(widget); RevWalk walk = new RevWalk(git)) {
      RevCommit c = walk.parseCommit(git.resolve("main"));
      assertThat(c.getParentCount()).isEqualTo(2);
      assertThat(c.getParent(1).name()).isEqualTo(head);
    }
  }

  @Test
  void aContentsWriteThroughGhApiCommitsToTheBranch() throws Exception {
    String content = Base64.getEncoder().encodeToString("from gh\n".getBytes(StandardCharsets.UTF_8));

    Result r = gh("api", "-X", "PUT", "repos/acme/widget/contents/docs/from-gh.md",
        "-f", "message=Write from gh", "-f", "content=" + content, "-f", "branch=main").ok();

    JsonNode body = TestForge.JSON.readTree(r.out());
    assertThat(forge.tip(widget, "main")).isEqualTo(body.at("/commit/sha").asText());
    try (Repository git = ForgeCommits.open(widget)) {
      assertThat(new String(ForgeCommits.file(git, "main", "docs/from-gh.md").get().content(),
          StandardCharsets.UTF_8)).isEqualTo("from gh\n");
    }
    Result read = gh("api", "repos/acme/widget/contents/docs/from-gh.md", "-q", ".sha").ok();
    assertThat(read.out().strip()).isEqualTo(body.at("/content/sha").asText());
  }

  @Test
  void anIssueCommentThroughGhApiIsListed() throws Exception {
    forge.branch(widget, "commented", "c.txt", "c\n");
    String url = gh("pr", "create", "-R", "acme/widget", "--head", "commented", "--base", "main",
        "--title", "Commented", "--body", "b").ok().out().strip();
    String n = url.substring(url.lastIndexOf('/') + 1);

    gh("api", "repos/acme/widget/issues/" + n + "/comments", "-f", "body=via REST").ok();

    assertThat(gh("api", "repos/acme/widget/issues/" + n + "/comments", "-q", ".[].body").ok()
        .out().strip()).isEqualTo("via REST");
  }

  @Test
  void aTokenWithoutContentsWriteCannotMergeAndGhSaysWhy() throws Exception {
    forge.branch(widget, "read-only", "ro.txt", "ro\n");
    String readToken =
        forge.token("{\"contents\":\"read\",\"pull_requests\":\"write\"}", "widget");
    ghAs(readToken, "pr", "create", "-R", "acme/widget", "--head", "read-only", "--base", "main",
        "--title", "Read only", "--body", "b").ok();
    String main = forge.tip(widget, "main");

    Result r = ghAs(readToken, "pr", "merge", "read-only", "-R", "acme/widget", "--merge");

    assertThat(r.exit()).isNotZero();
    assertThat(r.err()).contains("Resource not accessible by integration");
    assertThat(forge.tip(widget, "main")).isEqualTo(main);
  }

  @Test
  void theForgeRecordsTheTokenGhPresented() throws Exception {
    gh("pr", "list", "-R", "acme/widget").ok();

    JsonNode log = TestForge.json(forge.send("GET", "/forge/api/v3/_forge/requests", null, null));

    JsonNode last = log.get(log.size() - 1);
    assertThat(last.get("path").asText()).isEqualTo("/graphql");
    assertThat(last.get("credential").asText()).isEqualTo("installation-token");
    assertThat(last.get("token_sha256").asText()).isEqualTo(ForgeTokens.hash(token));
  }
}
