package dev.pushgate.forge;

import static dev.pushgate.forge.TestForge.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The forge's stand-in of GitHub's repository REST API, asked over HTTP with installation
 * tokens: GitHub's shapes and status codes, and real writes in the bare repository.
 */
class ForgeRepoApiTest extends WidgetForgeFixture {
  private static final String REPO = "/forge/api/v3/repos/acme/widget";

  private HttpResponse<String> call(String method, String path, String token,
      String body) throws Exception {
    return forge.send(method, REPO + path, token == null ? null : "token " + token, body);
  }

  private void assertError(HttpResponse<String> r, int status, String message)
      throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(json(r).get("message").asText()).isEqualTo(message);
    assertThat(json(r).get("documentation_url").asText()).startsWith("https://docs.github.com/");
  }

  // ---- request bodies

  @Test
  void aBodyThatIsNotJsonIsAProblemParsingJson() throws Exception {
    assertError(call("POST", "/pulls", writer, "{\"title\":"), 400, "Problems parsing JSON");
  }

  @Test
  void aBodyLargerThanTheForgeReadsIsRefusedUnread() throws Exception {
    for (String path : List.of(REPO + "/pulls", "/forge/api/v3/graphql")) {
      String answer = declaringOnly(path, ForgeJson.MAX_BODY + 1L);
      assertThat(answer).as(path).startsWith("HTTP/1.1 413 ")
          .contains("\"message\":\"the request body is larger than " + ForgeJson.MAX_BODY
              + " bytes\"");
    }
  }

  /** The answer to a POST that declares {@code length} bytes of body and sends none. */
  private String declaringOnly(String path, long length) throws Exception {
    try (java.net.Socket s = new java.net.Socket("127.0.0.1", forge.port())) {
      s.setSoTimeout(30_000);
      s.getOutputStream().write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          + "Authorization: token " + writer + "\r\nContent-Type: application/json\r\n"
          + "Content-Length: " + length + "\r\nConnection: close\r\n\r\n")
          .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
      byte[] b = new byte[8192];
      int n;
      try {
        while ((n = s.getInputStream().read(b)) > 0) {
          got.write(b, 0, n);
          if (got.toString(java.nio.charset.StandardCharsets.UTF_8).contains("\"status\"")) {
            break;
          }
        }
      } catch (java.net.SocketException closed) {
        // the forge may close the connection once it has answered; what came is the answer
      }
      return got.toString(java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  // ---- the repository and who may see it

  @Test
  void theRepositoryShowsItsDefaultBranchAndWhatTheTokenMayDo() throws Exception {
    JsonNode w = json(call("GET", "", writer, null));
    JsonNode r = json(call("GET", "", reader, null));

    assertThat(w.get("full_name").asText()).isEqualTo("acme/widget");
    assertThat(w.get("default_branch").asText()).isEqualTo("main");
    assertThat(w.get("id").asLong()).isEqualTo(widget.id());
    assertThat(w.at("/permissions/push").asBoolean()).isTrue();
    assertThat(r.at("/permissions/push").asBoolean()).isFalse();
    assertThat(r.at("/permissions/pull").asBoolean()).isTrue();
  }

  @Test
  void aRepositoryTheTokenIsNotScopedToDoesNotExist() throws Exception {
    assertError(forge.send("GET", "/forge/api/v3/repos/acme/other", "token " + writer, null),
        404, "Not Found");
    assertError(forge.send("GET", "/forge/api/v3/repos/acme/missing", "token " + writer, null),
        404, "Not Found");
  }

  @Test
  void aTokenTheForgeDidNotIssueHasBadCredentials() throws Exception {
    assertError(call("GET", "", "ghs_" + "x".repeat(36), null), 401, "Bad credentials");
    assertError(call("POST", "/pulls", null, "{}"), 401, "Requires authentication");
  }

  @Test
  void aRevokedTokenHasBadCredentials() throws Exception {
    String t = forge.token(ALL, "widget");
    assertThat(forge.send("DELETE", "/forge/api/v3/installation/token", "token " + t, null)
        .statusCode()).isEqualTo(204);

    assertError(call("GET", "", t, null), 401, "Bad credentials");
  }

  // ---- pull requests

  @Test
  void aPullRequestOpensBetweenTwoBranchesAndIsListedAndRead() throws Exception {
    forge.branch(widget, "list-me", "list.txt", "x\n");

    HttpResponse<String> created = call("POST", "/pulls", writer,
        "{\"title\":\"List me\",\"body\":\"why\",\"head\":\"acme:list-me\",\"base\":\"main\"}");

    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    JsonNode p = json(created);
    long n = p.get("number").asLong();
    assertThat(p.get("state").asText()).isEqualTo("open");
    assertThat(p.at("/head/ref").asText()).isEqualTo("list-me");
    assertThat(p.at("/head/sha").asText()).isEqualTo(forge.tip(widget, "list-me"));
    assertThat(p.at("/base/ref").asText()).isEqualTo("main");
    assertThat(p.get("node_id").asText()).isEqualTo("PR_" + widget.id() + "_" + n);
    assertThat(p.get("merged").asBoolean()).isFalse();
    assertThat(json(call("GET", "/pulls/" + n, reader, null)).get("title").asText())
        .isEqualTo("List me");
    JsonNode byHead = json(call("GET", "/pulls?head=acme:list-me", reader, null));
    assertThat(byHead).hasSize(1);
    assertThat(byHead.get(0).get("number").asLong()).isEqualTo(n);
    assertThat(json(call("GET", "/pulls?head=acme:nothing", reader, null))).isEmpty();
    assertThat(json(call("GET", "/pulls?state=closed&head=acme:list-me", reader, null)))
        .isEmpty();
  }

  @Test
  void aPullRequestFromOrToABranchThatDoesNotExistIsInvalid() throws Exception {
    HttpResponse<String> noHead = call("POST", "/pulls", writer,
        "{\"title\":\"t\",\"head\":\"no-such-branch\",\"base\":\"main\"}");
    HttpResponse<String> noBase = call("POST", "/pulls", writer,
        "{\"title\":\"t\",\"head\":\"main\",\"base\":\"no-such-branch\"}");
    HttpResponse<String> noTitle = call("POST", "/pulls", writer,
        "{\"head\":\"main\",\"base\":\"main\"}");

    assertError(noHead, 422, "Validation Failed");
    assertThat(json(noHead).at("/errors/0/field").asText()).isEqualTo("head");
    assertThat(json(noHead).at("/errors/0/code").asText()).isEqualTo("invalid");
    assertThat(json(noBase).at("/errors/0/field").asText()).isEqualTo("base");
    assertThat(json(noTitle).at("/errors/0/code").asText()).isEqualTo("missing_field");
  }

  @Test
  void aPullRequestWithNothingToMergeIsInvalid() throws Exception {
    forge.branch(widget, "same", "README.md", "# widget\n\nCreated on the pushgate local forge.\n");
    // "same" differs from main by a commit with main's tree; main itself has nothing new
    HttpResponse<String> r = call("POST", "/pulls", writer,
        "{\"title\":\"t\",\"head\":\"main\",\"base\":\"same\"}");

    assertError(r, 422, "Validation Failed");
    assertThat(json(r).at("/errors/0/message").asText()).isEqualTo("No commits between same and main");
  }

  @Test
  void openingAPullRequestNeedsPullRequestsWrite() throws Exception {
    String contentsOnly = forge.token("{\"contents\":\"write\"}", "widget");

    assertError(call("POST", "/pulls", contentsOnly,
        "{\"title\":\"t\",\"head\":\"main\",\"base\":\"main\"}"), 403,
        "Resource not accessible by integration");
  }

  @Test
  void mergingMakesAMergeCommitOnTheBaseInTheBareRepository() throws Exception {
    String head = forge.branch(widget, "to-merge", "merged.txt", "merged\n");
    String base = forge.tip(widget, "main");
    long n = openPull(writer, "Merge me", "to-merge");

    HttpResponse<String> merged = call("PUT", "/pulls/" + n + "/merge", writer, "{}");

    assertThat(merged.statusCode()).as(merged.body()).isEqualTo(200);
    assertThat(json(merged).get("merged").asBoolean()).isTrue();
    String sha = json(merged).get("sha").asText();
    assertThat(forge.tip(widget, "main")).isEqualTo(sha);
    try (Repository git = ForgeCommits.open(widget); RevWalk walk = new RevWalk(git)) {
      RevCommit c = walk.parseCommit(git.resolve(sha));
      assertThat(c.getParents()).extracting(p -> p.name()).containsExactly(base, head);
      assertThat(c.getShortMessage()).isEqualTo("Merge pull request #" + n + " from acme/to-merge");
      assertThat(ForgeCommits.file(git, "main", "merged.txt")).isPresent();
    }
    JsonNode after = json(call("GET", "/pulls/" + n, reader, null));
    assertThat(after.get("state").asText()).isEqualTo("closed");
    assertThat(after.get("merged").asBoolean()).isTrue();
    assertThat(after.get("merge_commit_sha").asText()).isEqualTo(sha);
    assertThat(call("GET", "/pulls/" + n + "/merge", reader, null).statusCode()).isEqualTo(204);
    assertError(call("PUT", "/pulls/" + n + "/merge", writer, "{}"), 405,
        "Pull Request is not mergeable");
  }

  @Test
  void aRebaseMergeFastForwardsTheBase() throws Exception {
    String head = forge.branch(widget, "ff", "ff.txt", "ff\n");
    long n = openPull(writer, "ff", "ff");

    HttpResponse<String> merged =
        call("PUT", "/pulls/" + n + "/merge", writer, "{\"merge_method\":\"rebase\"}");

    assertThat(merged.statusCode()).as(merged.body()).isEqualTo(200);
    assertThat(forge.tip(widget, "main")).isEqualTo(head);
  }

  @Test
  void aConflictingPullRequestIsNotMergeableAndTheBaseStays() throws Exception {
    forge.branch(widget, "conflict-a", "conflict.txt", "a\n");
    forge.branch(widget, "conflict-b", "conflict.txt", "b\n");
    long a = openPull(writer, "a", "conflict-a");
    long b = openPull(writer, "b", "conflict-b");
    assertThat(call("PUT", "/pulls/" + a + "/merge", writer, "{}").statusCode()).isEqualTo(200);
    String main = forge.tip(widget, "main");

    assertError(call("PUT", "/pulls/" + b + "/merge", writer, "{}"), 405,
        "Pull Request is not mergeable");
    assertThat(forge.tip(widget, "main")).isEqualTo(main);
  }

  @Test
  void mergingNeedsContentsWriteAndTheHeadItWasAskedFor() throws Exception {
    forge.branch(widget, "guarded", "guarded.txt", "g\n");
    long n = openPull(reader, "g", "guarded");
    String main = forge.tip(widget, "main");

    assertError(call("PUT", "/pulls/" + n + "/merge", reader, "{}"), 403,
        "Resource not accessible by integration");
    assertError(call("PUT", "/pulls/" + n + "/merge", writer, "{\"sha\":\"" + "1".repeat(40)
        + "\"}"), 409, "Head branch was modified. Review and try the merge again.");
    assertThat(forge.tip(widget, "main")).isEqualTo(main);
  }

  // ---- comments

  @Test
  void commentsAreAddedAndListed() throws Exception {
    forge.branch(widget, "talk", "talk.txt", "t\n");
    long n = openPull(writer, "talk", "talk");

    HttpResponse<String> c = call("POST", "/issues/" + n + "/comments", reader,
        "{\"body\":\"looks good\"}");

    assertThat(c.statusCode()).as(c.body()).isEqualTo(201);
    assertThat(json(c).get("body").asText()).isEqualTo("looks good");
    assertThat(json(c).at("/user/login").asText()).isEqualTo("pushgate-local-forge[bot]");
    JsonNode list = json(call("GET", "/issues/" + n + "/comments", reader, null));
    assertThat(list).hasSize(1);
    assertThat(list.get(0).get("id").asLong()).isEqualTo(json(c).get("id").asLong());
    assertError(call("POST", "/issues/99999/comments", writer, "{\"body\":\"x\"}"), 404,
        "Not Found");
    String contentsOnly = forge.token("{\"contents\":\"write\"}", "widget");
    assertError(call("POST", "/issues/" + n + "/comments", contentsOnly, "{\"body\":\"x\"}"),
        403, "Resource not accessible by integration");
  }

  // ---- contents

  @Test
  void aContentsWriteCommitsToTheBranchAndIsReadBack() throws Exception {
    String before = forge.tip(widget, "main");

    HttpResponse<String> put = call("PUT", "/contents/docs/notes.md", writer,
        "{\"message\":\"Add notes\",\"content\":\"" + b64("first\n") + "\",\"branch\":\"main\"}");

    assertThat(put.statusCode()).as(put.body()).isEqualTo(201);
    String commit = json(put).at("/commit/sha").asText();
    assertThat(forge.tip(widget, "main")).isEqualTo(commit);
    try (Repository git = ForgeCommits.open(widget); RevWalk walk = new RevWalk(git)) {
      RevCommit c = walk.parseCommit(git.resolve(commit));
      assertThat(c.getParent(0).name()).isEqualTo(before);
      assertThat(c.getFullMessage()).isEqualTo("Add notes\n");
      assertThat(new String(ForgeCommits.file(git, "main", "docs/notes.md").get().content(),
          StandardCharsets.UTF_8)).isEqualTo("first\n");
      assertThat(ForgeCommits.file(git, "main", "README.md")).isPresent();
    }
    JsonNode got = json(call("GET", "/contents/docs/notes.md?ref=main", reader, null));
    assertThat(got.get("encoding").asText()).isEqualTo("base64");
    assertThat(new String(Base64.getMimeDecoder().decode(got.get("content").asText()),
        StandardCharsets.UTF_8)).isEqualTo("first\n");
    String sha = got.get("sha").asText();
    assertThat(sha).isEqualTo(json(put).at("/content/sha").asText());

    assertError(call("PUT", "/contents/docs/notes.md", writer,
        "{\"message\":\"m\",\"content\":\"" + b64("x") + "\"}"), 422,
        "Invalid request.\n\n\"sha\" wasn't supplied.");
    assertError(call("PUT", "/contents/docs/notes.md", writer,
        "{\"message\":\"m\",\"content\":\"" + b64("x") + "\",\"sha\":\"" + "2".repeat(40)
            + "\"}"), 409, "docs/notes.md does not match " + "2".repeat(40));
    HttpResponse<String> update = call("PUT", "/contents/docs/notes.md", writer,
        "{\"message\":\"Update\",\"content\":\"" + b64("second\n") + "\",\"sha\":\"" + sha + "\"}");
    assertThat(update.statusCode()).as(update.body()).isEqualTo(200);
  }

  /**
   * As GitHub: a file over 1 MB is read with the raw media type; its JSON answer carries no
   * content (the forge built a base64 string of every file it was asked for: 16 reads of a 14 MB
   * file at once took its heap).
   */
  @Test
  void aFileOverOneMegabyteIsReadRawAndItsJsonCarriesNoContent() throws Exception {
    String big = "x".repeat(ForgeRepoApi.MAX_JSON_CONTENT + 1);
    forge.branch(widget, "main", "big.txt", big);

    JsonNode got = json(call("GET", "/contents/big.txt", reader, null));
    assertThat(got.get("size").asLong()).isEqualTo(big.length());
    assertThat(got.get("encoding").asText()).isEqualTo("none");
    assertThat(got.get("content").asText()).isEmpty();

    HttpResponse<String> raw = java.net.http.HttpClient.newHttpClient().send(
        java.net.http.HttpRequest.newBuilder(forge.uri(REPO + "/contents/big.txt"))
            .header("Authorization", "token " + reader)
            .header("Accept", "application/vnd.github.raw").build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(raw.statusCode()).isEqualTo(200);
    assertThat(raw.headers().firstValue("Content-Type")).hasValueSatisfying(
        t -> assertThat(t).startsWith("application/vnd.github.raw"));
    assertThat(raw.body()).isEqualTo(big);
  }

  @Test
  void aContentsWriteNeedsContentsWrite() throws Exception {
    String before = forge.tip(widget, "main");

    assertError(call("PUT", "/contents/x.txt", reader,
        "{\"message\":\"m\",\"content\":\"" + b64("x") + "\"}"), 403,
        "Resource not accessible by integration");
    assertError(call("PUT", "/contents/x.txt", writer,
        "{\"message\":\"m\",\"content\":\"" + b64("x") + "\",\"branch\":\"nope\"}"), 404,
        "Branch nope not found");
    assertThat(forge.tip(widget, "main")).isEqualTo(before);
  }

  // ---- refs

  @Test
  void refsAreCreatedMovedAndDeleted() throws Exception {
    String main = forge.tip(widget, "main");
    String ahead = forge.branch(widget, "ahead", "ahead.txt", "a\n");

    HttpResponse<String> created = call("POST", "/git/refs", writer,
        "{\"ref\":\"refs/heads/made\",\"sha\":\"" + main + "\"}");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    assertThat(json(call("GET", "/git/ref/heads/made", reader, null)).at("/object/sha").asText())
        .isEqualTo(main);
    assertError(call("POST", "/git/refs", writer,
        "{\"ref\":\"refs/heads/made\",\"sha\":\"" + main + "\"}"), 422, "Reference already exists");

    assertThat(call("PATCH", "/git/refs/heads/made", writer, "{\"sha\":\"" + ahead + "\"}")
        .statusCode()).isEqualTo(200);
    assertThat(forge.tip(widget, "made")).isEqualTo(ahead);
    assertError(call("PATCH", "/git/refs/heads/made", writer, "{\"sha\":\"" + main + "\"}"),
        422, "Update is not a fast forward");
    assertError(call("DELETE", "/git/refs/heads/made", reader, null), 403,
        "Resource not accessible by integration");

    assertThat(call("DELETE", "/git/refs/heads/made", writer, null).statusCode()).isEqualTo(204);
    assertThat(forge.tip(widget, "made")).isNull();
    assertError(call("DELETE", "/git/refs/heads/main", writer, null), 422,
        "Cannot delete the default branch");
  }

  // ---- the request log

  @Test
  void theRequestLogShowsWhichTokenEachRequestPresented() throws Exception {
    String t = forge.token(ALL, "widget");
    call("GET", "/pulls?probe=1", t, null);
    call("GET", "", "ghs_" + "y".repeat(36), null);

    JsonNode log = json(forge.send("GET", "/forge/api/v3/_forge/requests", null, null));

    JsonNode last = log.get(log.size() - 1);
    JsonNode before = log.get(log.size() - 2);
    assertThat(before.get("path").asText()).isEqualTo("/repos/acme/widget/pulls");
    assertThat(before.get("credential").asText()).isEqualTo("installation-token");
    assertThat(before.get("token_sha256").asText()).isEqualTo(ForgeTokens.hash(t));
    assertThat(before.get("status").asInt()).isEqualTo(200);
    assertThat(last.get("credential").asText()).isEqualTo("unknown-token");
    assertThat(last.get("token_sha256").asText()).isEqualTo(ForgeTokens.hash("ghs_" + "y".repeat(36)));
    assertThat(last.get("status").asInt()).isEqualTo(401);
    assertThat(log.toString()).doesNotContain(t);
  }

  @Test
  void theRequestLogShowsWhichTokenAGitRequestPresented() throws Exception {
    String t = forge.token("{\"contents\":\"read\"}", "widget");
    assertThat(forge.send("GET", "/forge/acme/widget.git/info/refs?service=git-upload-pack",
        TestForge.basic(t), null).statusCode()).isEqualTo(200);

    JsonNode log = json(forge.send("GET", "/forge/api/v3/_forge/requests", null, null));

    JsonNode last = log.get(log.size() - 1);
    assertThat(last.get("path").asText()).isEqualTo("git /acme/widget.git/info/refs");
    assertThat(last.get("credential").asText()).isEqualTo("installation-token");
    assertThat(last.get("token_sha256").asText()).isEqualTo(ForgeTokens.hash(t));
    assertThat(last.get("status").asInt()).isEqualTo(200);
  }

  static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  /** Opens a pull request from {@code head} to main with {@code token}; its number. */
  private long openPull(String token, String title, String head) throws Exception {
    return json(call("POST", "/pulls", token,
        "{\"title\":\"" + title + "\",\"head\":\"" + head + "\",\"base\":\"main\"}"))
        .get("number").asLong();
  }
}
