package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.RunningAppliance;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 16 end to end with the real {@code gh} CLI inside {@code pushgate exec}'s bubblewrap
 * sandbox: the run holds only a sentinel, {@code gh} reaches {@code https://api.github.com} through
 * the run's proxy and the run's boundary, which judges each call by the run's rules and sends the
 * allowed ones, with the real installation token, to the local forge standing in for GitHub.
 */
class GitHubCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** gh as a headless agent runs it: no prompts, no update checks, its config in the workdir. */
  /** Opens a pull request of the run's branch; prints create=EXIT (its output in create.out). */
  private static final String PR_CREATE = """
      gh pr create -R acme/widget --head "$BRANCH" --base main --title "Add $BRANCH" \
        --body "from the agent" > create.out 2>&1; echo "create=$?"
      """;

  private static final String GH_PRELUDE = """
      set -u
      export GH_PROMPT_DISABLED=1 GH_NO_UPDATE_NOTIFIER=1 NO_COLOR=1 GH_CONFIG_DIR="$PWD/gh-config"
      printf %s "$GH_TOKEN" > sentinel.txt
      git clone -q https://github.com/acme/widget.git widget
      cd widget
      git checkout -q -b "$BRANCH"
      echo "$BRANCH" > "$BRANCH.txt"
      git add . && git -c user.name=agent -c user.email=agent@example.com commit -qm "$BRANCH"
      git push -q origin "$BRANCH"
      cd ..
      """;

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving()
      .forSandboxedRuns().withRepos("acme/widget", "acme/other");

  @BeforeAll
  static void start() throws Exception {
    requireGhAndBwrap();
  }

  /** Skips the test class without bubblewrap or gh; on CI, which installs both, fails instead. */
  static void requireGhAndBwrap() {
    ExecTest.requireBwrap();
    requireGh();
  }

  /** Skips without gh, or fails in CI, whose .ci/run installs it. */
  static void requireGh() {
    boolean gh = new File("/usr/bin/gh").canExecute();
    if (!gh && "true".equals(System.getenv("CI"))) {
      fail("gh is not installed: .ci/run installs Debian's package gh");
    }
    Assumptions.assumeTrue(gh, "gh is not installed");
  }

  @Test
  void allowedPullRequestOpensWhileMergesMainAndOtherRepositoriesAreRefusedAndNoRealTokenIsHeld()
      throws Exception {
    PushgateExec.Result exec = exec("allowed", """
        open-pull-request: allow
        push:
          - refs: refs/heads/main
            decision: deny
            reason: push to main is denied
          - refs: "refs/heads/**"
            decision: allow
        """, GH_PRELUDE + PR_CREATE + """
        gh pr list -R acme/widget > list.out 2>&1; echo "list=$?"
        gh pr merge 1 -R acme/widget --merge > merge.out 2>&1; echo "merge=$?"
        gh pr status -R acme/widget > status.out 2>&1; echo "status=$?"
        id=$(gh api repos/acme/widget/pulls/1 --jq .node_id)
        gh api graphql -f query="mutation { mergePullRequest(input: {pullRequestId: \\"$id\\"}) \
          { pullRequest { number } } }" > graphql-merge.out 2>&1; echo "graphql-merge=$?"
        gh api -X PUT repos/acme/widget/contents/notes.txt -f message=notes \
          -f content=aGVsbG8K -f branch=main > contents.out 2>&1; echo "contents-main=$?"
        gh api repos/acme/other > other.out 2>&1; echo "other-repo=$?"
        curl -sS -H "Authorization: token $GH_TOKEN" https://api.github.com/repos/acme/other/pulls \
          > curl-other.out 2>&1; echo "curl-other=$?"
        # Every token-like string any process, file or variable of the sandbox holds.
        { cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'; env; \
          grep -rhoa 'gh[pousr]_[A-Za-z0-9_]*' "$PWD" "$HOME" /tmp 2>/dev/null; } \
          | grep -o 'gh[pousr]_[A-Za-z0-9_]*' | sort -u > held.txt
        for f in *.out; do echo "== $f"; cat "$f"; done
        """);
    String out = exec.stdout();
    assertThat(exec.exit()).as(exec.stderr() + out).isZero();
    assertThat(out).contains("create=0", "list=0", "merge=1", "graphql-merge=1",
        "contents-main=1", "other-repo=1");
    assertThat(section(out, "create.out")).contains("/acme/widget/pull/1");
    assertThat(section(out, "list.out")).contains("Add allowed");
    assertThat(section(out, "merge.out")).contains("Control Center policy:")
        .contains("a person merges it on GitHub");
    // Walk 30: gh pr status searches, which stays denied; the refusal names what works.
    assertThat(out).contains("status=1");
    assertThat(section(out, "status.out")).contains("the GraphQL field search reads outside")
        .contains("use gh pr list, gh pr view or gh issue list");
    assertThat(section(out, "graphql-merge.out")).contains("Control Center policy:");
    assertThat(section(out,
        "contents.out")).contains("Control Center policy: push to main is denied");
    assertThat(section(out, "other.out")).contains("Control Center policy:");
    assertThat(section(out, "curl-other.out")).contains("Control Center policy:");

    // The forge saw the pull request opened, nothing merged, main untouched.
    JsonNode pull = forgePulls().stream().filter(p -> p.get("head").asText().equals("allowed"))
        .findFirst().orElseThrow(() -> new AssertionError("the forge holds no pull request"));
    assertThat(pull.get("state").asText()).isEqualTo("open");

    // The upstream saw real installation tokens, never the sentinel; the sandbox held only it.
    String sentinel = Files.readString(workdir("allowed").resolve("sentinel.txt")).strip();
    assertThat(sentinel).startsWith("ghs_pushgate");
    JsonNode seen = forgeApi("/_forge/requests");
    List<JsonNode> api = new ArrayList<>();
    seen.forEach(r -> {
      if (!r.get("path").asText().startsWith("git ")) {
        api.add(r);
      }
    });
    assertThat(api).isNotEmpty().allSatisfy(r -> {
      assertThat(r.get("credential").asText()).isEqualTo("installation-token");
      assertThat(r.get("token_sha256").asText()).isNotEqualTo(sha256(sentinel));
    });
    Set<String> held = new HashSet<>(Files.readAllLines(workdir("allowed").resolve("held.txt")));
    held.remove("");
    assertThat(held).containsOnly(sentinel);
    String runId = exec.runId();
    String audit = RunningAppliance.cli("audit", "--run", runId, "--decisions", "--data-dir",
        app.get().dataDir.toString());
    // API calls are records of their own type, not pushes with a method in the ref column.
    assertThat(audit).contains("api-call open-pull-request", "api-call publish-review-or-merge",
        "merging a pull request is denied in every mode, whatever the rules",
        "PUT api.github.com/repos/acme/widget/contents/notes.txt",
        "acme/other is not one of this run's repositories").doesNotContain(sentinel)
        .doesNotContain("api:");
  }

  @Test
  void deniedPullRequestIsRefusedWithTheRulesReasonInGhsOutput() throws Exception {
    PushgateExec.Result exec = createPullRequest("denied", "deny");
    assertThat(exec.stdout()).contains("create=1", "Control Center policy:");
    assertThat(forgePullsOf("denied")).isZero();
  }

  @Test
  void askedPullRequestWaitsForTheApproverAndOpensWhenAllowed() throws Exception {
    // exec's approver allows every question: the branch push's, then the pull request's.
    PushgateExec.Result exec = createPullRequest("asked", "ask");
    assertThat(exec.stdout()).contains("create=0", "/acme/widget/pull/");
    assertThat(forgePullsOf("asked")).isEqualTo(1);
    JsonNode audit = app.get().control().get("/v1/audit?runId=" + exec.runId()).body();
    assertThat(audit.get("decisions").toString()).contains("approved by alice");
  }

  private static String section(String out, String file) {
    int start = out.indexOf("== " + file + "\n");
    assertThat(start).as("no section " + file + " in:\n" + out).isNotNegative();
    int end = out.indexOf("\n== ", start + 1);
    return end < 0 ? out.substring(start) : out.substring(start, end);
  }

  private static int forgePullsOf(String branch) throws Exception {
    int n = 0;
    for (JsonNode p : forgePulls()) {
      if (p.get("head").asText().equals(branch)) {
        n++;
      }
    }
    return n;
  }

  /** The pull requests the forge holds for acme/widget, read off its repository. */
  private static List<JsonNode> forgePulls() throws Exception {
    Path book = app.get().forgeRepo("acme/widget").resolve("pushgate-pulls.json");
    List<JsonNode> pulls = new ArrayList<>();
    if (Files.exists(book)) {
      JSON.readTree(book.toFile()).get("pulls").forEach(pulls::add);
    }
    return pulls;
  }

  /** What the forge's loopback request log says it was sent (a test aid of the local forge). */
  private static JsonNode forgeApi(String path) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create(app.get().base() + "/forge/api/v3"
                + path)).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private static String sha256(String s) throws Exception {
    return HexFormat.of().formatHex(
        MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
  }

  private static Path workdir(String name) {
    return app.dir().resolve("work-" + name);
  }

  /**
   * {@code gh pr create} on {@code branch} under {@code open-pull-request: decision}, pushes
   * allowed; exec itself ended well, whatever gh answered (create.out is printed).
   */
  private static PushgateExec.Result createPullRequest(String branch, String decision)
      throws Exception {
    PushgateExec.Result exec = exec(branch, "open-pull-request: " + decision + "\npush: allow\n",
        GH_PRELUDE + PR_CREATE + "cat create.out\n");
    assertThat(exec.exit()).as(exec.stderr()).isZero();
    return exec;
  }

  private static PushgateExec.Result exec(String branch, String rules, String script)
      throws Exception {
    Path work = Files.createDirectories(workdir(branch));
    Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path rulesFile = Files.writeString(app.dir().resolve("rules-" + branch + ".yaml"),
        "denyWriteGlobs: []\n" + rules);
    // A sandboxed chat run's pushes ask, as the hook asks without a sandbox (issue 28): every
    // question is allowed, so what a test sees refused is refused by a rule.
    try (AllowingApprover approver = AllowingApprover.connect(app.get())) {
      return PushgateExec.on(app.get().dataDir, app.dir().resolve("home")).run(work,
          Map.of("BRANCH", branch), "--workdir", work.toString(), "--rules",
          rulesFile.toString(), "--pass-env", "BRANCH", "--", "sh", "-c", script);
    }
  }
}
