package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.FakeSecrets;
import dev.pushgate.testkit.RunningAppliance;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Issue 28 end to end: every GitHub API door that can carry a file or a message, driven by the
 * real {@code gh} and curl inside {@code pushgate exec}, is judged by the push path's content rules
 * and refused in a push's words; and with every push rule on deny, no git-data object write
 * reaches the forge. What the forge was sent is read off its own request log.
 */
class ApiWriteContentTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String POLICY = "Control Center policy: ";
  private static final String PAT = " holds a GitHub personal access token (rule \"no secrets\","
      + " gitleaks id github-pat)";
  private static final String KEY = " holds a private key (rule \"no secrets\", gitleaks id"
      + " private-key)";
  private static final String GH = """
      set -u
      export GH_PROMPT_DISABLED=1 GH_NO_UPDATE_NOTIFIER=1 NO_COLOR=1 GH_CONFIG_DIR="$PWD/gh-config"
      call() { name=$1; shift; "$@" > "$name.out" 2>&1; echo "$name=$?"; }
      """;

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving()
      .forSandboxedRuns().withRepos("acme/widget");

  @BeforeAll
  static void start() throws Exception {
    GitHubCliTest.requireGhAndBwrap();
  }

  @Test
  void everyWriteDoorCarryingAFileOrAMessageIsRefusedInThePushsWords() throws Exception {
    int before = forgeApiRequests().size(); // the forge's log is shared by this class's tests
    Path work = workdir("content");
    String pat = "import os\nTOKEN = \"" + FakeSecrets.githubPat() + "\"\n";
    String pem = FakeSecrets.privateKey();
    String cob = "mutation($input: CreateCommitOnBranchInput!) { createCommitOnBranch(input:"
        + " $input) { commit { url } } }";
    Map<String, Object> body = new java.util.LinkedHashMap<>();
    body.put("put-pat", Map.of("message", "app", "branch", "main", "content", b64(pat)));
    body.put("put-pem", Map.of("message", "key", "branch", "main", "content", b64(pem)));
    for (Map.Entry<String, String> f : Map.of("env", "config/.env", "pat", "app.py", "pem",
        "deploy/key.txt").entrySet()) {
      String content = f.getKey().equals("env") ? "A=1\n" : f.getKey().equals("pat") ? pat : pem;
      body.put("cob-" + f.getKey(), Map.of("query", cob, "variables", Map.of("input", Map.of(
          "branch", Map.of("repositoryNameWithOwner", "acme/widget", "branchName", "main"),
          "expectedHeadOid", "0".repeat(40), "message", Map.of("headline", "add"),
          "fileChanges", Map.of("additions", List.of(Map.of("path", f.getValue(),
              "contents", b64(content))))))));
    }
    body.put("blob-pat", Map.of("content", pat, "encoding", "utf-8"));
    body.put("blob-pem", Map.of("content", b64(pem), "encoding", "base64"));
    body.put("tree-env", Map.of("tree", List.of(Map.of("path", "config/.env", "mode", "100644",
        "type", "blob", "content", "A=1\n"))));
    body.put("tree-pat", Map.of("tree", List.of(Map.of("path", "app.py", "mode", "100644",
        "type", "blob", "content", pat))));
    body.put("commit-pat", Map.of("message", "fix\n\n" + FakeSecrets.githubPat(),
        "tree", "4b825dc642cb6eb9a060e54bf8d69288fbee4904"));
    body.put("tag-pat", Map.of("tag", "v1", "message", "release " + FakeSecrets.githubPat(),
        "object", "4b825dc642cb6eb9a060e54bf8d69288fbee4904", "type", "tree"));
    for (Map.Entry<String, Object> b : body.entrySet()) {
      Files.writeString(work.resolve(b.getKey() + ".json"), JSON.writeValueAsString(b.getValue()));
    }
    String api = "gh api -X PUT repos/acme/widget/contents/";
    PushgateExec.Result exec;
    // A sandboxed chat run's writes ask, as the hook asks without a sandbox (issue 28): allowed,
    // so what is refused here is refused by the content rules.
    try (AllowingApprover approver = AllowingApprover.connect(app.get())) {
      exec = exec(work, "push: allow\n", GH + "call put-env " + api
          + "config/.env -f message=config -f branch=main -f content=\"$(printf 'A=1\\n' | base64)\"\n"
          + "call put-pat " + api + "app.py --input put-pat.json\n"
          + "call put-pem " + api + "deploy/key.txt --input put-pem.json\n"
          + "call put-ok " + api + "notes.txt -f message=notes -f branch=main -f content=aGVsbG8K\n"
          + "for f in cob-env cob-pat cob-pem; do call $f gh api graphql --input $f.json; done\n"
          + "for f in blob-pat blob-pem; do call $f gh api repos/acme/widget/git/blobs --input $f.json;"
          + " done\n"
          + "for f in tree-env tree-pat; do call $f gh api repos/acme/widget/git/trees --input $f.json;"
          + " done\n"
          + "call commit-pat gh api repos/acme/widget/git/commits --input commit-pat.json\n"
          + "call tag-pat gh api repos/acme/widget/git/tags --input tag-pat.json\n"
          + "call curl-blob curl -sS -X POST -H \"Authorization: token $GH_TOKEN\""
          + " --data-binary @blob-pat.json https://api.github.com/repos/acme/widget/git/blobs\n"
          + "for f in *.out; do echo \"== $f\"; cat \"$f\"; echo; done\n");
    }
    String out = exec.stdout();
    assertThat(exec.exit()).as(exec.stderr() + out).isZero();

    assertThat(out).as(out).contains("put-ok=0", "put-env=1", "put-pat=1", "put-pem=1",
        "cob-env=1", "cob-pat=1", "cob-pem=1", "blob-pat=1", "blob-pem=1", "tree-env=1",
        "tree-pat=1", "commit-pat=1", "tag-pat=1", "curl-blob=0");
    assertThat(section(out, "put-env")).contains(POLICY
        + "config/.env matches \"no secret files\"");
    assertThat(section(out, "put-pat")).contains(POLICY + "app.py:2" + PAT);
    assertThat(section(out, "put-pem")).contains(POLICY + "deploy/key.txt:1" + KEY);
    assertThat(section(out, "cob-env")).contains(POLICY
        + "config/.env matches \"no secret files\"");
    assertThat(section(out, "cob-pat")).contains(POLICY + "app.py:2" + PAT);
    assertThat(section(out, "cob-pem")).contains(POLICY + "deploy/key.txt:1" + KEY);
    assertThat(section(out, "blob-pat")).containsPattern("blob [0-9a-f]{7}:2 holds a GitHub");
    assertThat(section(out, "blob-pem")).contains(KEY);
    assertThat(section(out, "curl-blob")).contains("\"message\":\"" + POLICY + "blob ");
    assertThat(section(out, "tree-env")).contains(POLICY
        + "config/.env matches \"no secret files\"");
    assertThat(section(out, "tree-pat")).contains(POLICY + "app.py:2" + PAT);
    assertThat(section(out, "commit-pat")).contains(POLICY + "the commit message" + PAT);
    assertThat(section(out, "tag-pat")).contains(POLICY + "the tag message" + PAT);

    // The allowed write reached the forge; none of the refused ones did.
    List<String> sent = forgeApiRequests().subList(before, forgeApiRequests().size());
    assertThat(sent).contains("PUT /repos/acme/widget/contents/notes.txt");
    assertThat(sent).noneMatch(r -> r.contains("/git/") || r.contains("graphql")
        || r.contains("contents/") && !r.contains("contents/notes.txt"));
    String audit = RunningAppliance.cli("audit", "--run", exec.runId(), "--decisions",
        "--data-dir", app.get().dataDir.toString());
    assertThat(audit).contains("config/.env matches \"no secret files\"")
        .doesNotContain(FakeSecrets.githubPat());
  }

  /**
   * A ref moved through the API to a commit the boundary never saw (made on GitHub by other means:
   * here written straight into the forge's repository, reachable from no ref, as a commit made
   * through the git-data API or left by a deleted branch is) is judged as a push of that commit:
   * fetched and refused in the push's words at every door, while a clean one lands.
   */
  @Test
  void aRefMovedToACommitTheBoundaryNeverSawIsJudgedAsAPushOfIt() throws Exception {
    Path work = workdir("moves");
    Path forge = app.get().forgeRepo("acme/widget");
    String main = gitOut(forge, "rev-parse", "refs/heads/main");
    String leak = commitOnForge(forge, main, "app.py", "import os\nTOKEN = \""
        + FakeSecrets.githubPat() + "\"\n");
    String clean = commitOnForge(forge, main, "notes.md", "nothing secret\n");
    Files.writeString(work.resolve("refs.json"), JSON.writeValueAsString(Map.of("query",
        "mutation($u: [RefUpdate!]!) { updateRefs(input: {repositoryId: \"R_1\", refUpdates:"
            + " $u}) { clientMutationId } }", "variables", Map.of("u", List.of(Map.of("name",
            "refs/heads/main", "beforeOid", main, "afterOid", leak))))));
    Files.writeString(work.resolve("ref.json"), JSON.writeValueAsString(Map.of("query",
        "mutation { createRef(input: {repositoryId: \"R_1\", name: \"refs/heads/leak2\", oid:"
            + " \"" + leak + "\"}) { clientMutationId } }")));
    // Every ref rule and the workflow rule allow, and the approver allows the chat mode's
    // questions: only the commit's content can refuse.
    PushgateExec.Result exec;
    try (AllowingApprover approver = AllowingApprover.connect(app.get())) {
      exec = exec(work, "push: allow\npush-workflows: allow\n", GH
          + "call rest-create gh api repos/acme/widget/git/refs -f ref=refs/heads/leak -f sha="
              + leak
          + "\ncall rest-update gh api -X PATCH repos/acme/widget/git/refs/heads/main -f sha="
              + leak
          + "\ncall curl-update curl -sS -X PATCH -H \"Authorization: token $GH_TOKEN\" -d"
          + " '{\"sha\":\"" + leak + "\",\"force\":true}'"
          + " https://api.github.com/repos/acme/widget/git/refs/heads/main"
          + "\ncall graphql-update gh api graphql --input refs.json"
          + "\ncall graphql-create gh api graphql --input ref.json"
          + "\ncall rest-clean gh api repos/acme/widget/git/refs -f ref=refs/heads/clean -f sha="
          + clean + "\nfor f in *.out; do echo \"== $f\"; cat \"$f\"; echo; done\n");
    }
    String out = exec.stdout();
    assertThat(exec.exit()).as(exec.stderr() + out).isZero();

    assertThat(out).as(out).contains("rest-create=1", "rest-update=1", "graphql-update=1",
        "graphql-create=1", "rest-clean=0");
    String refused = POLICY + "app.py:2" + PAT;
    for (String door : List.of("rest-create", "rest-update", "graphql-update",
        "graphql-create")) {
      assertThat(section(out, door)).as(door).contains(refused);
    }
    assertThat(section(out, "curl-update")).contains(JSON.writeValueAsString(refused));
    assertThat(gitOut(forge, "rev-parse", "refs/heads/main")).isEqualTo(main);
    assertThat(gitOut(forge, "for-each-ref", "--format=%(refname) %(objectname)",
        "refs/heads/")).contains("refs/heads/clean " + clean).doesNotContain(leak);
  }

  /**
   * Attack 28b: a GraphQL ref move names its repository by node id; judged allowed, it gets the
   * run's own repository's write token (the repository the judge read) and lands, where it was
   * refused as naming no repository.
   */
  @Test
  void anAllowedGraphQlRefMoveLandsWithTheRunsRepositorysToken() throws Exception {
    Path work = workdir("gql-moves");
    Path forge = app.get().forgeRepo("acme/widget");
    String main = gitOut(forge, "rev-parse", "refs/heads/main");
    String clean = commitOnForge(forge, main, "gql.md", "nothing secret either\n");
    PushgateExec.Result exec;
    try (AllowingApprover approver = AllowingApprover.connect(app.get())) {
      exec = exec(work, "push: allow\npush-workflows: allow\n", GH
          + "rid=$(gh api graphql -f query='query { repository(owner: \"acme\", name:"
          + " \"widget\") { id } }' --jq .data.repository.id)\n"
          + "call graphql-create gh api graphql -f r=\"$rid\" -f query='mutation($r: ID!) {"
          + " createRef(input: {repositoryId: $r, name: \"refs/heads/gql-created\", oid: \""
          + clean + "\"}) { clientMutationId } }'\n"
          + "call graphql-update gh api graphql -f r=\"$rid\" -f query='mutation($r: ID!) {"
          + " updateRefs(input: {repositoryId: $r, refUpdates: [{name:"
          + " \"refs/heads/gql-updated\", afterOid: \"" + clean + "\"}]}) { clientMutationId } }'"
          + "\nfor f in *.out; do echo \"== $f\"; cat \"$f\"; echo; done\n");
    }
    String out = exec.stdout();
    assertThat(exec.exit()).as(exec.stderr() + out).isZero();
    assertThat(out).as(out).contains("graphql-create=0", "graphql-update=0")
        .doesNotContain("names no repository");
    assertThat(gitOut(forge, "rev-parse", "refs/heads/gql-created")).isEqualTo(clean);
    assertThat(gitOut(forge, "rev-parse", "refs/heads/gql-updated")).isEqualTo(clean);
  }

  /**
   * Attack 28b: a fast-forward through the API onto a commit upstream already has (here on a
   * human's branch) that adds a workflow is a workflow change of that ref, as policy.md says ("the
   * ref's old tree against its new one"), and as the same update by {@code git push} is refused;
   * so is a rewind that takes a workflow away, and a GraphQL move whose {@code beforeOid} claims
   * the ref already holds the change (upstream's value is the one compared).
   */
  @Test
  void anApiFastForwardOntoAWorkflowChangeUpstreamHasIsJudgedByTheWorkflowRule()
      throws Exception {
    Path work = workdir("wf-move");
    Path forge = app.get().forgeRepo("acme/widget");
    String main = gitOut(forge, "rev-parse", "refs/heads/main");
    Path file = Files.writeString(app.dir().resolve("blob-ci.yml"), "on: push\njobs: {}\n");
    String blob = gitOut(forge, "hash-object", "-w", file.toString());
    String workflows = gitIn(forge, "100644 blob " + blob + "\tci.yml\n", "mktree");
    String github = gitIn(forge, "040000 tree " + workflows + "\tworkflows\n", "mktree");
    String tree = gitIn(forge, gitOut(forge, "ls-tree", main) + "\n040000 tree " + github
        + "\t.github\n", "mktree");
    String wf = gitIn(forge, "", "-c", "user.name=other", "-c", "user.email=o@example.com",
        "commit-tree", tree, "-p", main, "-m", "a human's workflow change");
    gitOut(forge, "update-ref", "refs/heads/human-wf", wf);
    gitOut(forge, "update-ref", "refs/heads/agent-wf", main);
    gitOut(forge, "update-ref", "refs/heads/agent-rw", wf);
    // updateRefs says the ref is already at the workflow change: upstream's value is judged.
    Files.writeString(work.resolve("refs.json"), JSON.writeValueAsString(Map.of("query",
        "mutation($u: [RefUpdate!]!) { updateRefs(input: {repositoryId: \"R_1\", refUpdates:"
            + " $u}) { clientMutationId } }", "variables", Map.of("u", List.of(Map.of("name",
            "refs/heads/agent-wf", "beforeOid", wf, "afterOid", wf))))));
    // push-workflows left out: deny.
    PushgateExec.Result exec = exec(work, "push: allow\n", GH
        + "call rest-ff gh api -X PATCH repos/acme/widget/git/refs/heads/agent-wf -f sha=" + wf
        + "\ncall graphql-ff gh api graphql --input refs.json"
        + "\ncall rest-rewind gh api -X PATCH repos/acme/widget/git/refs/heads/agent-rw"
        + " -f sha=" + main + " -F force=true"
        + "\nfor f in *.out; do echo \"== $f\"; cat \"$f\"; echo; done\n");
    String out = exec.stdout();
    assertThat(exec.exit()).as(exec.stderr() + out).isZero();
    assertThat(out).as(out).contains("rest-ff=1", "graphql-ff=1", "rest-rewind=1");
    for (String door : List.of("rest-ff", "graphql-ff", "rest-rewind")) {
      assertThat(section(out, door)).as(door).contains(
          POLICY + "pushing a change to CI workflows is denied (push-workflows)");
    }
    assertThat(gitOut(forge, "rev-parse", "refs/heads/agent-wf")).isEqualTo(main);
    assertThat(gitOut(forge, "rev-parse", "refs/heads/agent-rw")).isEqualTo(wf);
  }

  /**
   * GitHub's download links carry a token of their own (a private repository's tarball and
   * zipball redirects, a contents answer's {@code download_url}), which downloads without the
   * sentinel: the forge gives them as GitHub does, and the run reads them without it.
   */
  @Test
  void downloadLinksReachTheRunWithoutTheirTokens() throws Exception {
    String token = Forge.mintReadToken(app.get(), "acme/widget");
    HttpClient http = HttpClient.newHttpClient();
    String forgeApi = app.get().base() + "/forge/api/v3/repos/acme/widget";
    HttpResponse<String> tarball = http.send(HttpRequest.newBuilder(URI.create(forgeApi
        + "/tarball/main")).header("Authorization", "token " + token).build(),
        HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> readme = http.send(HttpRequest.newBuilder(URI.create(forgeApi
        + "/contents/README.md")).header("Authorization", "token " + token).build(),
        HttpResponse.BodyHandlers.ofString());
    // The forge, as GitHub, hands out tokened links to a caller with a real token.
    assertThat(tarball.headers().firstValue("Location").orElseThrow()).contains("?token=GHSAT0");
    assertThat(JSON.readTree(readme.body()).get("download_url").asText()).contains("?token=");

    Path work = workdir("links");
    PushgateExec.Result exec = exec(work, "", GH + """
        call tarball curl -sS -o /dev/null -D - -H "Authorization: token $GH_TOKEN" \
          https://api.github.com/repos/acme/widget/tarball/main
        call zipball curl -sS -o /dev/null -D - -H "Authorization: token $GH_TOKEN" \
          https://api.github.com/repos/acme/widget/zipball/main
        call contents gh api repos/acme/widget/contents/README.md --jq .download_url
        for f in *.out; do echo "== $f"; cat "$f"; echo; done
        """);
    String out = exec.stdout();
    assertThat(exec.exit()).as(exec.stderr() + out).isZero();
    assertThat(out).as(out).contains("tarball=0", "zipball=0", "contents=0");
    assertThat(section(out, "tarball")).containsIgnoringCase("location: ")
        .contains("/codeload/acme/widget/legacy.tar.gz/main");
    assertThat(section(out, "zipball")).contains("/codeload/acme/widget/legacy.zip/main");
    assertThat(section(out, "contents")).contains("/acme/widget/raw/main/README.md");
    assertThat(out).doesNotContain("token=", "GHSAT0");
  }

  /** A commit on {@code parent} adding {@code path}, written into the forge's repository alone. */
  private static String commitOnForge(Path repo, String parent, String path, String content)
      throws Exception {
    Path file = Files.writeString(app.dir().resolve("blob-" + path), content);
    String blob = gitOut(repo, "hash-object", "-w", file.toString());
    String listing = gitOut(repo, "ls-tree", parent);
    String tree = gitIn(repo, (listing.isEmpty() ? "" : listing + "\n") + "100644 blob " + blob
        + "\t" + path + "\n", "mktree");
    return gitIn(repo, "", "-c", "user.name=other", "-c", "user.email=o@example.com",
        "commit-tree", tree, "-p", parent, "-m", "made elsewhere");
  }

  private static String gitOut(Path repo, String... args) throws Exception {
    return gitIn(repo, "", args);
  }

  private static String gitIn(Path repo, String input, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git", "--git-dir", repo.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try (var in = p.getOutputStream()) {
      in.write(input.getBytes(StandardCharsets.UTF_8));
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(p.waitFor()).as(String.join(" ", cmd) + ": " + out).isZero();
    return out;
  }

  @Test
  void withEveryPushRuleOnDenyNoGitObjectReachesTheForge() throws Exception {
    int before = forgeApiRequests().size();
    Path work = workdir("objects");
    PushgateExec.Result exec = exec(work, "push: deny\n", GH + """
        call blob gh api repos/acme/widget/git/blobs -f content=hello
        call tree gh api repos/acme/widget/git/trees -f 'tree[][path]=a.txt' \
          -f 'tree[][mode]=100644' -f 'tree[][content]=hello'
        call commit gh api repos/acme/widget/git/commits -f message=m \
          -f tree=4b825dc642cb6eb9a060e54bf8d69288fbee4904
        call tag gh api repos/acme/widget/git/tags -f tag=v1 -f message=m \
          -f object=4b825dc642cb6eb9a060e54bf8d69288fbee4904 -f type=tree
        for f in *.out; do echo "== $f"; cat "$f"; echo; done
        """);
    String out = exec.stdout();
    assertThat(exec.exit()).as(exec.stderr() + out).isZero();
    assertThat(out).as(out).contains("blob=1", "tree=1", "commit=1", "tag=1");
    assertThat(section(out, "blob")).contains(POLICY + "creating git objects is denied:"
        + " no push rule of acme/widget lets any ref be pushed");
    assertThat(forgeApiRequests().subList(before, forgeApiRequests().size()))
        .noneMatch(r -> r.contains("/git/"));
  }

  @Test
  void aPullRequestBodyOrACommentHoldingAnAwsKeyIsRefusedAndNothingIsPosted() throws Exception {
    Path work = workdir("text");
    String aws = FakeSecrets.awsAccessKey();
    Files.writeString(work.resolve("comment.json"), JSON.writeValueAsString(Map.of("query",
        "mutation($b: String!) { addComment(input: {subjectId: \"PR_kwDO1\", body: $b})"
            + " { clientMutationId } }", "variables", Map.of("b", "use " + aws))));
    PushgateExec.Result exec;
    // A sandboxed chat run's branch push asks, as the hook asks without a sandbox (issue 28).
    try (AllowingApprover approver = AllowingApprover.connect(app.get())) {
      exec = exec(work, "push: allow\nopen-pull-request: allow\n"
          + "write-tracker: allow\n", GH + """
        git clone -q https://github.com/acme/widget.git widget && cd widget
        git checkout -q -b text && echo t > t.txt && git add t.txt
        git -c user.name=a -c user.email=a@example.com commit -qm text && git push -q origin text
        cd ..
        call pr gh pr create -R acme/widget --head text --base main --title "Add text" \
          --body "deploy with AKIA_KEY"
        call comment gh api repos/acme/widget/issues/1/comments -f body="key AKIA_KEY"
        call graphql-comment gh api graphql --input comment.json
        for f in *.out; do echo "== $f"; cat "$f"; echo; done
        """.replace("AKIA_KEY", aws));
    }
    String out = exec.stdout();
    String refused = " holds an AWS access key (rule \"no secrets\", gitleaks id aws-access-token)";
    assertThat(exec.exit()).as(exec.stderr() + out).isZero();
    assertThat(out).as(out).contains("pr=1", "comment=1", "graphql-comment=1");
    // gh opens pull requests with GraphQL's createPullRequest.
    // The run's own stderr (its proxy's and the launcher's lines) says why a call got no answer.
    assertThat(section(out, "pr")).as(exec.stderr()).contains(POLICY + "the input.body" + refused);
    assertThat(section(out, "comment")).as(exec.stderr()).contains(POLICY + "the body" + refused);
    assertThat(section(out, "graphql-comment")).as(exec.stderr())
        .contains(POLICY + "the input.body" + refused);
    // gh's GraphQL reads reach the forge; no pull request and no comment does.
    assertThat(forgeApiRequests()).noneMatch(r -> r.startsWith("POST /repos/acme/widget/pulls")
        || r.contains("/comments"));
    assertThat(app.get().forgeRepo("acme/widget").resolve("pushgate-pulls.json")).doesNotExist();
    assertThat(app.get().forgeRepo("acme/widget").resolve("pushgate-comments.jsonl"))
        .doesNotExist();
    String audit = RunningAppliance.cli("audit", "--run", exec.runId(), "--decisions",
        "--data-dir", app.get().dataDir.toString());
    assertThat(audit).contains("aws-access-token").doesNotContain(aws);
  }

  @Test
  void oneGraphQlCallWithThreeAskingMutationsShowsAllThreeAndPostsNothingOnDeny()
      throws Exception {
    ApprovalsWebPageTest.requireChromium();
    Path work = workdir("question");
    WebDriver browser = ApprovalsWebPageTest.chromium(Files.createDirectories(
        app.dir().resolve("browser")));
    try {
      // The approver is the approvals page, signed in with the one-time link.
      browser.get(ApprovalsWebPageTest.signInLink(app.get()));
      WebDriverWait page = new WebDriverWait(browser, Duration.ofSeconds(90),
          Duration.ofMillis(250));
      page.until(ExpectedConditions.textToBe(By.id("status"), "connected as an approver"));
      dev.pushgate.testkit.Wait.until(Duration.ofSeconds(30), "the page to count as an approver",
          () -> app.get().control().get("/v1/approvals").body().get("approverConnected")
              .asBoolean());
      Files.writeString(work.resolve("three.json"), JSON.writeValueAsString(Map.of("query", """
          mutation {
            pr: createPullRequest(input: {repositoryId: "R_1", baseRefName: "main",
              headRefName: "feat", title: "Add feat", body: "the pull request"}) {
              clientMutationId }
            c1: addComment(input: {subjectId: "PR_1", body: "first comment\\nits second line"}) {
              clientMutationId }
            c2: addComment(input: {subjectId: "PR_1", body: "another comment"}) {
              clientMutationId }
          }""")));
      int before = forgeApiRequests().size();
      java.util.concurrent.CompletableFuture<PushgateExec.Result> running =
          java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
              return exec(work, "push: allow\nopen-pull-request: ask\nwrite-tracker: ask\n",
                  GH + """
                  call three gh api graphql --input three.json
                  for f in *.out; do echo "== $f"; cat "$f"; echo; done
                  """);
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          });

      WebElement question = page.until(
          ExpectedConditions.visibilityOfElementLocated(By.cssSelector("li.question")));
      String onPage = question.getText();
      String json = RunningAppliance.cli("approvals", "--json", "--data-dir",
          app.get().dataDir.toString());
      question.findElement(By.className("note")).sendKeys("not these");
      question.findElement(By.className("deny")).click();
      PushgateExec.Result exec = running.get(3, java.util.concurrent.TimeUnit.MINUTES);

      String out = exec.stdout();
      assertThat(exec.exit()).as(exec.stderr() + out).isZero();
      assertThat(out).as(out).contains("three=1");
      assertThat(section(out, "three")).contains(POLICY + "denied by ").contains(": not these");
      // Nothing of the call reached the forge.
      assertThat(forgeApiRequests()).hasSize(before);

      String pr = "needs approval: open-pull-request createPullRequest on acme/widget:"
          + " repositoryId \"R_1\", baseRefName \"main\", headRefName \"feat\", title"
          + " \"Add feat\", body \"the pull request\"";
      String first = "needs approval: write-tracker addComment on acme/widget: subjectId"
          + " \"PR_1\", body \"first comment / its second line\"";
      String second = "needs approval: write-tracker addComment on acme/widget: subjectId"
          + " \"PR_1\", body \"another comment\"";
      assertThat(onPage).contains("all covered by one answer", pr, first,
          second);
      JsonNode q = JSON.readTree(json.lines().filter(l -> l.startsWith("{")).findFirst()
          .orElseThrow(() -> new AssertionError("no question in: " + json)));
      assertThat(q.get("action").asText()).isEqualTo("open-pull-request, write-tracker");
      assertThat(q.get("repository").asText()).isEqualTo("acme/widget");
      List<String> covered = new ArrayList<>();
      q.get("commits").forEach(c -> covered.add(c.asText()));
      assertThat(covered).containsExactly("POST api.github.com/graphql", pr, first, second);
    } finally {
      browser.quit();
    }
  }

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  private static String section(String out, String name) {
    int start = out.indexOf("== " + name + ".out\n");
    assertThat(start).as("no section " + name + " in:\n" + out).isNotNegative();
    int end = out.indexOf("\n== ", start + 1);
    return end < 0 ? out.substring(start) : out.substring(start, end);
  }

  /** The forge's API requests, {@code METHOD /path}, off its own request log (not git's). */
  private static List<String> forgeApiRequests() throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create(app.get().base() + "/forge/api/v3/_forge/requests"))
            .timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    List<String> out = new ArrayList<>();
    for (JsonNode e : JSON.readTree(r.body())) {
      String path = e.get("path").asText();
      if (!path.startsWith("git ")) {
        out.add(e.get("method").asText() + " " + path);
      }
    }
    return out;
  }

  private static Path workdir(String name) throws Exception {
    Path work = Files.createDirectories(app.dir().resolve("work-" + name));
    Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxrwxrwx"));
    return work;
  }

  private static PushgateExec.Result exec(Path work, String rules, String script)
      throws Exception {
    Path rulesFile = Files.writeString(work.getParent().resolve("rules-" + work.getFileName()
        + ".yaml"), "denyWriteGlobs: []\n" + rules);
    return PushgateExec.on(app.get().dataDir, app.dir().resolve("home")).run(work, Map.of(),
        "--workdir", work.toString(), "--rules", rulesFile.toString(), "--", "sh", "-c", script);
  }
}
