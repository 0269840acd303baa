package dev.pushgate.gateway.api;

import static dev.pushgate.gateway.api.ApiJudgeFixture.call;
import static dev.pushgate.gateway.api.ApiJudgeFixture.chat;
import static dev.pushgate.gateway.api.ApiJudgeFixture.graphQl;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.policy.Decision;
import dev.pushgate.testkit.FakeSecrets;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every API door that carries a file or a message is judged by the push path's content rules, in
 * the push's words: contents writes, createCommitOnBranch, git blobs, trees, commits and tags.
 */
class ApiContentRulesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PAT_RULE = " holds a GitHub personal access token (rule \"no"
      + " secrets\", gitleaks id github-pat)";
  private static final String KEY_RULE = " holds a private key (rule \"no secrets\", gitleaks id"
      + " private-key)";
  /** Pushes allowed everywhere: only the content rules (the defaults) can refuse. */
  private final GitHubApiJudge judge = chat("push: allow\n");

  private static String b64(String s) {
    return Base64.getMimeEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  private static String json(Object o) {
    try {
      return JSON.writeValueAsString(o);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private ApiJudgement rest(String method, String path, Object body) {
    return judge.judge(call(method, path, json(body)));
  }

  private ApiJudgement commitOnBranch(List<Map<String, String>> additions, String headline) {
    String doc = "mutation($input: CreateCommitOnBranchInput!) { createCommitOnBranch(input:"
        + " $input) { commit { url } } }";
    return judge.judge(graphQl(json(Map.of("query", doc, "variables", Map.of("input", Map.of(
        "branch", Map.of("repositoryNameWithOwner", "acme/widget", "branchName", "feature"),
        "fileChanges", Map.of("additions", additions),
        "message", Map.of("headline", headline), "expectedHeadOid", "a".repeat(40)))))));
  }

  private static void refused(ApiJudgement j, String reason) {
    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.reason()).isEqualTo(reason);
  }

  @Test
  void aContentsWriteIsJudgedAsAPushedFile() {
    String path = "/repos/acme/widget/contents/";
    refused(rest("PUT", path + "config/.env", Map.of("message", "m", "content", b64("A=1\n"),
        "branch", "feature")), "config/.env matches \"no secret files\"");
    refused(rest("PUT", path + "app.py", Map.of("message", "m", "branch", "feature",
        "content", b64("import os\nTOKEN = \"" + FakeSecrets.githubPat() + "\"\n"))),
        "app.py:2" + PAT_RULE);
    refused(rest("PUT", path + "deploy/key.txt", Map.of("message", "m", "branch", "feature",
        "content", b64(FakeSecrets.privateKey()))), "deploy/key.txt:1" + KEY_RULE);
    ApiJudgement fine = rest("PUT", path + "app.py", Map.of("message", "m", "branch", "feature",
        "content", b64("print(1)\n")));
    assertThat(fine.decision()).isEqualTo(Decision.ALLOW);
    assertThat(fine.actions()).singleElement();
  }

  /** The push's scanner at the API's door: an armour header reading "false" quiets no key. */
  @Test
  void aContentsWriteOfAKeyWithAnAllowlistedWordInItIsRefused() {
    String key = FakeSecrets.privateKey().replace("KEY-----\n", "KEY-----\nComment: false\n");
    refused(rest("PUT", "/repos/acme/widget/contents/deploy/key.txt", Map.of("message", "m",
        "branch", "feature", "content", b64("notes\n" + key))), "deploy/key.txt:2" + KEY_RULE);
  }

  @Test
  void aPercentEncodedNameIsJudgedDecoded() {
    refused(rest("PUT", "/repos/acme/widget/contents/config/%2Eenv", Map.of("message", "m",
        "content", b64("A=1\n"), "branch", "feature")), "config/.env matches \"no secret files\"");
  }

  @Test
  void aContentsWritesCommitterHoldingATokenIsRefused() {
    refused(rest("PUT", "/repos/acme/widget/contents/a.txt", Map.of("message", "m",
        "content", b64("x"), "branch", "feature", "committer", Map.of("name",
            FakeSecrets.githubPat(), "email", "a@example.com"))), "the committer.name" + PAT_RULE);
  }

  /**
   * Attack 28b: an author given as a string, or a field GitHub ignores, is shown to the approver
   * as the committer is, so it is judged as the committer is: the token never reaches a question.
   */
  @Test
  void everyOtherFieldOfAContentsWriteIsJudgedAsTheCommitterIs() {
    refused(rest("PUT", "/repos/acme/widget/contents/z.txt", Map.of("message", "m",
        "content", b64("x"), "branch", "feature", "author", "a <" + FakeSecrets.githubPat()
            + ">")), "the author" + PAT_RULE);
    refused(rest("PUT", "/repos/acme/widget/contents/z.txt", Map.of("message", "m",
        "content", b64("x"), "branch", "feature", "x", FakeSecrets.githubPat())),
        "the x" + PAT_RULE);
    refused(rest("DELETE", "/repos/acme/widget/contents/z.txt", Map.of("message", "m",
        "sha", "abc", "branch", "feature", "x", List.of(FakeSecrets.githubPat()))),
        "the x[0]" + PAT_RULE);
    ApiJudgement named = rest("PUT", "/repos/acme/widget/contents/z.txt", Map.of("message", "m",
        "content", b64("x"), "branch", "feature", FakeSecrets.githubPat(), "y"));
    refused(named, "a field's name" + PAT_RULE);
    assertThat(named.actions()).allSatisfy(a -> assertThat(a.reason())
        .doesNotContain(FakeSecrets.githubPat()));
  }

  @Test
  void aCommitMessageHoldingATokenIsRefused() {
    refused(rest("DELETE", "/repos/acme/widget/contents/a.txt", Map.of("message",
        "remove " + FakeSecrets.githubPat(), "sha", "abc", "branch", "feature")),
        "the commit message" + PAT_RULE);
  }

  @Test
  void createCommitOnBranchIsJudgedAsAPushedFile() {
    refused(commitOnBranch(List.of(Map.of("path", "ok.txt", "contents", b64("x")),
        Map.of("path", "id_rsa", "contents", b64("x"))), "add"), "id_rsa matches \"no secret"
        + " files\"");
    refused(commitOnBranch(List.of(Map.of("path", "app.py", "contents",
        b64("x = 1\nTOKEN = \"" + FakeSecrets.githubPat() + "\"\n"))), "add"),
        "app.py:2" + PAT_RULE);
    refused(commitOnBranch(List.of(Map.of("path", "k", "contents",
        b64(FakeSecrets.privateKey()))), "add"), "k:1" + KEY_RULE);
    refused(commitOnBranch(List.of(), "add " + FakeSecrets.awsAccessKey()),
        "the commit message holds an AWS access key (rule \"no secrets\", gitleaks id"
            + " aws-access-token)");
    assertThat(commitOnBranch(List.of(Map.of("path", "ok.txt", "contents", b64("x"))), "add")
        .decision()).isEqualTo(Decision.ALLOW);
  }

  @Test
  void blobsAreJudgedInEitherEncoding() {
    String pat = "TOKEN=" + FakeSecrets.githubPat() + "\n";
    ApiJudgement utf8 = rest("POST", "/repos/acme/widget/git/blobs", Map.of("content", pat));
    ApiJudgement base64 = rest("POST", "/repos/acme/widget/git/blobs",
        Map.of("content", b64(pat), "encoding", "base64"));
    ApiJudgement key = rest("POST", "/repos/acme/widget/git/blobs",
        Map.of("content", FakeSecrets.privateKey(), "encoding", "utf-8"));

    assertThat(utf8.decision()).isEqualTo(Decision.DENY);
    assertThat(utf8.reason()).matches("blob [0-9a-f]{7}:1" + java.util.regex.Pattern.quote(
        PAT_RULE));
    assertThat(base64.reason()).isEqualTo(utf8.reason());
    assertThat(key.reason()).endsWith(KEY_RULE);
    assertThat(utf8.actions()).extracting(ApiJudgement.ApiAction::kind)
        .containsOnly(RunPolicy.GIT_OBJECTS);
  }

  @Test
  void treesAreJudgedByTheirEntriesNamesAndInlineContent() {
    String route = "/repos/acme/widget/git/trees";
    refused(rest("POST", route, Map.of("base_tree", "abc", "tree", List.of(Map.of("path",
        "config/.env", "mode", "100644", "type", "blob", "sha", "a".repeat(40))))),
        "config/.env matches \"no secret files\"");
    refused(rest("POST", route, Map.of("tree", List.of(Map.of("path", "src/app.py", "mode",
        "100644", "type", "blob", "content", "x\ny = '" + FakeSecrets.githubPat() + "'\n")))),
        "src/app.py:2" + PAT_RULE);
    assertThat(rest("POST", route, Map.of("tree", List.of(Map.of("path", "src/app.py", "mode",
        "100644", "type", "blob", "content", "print(1)\n")))).decision())
        .isEqualTo(Decision.ALLOW);
  }

  @Test
  void commitAndTagMessagesAndTagNamesAreJudged() {
    refused(rest("POST", "/repos/acme/widget/git/commits", Map.of("message",
        "fix\n\ntoken " + FakeSecrets.githubPat(), "tree", "abc")),
        "the commit message" + PAT_RULE);
    refused(rest("POST", "/repos/acme/widget/git/tags", Map.of("tag", "v1", "message",
        FakeSecrets.slackBot(), "object", "abc", "type", "commit")),
        "the tag message holds a Slack bot token (rule \"no secrets\", gitleaks id"
            + " slack-bot-token)");
    refused(rest("POST", "/repos/acme/widget/git/tags", Map.of("tag", FakeSecrets.githubPat(),
        "message", "m", "object", "abc", "type", "commit")), "the tag name" + PAT_RULE);
  }

  @Test
  void pullRequestIssueAndCommentTextHoldingATokenIsRefused() {
    String aws = " holds an AWS access key (rule \"no secrets\", gitleaks id aws-access-token)";
    GitHubApiJudge all = chat("push: allow\nopen-pull-request: allow\nwrite-tracker: allow\n"
        + "publish-review-or-merge: allow\n");
    refused(all.judge(call("POST", "/repos/acme/widget/pulls", json(Map.of("title", "Add",
        "head", "f", "base", "main", "body", "key " + FakeSecrets.awsAccessKey())))),
        "the body" + aws);
    refused(all.judge(call("POST", "/repos/acme/widget/issues/4/comments", json(Map.of("body",
        "try " + FakeSecrets.githubPat())))), "the body" + PAT_RULE);
    refused(all.judge(call("POST", "/repos/acme/widget/pulls/3/reviews", json(Map.of("event",
        "COMMENT", "comments", List.of(Map.of("path", "a", "body", FakeSecrets.awsAccessKey())))))),
        "the comments[0].body" + aws);
    refused(all.judge(graphQl(json(Map.of("query", "mutation($b: String!) { a: addComment(input:"
        + " {subjectId: \"PR_1\", body: $b}) { clientMutationId } }", "variables",
        Map.of("b", "see " + FakeSecrets.awsAccessKey()))))), "the input.body" + aws);
    refused(all.judge(graphQl(json(Map.of("query", "mutation { createPullRequest(input:"
        + " {repositoryId: \"R_1\", baseRefName: \"main\", headRefName: \"f\", title: \""
        + FakeSecrets.githubPat() + "\"}) { clientMutationId } }")))), "the input.title"
        + PAT_RULE);
    // Prose is not read by the generic, entropy-based detector: only tokens with a known shape.
    assertThat(all.judge(call("POST", "/repos/acme/widget/issues", json(Map.of("title", "x",
        "body", "api_key = \"" + FakeSecrets.mixed(32, 7) + "\"")))).decision())
        .isEqualTo(Decision.ALLOW);
  }

  /**
   * A run's judge picks the detectors its rules run once, for every write it judges: a text's
   * (without the generic, entropy-based ones) and a file's (with them) stay apart whichever
   * comes first, and every call is scanned.
   */
  @Test
  void aRunsTextAndFileWritesAreScannedByTheirOwnDetectorsWhicheverComesFirst() {
    String line = "api_key = \"" + FakeSecrets.mixed(32, 7) + "\"\n";
    Map<String, String> file = Map.of("message", "m", "branch", "feature", "content", b64(line));
    Map<String, String> text = Map.of("body", line);
    String comment = "/repos/acme/widget/issues/4/comments";
    String contents = "/repos/acme/widget/contents/app.py";
    for (boolean textFirst : List.of(true, false)) {
      GitHubApiJudge run = chat("push: allow\nwrite-tracker: allow\n");
      for (int i = 0; i < 2; i++) {
        if (textFirst) {
          assertThat(run.judge(call("POST", comment, json(text))).decision())
              .isEqualTo(Decision.ALLOW);
        }
        ApiJudgement f = run.judge(call("PUT", contents, json(file)));
        assertThat(f.decision()).isEqualTo(Decision.DENY);
        assertThat(f.reason()).startsWith("app.py:1 holds ").contains("generic-api-key");
        refused(run.judge(call("POST", comment, json(Map.of("body", "try "
            + FakeSecrets.githubPat())))), "the body" + PAT_RULE);
        if (!textFirst) {
          assertThat(run.judge(call("POST", comment, json(text))).decision())
              .isEqualTo(Decision.ALLOW);
        }
      }
    }
  }

  @Test
  void refNamesAndPathsHoldingATokenAreRefusedWithoutQuotingThem() {
    String pat = FakeSecrets.githubPat();
    ApiJudgement ref = rest("POST", "/repos/acme/widget/git/refs", Map.of("ref",
        "refs/heads/" + pat, "sha", "a".repeat(40)));
    ApiJudgement path = rest("POST", "/repos/acme/widget/git/trees", Map.of("tree",
        List.of(Map.of("path", "keys/" + pat + "/a.txt", "mode", "100644", "content", "x"))));

    refused(ref, "the ref name" + PAT_RULE);
    refused(path, "a path of the write" + PAT_RULE);
  }

  @ParameterizedTest
  @ValueSource(strings = {"not base64!", "eA=x", "eA-_"})
  void contentThatIsNotPlainBase64IsRefusedUnread(String content) {
    ApiJudgement j = rest("PUT", "/repos/acme/widget/contents/a.txt", Map.of("message", "m",
        "content", content, "branch", "feature"));

    refused(j, "PUT /repos/acme/widget/contents/a.txt: the request body cannot be read as the"
        + " route's JSON, so it is denied");
  }

  @Test
  void badShapesAreRefusedUnread() {
    assertThat(rest("POST", "/repos/acme/widget/git/blobs", Map.of("content", "x",
        "encoding", "latin1")).reason()).contains("cannot be read");
    assertThat(rest("POST", "/repos/acme/widget/git/blobs", Map.of()).reason())
        .contains("cannot be read");
    assertThat(rest("POST", "/repos/acme/widget/git/trees", Map.of("tree", List.of(Map.of(
        "path", "a", "content", "x", "sha", "a".repeat(40))))).reason())
        .contains("cannot be read");
    assertThat(rest("PUT", "/repos/acme/widget/contents/a.txt", Map.of("message", "m",
        "branch", "feature")).reason()).contains("cannot be read");
    assertThat(commitOnBranch(List.of(Map.of("path", "a")), "m").reason())
        .contains("createCommitOnBranch has an input the boundary cannot read");
  }

  @Test
  void aPathGitWouldNotTakeOrOneGivenTwiceIsRefused() {
    String route = "/repos/acme/widget/git/trees";
    assertThat(rest("POST", route, Map.of("tree", List.of(Map.of("path", "a//.env",
        "content", "x")))).reason()).startsWith("it names a path git does not take");
    assertThat(rest("POST", route, Map.of("tree", List.of(Map.of("path", "../x",
        "content", "x")))).decision()).isEqualTo(Decision.DENY);
    assertThat(commitOnBranch(List.of(Map.of("path", "a.txt", "contents", b64("x")),
        Map.of("path", "a.txt", "contents", b64("y"))), "m").reason())
        .isEqualTo("it gives one path twice, so it is denied");
  }

  @Test
  void aWriteTheRefRuleDeniesIsNotScanned() {
    ApiJudgement j = chat("push: deny\n").judge(call("PUT", "/repos/acme/widget/contents/.env",
        json(Map.of("message", "m", "content", b64("A=1"), "branch", "feature"))));

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.actions()).singleElement();
  }
}
