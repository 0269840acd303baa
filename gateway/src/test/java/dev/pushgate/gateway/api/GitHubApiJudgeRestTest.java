package dev.pushgate.gateway.api;

import static dev.pushgate.gateway.api.ApiJudgeFixture.STRICT;
import static dev.pushgate.gateway.api.ApiJudgeFixture.call;
import static dev.pushgate.gateway.api.ApiJudgeFixture.chat;
import static dev.pushgate.gateway.api.ApiJudgeFixture.judge;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.gateway.api.ApiJudgement.ApiAction;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Judgement;
import dev.pushgate.policy.Mode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** REST routes to actions, each decided by the run's rules and mode. */
class GitHubApiJudgeRestTest {
  private final GitHubApiJudge strict = chat(STRICT);
  private final GitHubApiJudge open = chat("push-workflows: allow");

  private ApiJudgement rest(String method, String path, String body) {
    return strict.judge(call(method, path, body));
  }

  @ParameterizedTest
  @CsvSource({
      "POST, /repos/acme/widget/pulls, open-pull-request, new pull request",
      "PATCH, /repos/acme/widget/pulls/12, open-pull-request, #12",
      "POST, /repos/acme/widget/pulls/12/requested_reviewers, open-pull-request, #12",
      "POST, /repos/acme/widget/pulls/12/reviews, publish-review-or-merge, #12",
      "PUT, /repos/acme/widget/pulls/12/reviews/7, publish-review-or-merge, #12",
      "POST, /repos/acme/widget/pulls/12/reviews/7/events, publish-review-or-merge, #12",
      "PUT, /repos/acme/widget/pulls/12/reviews/7/dismissals, publish-review-or-merge, #12",
      "POST, /repos/acme/widget/pulls/12/comments, publish-review-or-merge, #12",
      "POST, /repos/acme/widget/pulls/12/comments/3/replies, publish-review-or-merge, #12",
      "POST, /repos/acme/widget/issues, write-tracker, POST /repos/acme/widget/issues",
      "PATCH, /repos/acme/widget/issues/4, write-tracker, PATCH /repos/acme/widget/issues/4",
      "POST, /repos/acme/widget/issues/4/comments, write-tracker, POST /repos/acme/widget/issues/4/comments",
      "PATCH, /repos/acme/widget/issues/comments/9, write-tracker, PATCH /repos/acme/widget/issues/comments/9",
      "POST, /repos/acme/widget/issues/4/labels, write-tracker, POST /repos/acme/widget/issues/4/labels",
      "DELETE, /repos/acme/widget/issues/4/labels/bug, write-tracker, DELETE /repos/acme/widget/issues/4/labels/bug",
      "POST, /repos/acme/widget/issues/4/assignees, write-tracker, POST /repos/acme/widget/issues/4/assignees",
      "POST, /repos/acme/widget/issues/4/reactions, write-tracker, POST /repos/acme/widget/issues/4/reactions",
      "POST, /repos/acme/widget/issues/comments/9/reactions, write-tracker, POST /repos/acme/widget/issues/comments/9/reactions",
      "POST, /repos/acme/widget/labels, write-tracker, POST /repos/acme/widget/labels",
      "POST, /repos/acme/widget/commits/abc/comments, write-tracker, POST /repos/acme/widget/commits/abc/comments",
  })
  void routesMapToTheirActionClass(String method, String path, String kind, String target) {
    ApiJudgement j = rest(method, path, "{}");

    assertThat(j.actions()).singleElement().satisfies(a -> {
      assertThat(a.kind()).isEqualTo(kind);
      assertThat(a.repository()).isEqualTo("acme/widget");
      assertThat(a.target()).isEqualTo(target);
    });
    assertThat(j.needsWriteToken()).isFalse();
  }

  /**
   * Found by attack: the question showed a fixed list of fields, read from an {@code input}
   * object when the body had one. GitHub ignores {@code input} in a REST body and applies the
   * top-level fields, so an approver allowed "Fix typo in README" and "Disable auth checks"
   * landed; {@code state}, {@code milestone} and a second review comment were never shown. Every
   * field the call gives is shown now, by its own name.
   */
  @Test
  void theQuestionShowsEveryFieldTheRestBodyGivesAndAnInputObjectAsJustAField() {
    GitHubApiJudge asking = chat("open-pull-request: ask\nwrite-tracker: ask\n"
        + "publish-review-or-merge: ask\n");

    ApiJudgement pr = asking.judge(call("POST", "/repos/acme/widget/pulls", "{\"title\":"
        + "\"Disable auth checks\",\"head\":\"pr2\",\"base\":\"main\",\"input\":{\"title\":"
        + "\"Fix typo in README\"},\"head_repo\":\"attacker/widget\",\"issue\":1}"));
    ApiJudgement issue = asking.judge(call("PATCH", "/repos/acme/widget/issues/1",
        "{\"title\":\"same title\",\"state\":\"closed\",\"milestone\":3}"));
    ApiJudgement review = asking.judge(call("POST", "/repos/acme/widget/pulls/1/reviews",
        "{\"event\":\"COMMENT\",\"comments\":[{\"path\":\"a\",\"body\":\"nit: spacing\"},"
            + "{\"path\":\"b\",\"body\":\"the second one\"}]}"));

    assertThat(pr.actions().get(0).says()).isEqualTo("title \"Disable auth checks\", head"
        + " \"pr2\", base \"main\", input.title \"Fix typo in README\", head_repo"
        + " \"attacker/widget\", issue 1");
    assertThat(issue.actions().get(0).says())
        .isEqualTo("title \"same title\", state \"closed\", milestone 3");
    assertThat(review.actions().get(0).says()).isEqualTo("event \"COMMENT\", comments[0].path"
        + " \"a\", comments[0].body \"nit: spacing\", comments[1].path \"b\","
        + " comments[1].body \"the second one\"");
  }

  @ParameterizedTest
  @EnumSource(Decision.class)
  void openingAPullRequestGetsTheRulesDecision(Decision d) {
    ApiJudgement j = chat("open-pull-request: " + d.id())
        .judge(call("POST", "/repos/acme/widget/pulls", "{\"head\":\"f\",\"base\":\"main\"}"));

    assertThat(j.decision()).isEqualTo(d);
    assertThat(j.reason()).isEqualTo("opening a pull request " + switch (d) {
      case ALLOW -> "is allowed";
      case ASK -> "needs approval";
      case DENY -> "is denied";
    } + " (open-pull-request)");
  }

  @Test
  void reviewsAndTrackerWritesGetTheirRulesDecision() {
    assertThat(rest("POST", "/repos/acme/widget/pulls/12/reviews", "{}").decision())
        .isEqualTo(Decision.ASK);
    ApiJudgement comment = rest("POST", "/repos/acme/widget/issues/4/comments", "{\"body\":\"x\"}");
    assertThat(comment.decision()).isEqualTo(Decision.DENY);
    assertThat(comment.reason()).isEqualTo("writing a comment is denied (write-tracker)");
  }

  @Test
  void mergingIsDeniedInChatModeWhateverTheRules() {
    GitHubApiJudge allowAll = chat("");

    ApiJudgement pr = allowAll.judge(call("PUT", "/repos/acme/widget/pulls/12/merge", "{}"));
    ApiJudgement branch = allowAll.judge(call("POST", "/repos/acme/widget/merges",
        "{\"base\":\"main\",\"head\":\"f\"}"));

    assertThat(pr.decision()).isEqualTo(Decision.DENY);
    assertThat(pr.reason()).isEqualTo("merging a pull request is denied in every mode, whatever the rules (a merge moves the base branch, which was not judged): a person merges it on GitHub");
    assertThat(pr.actions().get(0).kind()).isEqualTo("publish-review-or-merge");
    assertThat(branch.reason()).isEqualTo("merging a branch is denied in every mode, whatever the rules (a merge moves the base branch, which was not judged): a person merges it on GitHub");
  }

  @ParameterizedTest
  @EnumSource(value = Mode.class, names = {"PLAN", "REVIEW", "ORCHESTRATE"})
  void readOnlyModesDenyEveryWriteAndAllowReads(Mode mode) {
    GitHubApiJudge j = judge("", mode);

    ApiJudgement pr = j.judge(call("POST", "/repos/acme/widget/pulls", "{}"));
    ApiJudgement contents = j.judge(call("PUT", "/repos/acme/widget/contents/a.txt",
        "{\"branch\":\"f\",\"content\":\"\",\"message\":\"m\"}"));
    ApiJudgement blob = j.judge(call("POST", "/repos/acme/widget/git/blobs", "{}"));

    assertThat(pr.decision()).isEqualTo(Decision.DENY);
    assertThat(pr.reason()).isEqualTo(
        "opening a pull request is denied in " + mode.id() + " mode, which is read-only");
    assertThat(contents.reason()).isEqualTo(
        "push to refs/heads/f is denied in " + mode.id() + " mode, which is read-only");
    assertThat(blob.decision()).isEqualTo(Decision.DENY);
    assertThat(j.judge(call("GET", "/repos/acme/widget/pulls", null)).decision())
        .isEqualTo(Decision.ALLOW);
  }

  /** Found by a docs-only attack of issue 28: the question showed the file, not the commit. */
  @Test
  void aContentsWriteShowsItsCommitMessageAuthorAndCommitterToTheApprover() {
    ApiJudgement put = chat("push: ask\n").judge(call("PUT",
        "/repos/acme/widget/contents/a.txt", "{\"message\":\"fix the build\\nsecond line\","
            + "\"content\":\"eA==\",\"branch\":\"feature\",\"author\":{\"name\":\"Ann\","
            + "\"email\":\"ann@example.com\"},\"committer\":{\"name\":\"Bob\","
            + "\"email\":\"bob@example.com\",\"date\":\"2026-12-01T00:00:00Z\"}}"));
    ApiJudgement delete = chat("push: ask\n").judge(call("DELETE",
        "/repos/acme/widget/contents/a.txt", "{\"message\":\"drop a\",\"sha\":\"abc\","
            + "\"branch\":\"feature\",\"author\":{\"name\":\"Ann\"}}"));

    assertThat(put.decision()).isEqualTo(Decision.ASK);
    assertThat(put.actions().get(0).says()).isEqualTo("writes a.txt (1 bytes), message"
        + " \"fix the build / second line\", branch \"feature\", author.name \"Ann\","
        + " author.email \"ann@example.com\", committer.name \"Bob\", committer.email"
        + " \"bob@example.com\", committer.date \"2026-12-01T00:00:00Z\"");
    assertThat(delete.actions().get(0).says()).isEqualTo("deletes a.txt, message \"drop a\","
        + " sha \"abc\", branch \"feature\", author.name \"Ann\"");
  }

  /**
   * Attack 28b: a shown value cannot close its quotes and pose as other fields, nor can a
   * field's name: quotes and backslashes in them are escaped.
   */
  @Test
  void aShownValueOrNameCannotPoseAsOtherFields() {
    ApiJudgement put = chat("push: ask\n").judge(call("PUT",
        "/repos/acme/widget/contents/a.txt", "{\"message\":\"tidy\\\", branch \\\"ask/two\\\","
            + " author.name \\\"Ann\",\"content\":\"eA==\",\"branch\":\"feature\","
            + "\"x\\\", y \\\"z\":\"a\\\\b\"}"));
    ApiJudgement pr = chat("open-pull-request: ask\n").judge(call("POST",
        "/repos/acme/widget/pulls", "{\"title\":\"Fix typo\\\", base \\\"dl\",\"head\":\"f\","
            + "\"base\":\"main\"}"));

    assertThat(put.actions().get(0).says()).isEqualTo("writes a.txt (1 bytes), message"
        + " \"tidy\\\", branch \\\"ask/two\\\", author.name \\\"Ann\", branch \"feature\","
        + " \"x\\\", y \\\"z\" \"a\\\\b\"");
    assertThat(pr.actions().get(0).says()).isEqualTo("title \"Fix typo\\\", base \\\"dl\","
        + " head \"f\", base \"main\"");
  }

  /** A secret in a contents write's commit identities is refused as in a commit message. */
  @Test
  void aSecretInAContentsWritesAuthorOrCommitterIsRefusedAsInACommitMessage() {
    String pat = dev.pushgate.testkit.FakeSecrets.githubPat();
    ApiJudgement author = chat("push: allow\n").judge(call("PUT",
        "/repos/acme/widget/contents/a.txt", "{\"message\":\"m\",\"content\":\"eA==\","
            + "\"branch\":\"feature\",\"author\":{\"name\":\"" + pat + "\","
            + "\"email\":\"a@example.com\"}}"));
    ApiJudgement committer = chat("push: allow\n").judge(call("DELETE",
        "/repos/acme/widget/contents/a.txt", "{\"message\":\"m\",\"sha\":\"abc\","
            + "\"branch\":\"feature\",\"committer\":{\"name\":\"c\",\"email\":\"" + pat
            + "@example.com\"}}"));

    assertThat(author.decision()).isEqualTo(Decision.DENY);
    assertThat(author.reason()).contains("holds a GitHub personal access token");
    assertThat(committer.decision()).isEqualTo(Decision.DENY);
    assertThat(committer.reason()).contains("holds a GitHub personal access token");
  }

  @Test
  void aContentsWriteIsAPushToItsBranchWordedAsTheGatewayWordsIt() {
    ApiJudgement main = rest("PUT", "/repos/acme/widget/contents/src/a.txt",
        "{\"message\":\"m\",\"content\":\"eA==\",\"branch\":\"main\"}");
    ApiJudgement feature = rest("PUT", "/repos/acme/widget/contents/src/a.txt",
        "{\"message\":\"m\",\"content\":\"eA==\",\"branch\":\"feature/x\"}");
    ApiJudgement release = rest("DELETE", "/repos/acme/widget/contents/src/a.txt",
        "{\"message\":\"m\",\"sha\":\"abc\",\"branch\":\"release/1\"}");

    assertThat(main.decision()).isEqualTo(Decision.DENY);
    assertThat(main.reason()).isEqualTo("push to refs/heads/main is denied");
    assertThat(main.needsWriteToken()).isTrue();
    assertThat(main.actions().get(0)).isEqualTo(new ApiAction("push", "acme/widget",
        "refs/heads/main", Decision.DENY, "push to refs/heads/main is denied",
        "writes src/a.txt (1 bytes), message \"m\", branch \"main\""));
    assertThat(feature.decision()).isEqualTo(Decision.ALLOW);
    assertThat(release.decision()).isEqualTo(Decision.ASK);
    assertThat(release.reason()).isEqualTo("push to refs/heads/release/* needs approval");
  }

  @Test
  void aContentsWriteNamingNoBranchIsAPushToTheDefaultBranchWhenKnown() {
    String body = "{\"message\":\"m\",\"content\":\"eA==\"}";

    ApiJudgement known = rest("PUT", "/repos/acme/widget/contents/a.txt", body);
    ApiJudgement unknown = rest("PUT", "/repos/acme/gadget/contents/a.txt", body);

    assertThat(known.reason()).isEqualTo("push to refs/heads/main is denied");
    assertThat(unknown.decision()).isEqualTo(Decision.DENY);
    assertThat(unknown.reason()).isEqualTo("PUT /repos/acme/gadget/contents/a.txt names no"
        + " branch and the default branch of acme/gadget is not known, so it is denied;"
        + " name the branch");
  }

  @ParameterizedTest
  @ValueSource(strings = {"refs/heads/feature", "heads/feature", "a..b", "x y", "-"})
  void aContentsBranchThatIsNotAPlainBranchNameIsDenied(String branch) {
    ApiJudgement j = open.judge(call("PUT", "/repos/acme/widget/contents/a.txt",
        "{\"message\":\"m\",\"content\":\"\",\"branch\":\"" + branch + "\"}"));

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.reason()).contains("is not a plain branch name");
  }

  @ParameterizedTest
  @ValueSource(strings = {".github/workflows/ci.yml", ".GitHub/Workflows/x.yml", ".github"})
  void aContentsWriteToAWorkflowFileFollowsTheWorkflowRule(String file) {
    ApiJudgement j = chat("").judge(call("PUT", "/repos/acme/widget/contents/" + file,
        "{\"message\":\"m\",\"content\":\"\",\"branch\":\"feature\"}"));

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.reason()).isEqualTo("pushing a change to CI workflows is denied"
        + " (push-workflows): it changes CI workflows (" + file + ")");
    assertThat(j.actions()).extracting(ApiAction::kind).containsExactly("push", "push-workflows");
  }

  @Test
  void creatingARefIsAPushCreateJudgedByWhatItsCommitsBring() {
    String body = "{\"ref\":\"refs/heads/feature/x\",\"sha\":\"" + "a".repeat(40) + "\"}";
    UnseenCommits workflow = (repo, ref, id, rules) -> new UnseenCommits.Brought(
        Optional.empty(), List.of(".github/workflows/ci.yml"));
    UnseenCommits secret = (repo, ref, id, rules) -> new UnseenCommits.Brought(Optional.of(
        new Judgement(Decision.DENY, "content", "app.py:2 holds a GitHub personal access token")),
        List.of());
    UnseenCommits unfetchable = (repo, ref, id, rules) -> {
      throw new UnseenCommits.Unreadable("upstream does not serve it");
    };

    ApiJudgement clean = chat("").judge(call("POST", "/repos/acme/widget/git/refs", body));
    ApiJudgement workflows = ApiJudgeFixture.judge("", Mode.CHAT, workflow)
        .judge(call("POST", "/repos/acme/widget/git/refs", body));
    ApiJudgement leaks = ApiJudgeFixture.judge("", Mode.CHAT, secret)
        .judge(call("POST", "/repos/acme/widget/git/refs", body));
    ApiJudgement unread = ApiJudgeFixture.judge("", Mode.CHAT, unfetchable)
        .judge(call("POST", "/repos/acme/widget/git/refs", body));
    ApiJudgement main = strict.judge(call("POST", "/repos/acme/widget/git/refs",
        "{\"ref\":\"refs/heads/main\",\"sha\":\"" + "a".repeat(40) + "\"}"));
    ApiJudgement noSha = chat("").judge(call("POST", "/repos/acme/widget/git/refs",
        "{\"ref\":\"refs/heads/feature/x\"}"));

    assertThat(clean.decision()).isEqualTo(Decision.ALLOW);
    assertThat(clean.needsWriteToken()).isTrue();
    assertThat(workflows.decision()).isEqualTo(Decision.DENY);
    assertThat(workflows.reason()).isEqualTo("pushing a change to CI workflows is denied"
        + " (push-workflows): it changes CI workflows (.github/workflows/ci.yml)");
    assertThat(leaks.reason()).isEqualTo("app.py:2 holds a GitHub personal access token");
    assertThat(unread.reason()).isEqualTo("moving refs/heads/feature/x to " + "a".repeat(40)
        + " is denied: its commits cannot be judged as a push's: upstream does not serve it");
    assertThat(main.reason()).isEqualTo("push to refs/heads/main is denied");
    assertThat(noSha.decision()).isEqualTo(Decision.DENY);
  }

  @Test
  void updatingARefIsAnUpdateOrAForceAndDeletingItADelete() {
    GitHubApiJudge j = chat(STRICT + "push-workflows: allow\n");
    String path = "/repos/acme/widget/git/refs/heads/feature/x";

    ApiJudgement update = j.judge(call("PATCH", path, "{\"sha\":\"" + "a".repeat(40) + "\"}"));
    ApiJudgement force = j.judge(call("PATCH", path, "{\"sha\":\"abc\",\"force\":true}"));
    ApiJudgement delete = j.judge(call("DELETE", path, null));
    ApiJudgement badForce = j.judge(call("PATCH", path, "{\"sha\":\"abc\",\"force\":\"yes\"}"));
    ApiJudgement spelledOut = j.judge(call("PATCH",
        "/repos/acme/widget/git/refs/refs/heads/main", "{\"sha\":\"abc\"}"));

    assertThat(update.decision()).isEqualTo(Decision.ALLOW);
    assertThat(update.actions().get(0).target()).isEqualTo("refs/heads/feature/x");
    assertThat(force.reason()).isEqualTo("no force-push or delete of branches");
    assertThat(delete.reason()).isEqualTo("no force-push or delete of branches");
    assertThat(delete.needsWriteToken()).isTrue();
    assertThat(badForce.decision()).isEqualTo(Decision.DENY);
    assertThat(badForce.reason()).contains("cannot be read");
    assertThat(spelledOut.decision()).isEqualTo(Decision.DENY);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "blobs|{\"content\":\"hello\"}",
      "trees|{\"tree\":[{\"path\":\"a.txt\",\"mode\":\"100644\",\"content\":\"hi\"}]}",
      "commits|{\"message\":\"fix\",\"tree\":\"abc\"}",
      "tags|{\"tag\":\"v1\",\"message\":\"one\",\"object\":\"abc\",\"type\":\"commit\"}"})
  void gitObjectsAreAllowedButNeedTheWriteToken(String kind, String body) {
    ApiJudgement j = rest("POST", "/repos/acme/widget/git/" + kind, body);

    assertThat(j.decision()).isEqualTo(Decision.ALLOW);
    assertThat(j.needsWriteToken()).isTrue();
    assertThat(j.actions().get(0).kind()).isEqualTo("git-objects");
  }

  @ParameterizedTest
  @ValueSource(strings = {"push: deny\n", "push:\n  - refs: \"refs/**\"\n    decision: deny\n",
      "push:\n  - refs: refs/heads/main\n    decision: deny\n  - refs: \"refs/**\"\n"
          + "    decision: deny\n",
      // found by attack: a rule that lets only deletes through places no object
      "push:\n  - refs: \"refs/**\"\n    decision: deny\n  - refs: \"refs/heads/**\"\n"
          + "    kinds: [delete]\n    decision: allow\n"})
  void gitObjectsAreDeniedWhereNoPushCouldLand(String rules) {
    // An uploaded blob is readable by its id: with no ref pushable, it has no business there.
    ApiJudgement j = chat(rules).judge(call("POST", "/repos/acme/widget/git/blobs",
        "{\"content\":\"hello\"}"));
    ApiJudgement readOnly = judge("push: allow\n", Mode.PLAN).judge(call("POST",
        "/repos/acme/widget/git/trees", "{\"tree\":[]}"));
    ApiJudgement oneBranch = chat("push:\n  - refs: \"refs/**\"\n    decision: deny\n"
        + "  - refs: \"refs/heads/agent/*\"\n    decision: ask\n").judge(call("POST",
        "/repos/acme/widget/git/commits", "{\"message\":\"m\",\"tree\":\"abc\"}"));

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.reason()).isEqualTo("creating git objects is denied: no push rule of"
        + " acme/widget lets any ref be pushed, and an uploaded object is readable by its id");
    assertThat(readOnly.decision()).isEqualTo(Decision.DENY);
    assertThat(oneBranch.decision()).isEqualTo(Decision.ALLOW);
  }

  @Test
  void updatingAPullRequestBranchIsJudgedAsTheStrictestPushRule() {
    ApiJudgement strictRules = rest("PUT", "/repos/acme/widget/pulls/12/update-branch", "{}");
    ApiJudgement allowAll = open.judge(call("PUT", "/repos/acme/widget/pulls/12/update-branch",
        "{}"));

    assertThat(strictRules.decision()).isEqualTo(Decision.DENY);
    assertThat(strictRules.reason()).isEqualTo("updating pull request #12's branch is denied:"
        + " the call does not name the ref, so it is judged as strictly as the strictest push"
        + " rule");
    assertThat(allowAll.decision()).isEqualTo(Decision.ALLOW);
    assertThat(allowAll.needsWriteToken()).isTrue();
  }

  @ParameterizedTest
  @CsvSource({
      "PATCH, /repos/acme/widget",
      "DELETE, /repos/acme/widget",
      "PUT, /repos/acme/widget/collaborators/mallory",
      "POST, /repos/acme/widget/hooks",
      "POST, /repos/acme/widget/keys",
      "PUT, /repos/acme/widget/branches/main/protection",
      "DELETE, /repos/acme/widget/branches/main/protection",
      "POST, /repos/acme/widget/rulesets",
      "PUT, /repos/acme/widget/environments/prod",
      "PUT, /repos/acme/widget/actions/secrets/TOKEN",
      "POST, /repos/acme/widget/actions/variables",
      "POST, /repos/acme/widget/actions/workflows/ci.yml/dispatches",
      "POST, /repos/acme/widget/actions/runs/1/rerun",
      "POST, /repos/acme/widget/pages",
      "POST, /repos/acme/widget/transfer",
      "POST, /repos/acme/widget/forks",
      "POST, /repos/acme/widget/dispatches",
      "PUT, /repos/acme/widget/topics",
  })
  void administrationIsDenied(String method, String path) {
    ApiJudgement j = chat("").judge(call(method, path, "{}"));

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.actions().get(0).kind()).isEqualTo("admin");
    assertThat(j.reason()).isEqualTo("repository administration (" + method + " " + path
        + ") is denied");
  }

  @ParameterizedTest
  @CsvSource({"POST, /user/repos", "POST, /orgs/acme/repos", "PATCH, /user",
      "DELETE, /user/keys/1", "POST, /markdown"})
  void writesOutsideRepositoriesAreDenied(String method, String path) {
    ApiJudgement j = chat("").judge(call(method, path, "{}"));

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.reason()).isEqualTo(method + " " + path
        + " is account or organisation administration, which is denied");
  }

  @Test
  void releasesAreDeniedOnBothHosts() {
    ApiJudgement create = chat("").judge(call("POST", "/repos/acme/widget/releases", "{}"));
    ApiJudgement asset = chat("").judge(new ApiCall("POST", "uploads.github.com",
        "/repos/acme/widget/releases/1/assets", "name=a.zip", "application/zip", new byte[10]));

    assertThat(create.decision()).isEqualTo(Decision.DENY);
    assertThat(create.reason()).startsWith("publishing a release is denied");
    assertThat(asset.decision()).isEqualTo(Decision.DENY);
    assertThat(asset.reason()).isEqualTo(create.reason());
    // Audited as what it is on either host: administration, not an unknown route.
    assertThat(asset.actions()).extracting(ApiAction::kind).containsExactly(RunPolicy.ADMIN);
    assertThat(create.actions()).extracting(ApiAction::kind).containsExactly(RunPolicy.ADMIN);
  }

  @Test
  void anUnknownRouteIsDeniedNamingTheRoute() {
    ApiJudgement j = chat("").judge(call("POST", "/repos/acme/widget/frobnicate", "{}"));

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.reason())
        .isEqualTo("POST /repos/acme/widget/frobnicate is not a route the boundary knows, so"
            + " it is denied");
  }

  @Test
  void anotherRepositoryIsDeniedForReadsAndWrites() {
    ApiJudgement read = chat("").judge(call("GET", "/repos/evil/widget/contents/a", null));
    ApiJudgement write = chat("").judge(call("POST", "/repos/evil/widget/pulls", "{}"));

    assertThat(read.decision()).isEqualTo(Decision.DENY);
    assertThat(read.reason()).isEqualTo("evil/widget is not one of this run's repositories");
    assertThat(write.reason()).isEqualTo("evil/widget is not one of this run's repositories");
  }

  /** A write to another repository is audited as the write it is, not as a read. */
  @Test
  void aWriteToAnotherRepositoryKeepsItsOwnKind() {
    GitHubApiJudge j = chat("push: allow\nopen-pull-request: allow\nwrite-tracker: allow\n");

    ApiJudgement pull = j.judge(call("POST", "/repos/evil/x/pulls", "{\"title\":\"t\"}"));
    ApiJudgement contents = j.judge(call("PUT", "/repos/evil/x/contents/a.txt",
        "{\"message\":\"m\",\"content\":\"eA==\",\"branch\":\"main\"}"));
    ApiJudgement ref = j.judge(call("PATCH", "/repos/evil/x/git/refs/heads/main",
        "{\"sha\":\"" + "a".repeat(40) + "\"}"));
    ApiJudgement comment = j.judge(call("POST", "/repos/evil/x/issues/1/comments",
        "{\"body\":\"hi\"}"));
    ApiJudgement hook = j.judge(call("POST", "/repos/evil/x/hooks", "{}"));
    ApiJudgement cob = j.judge(graphQlCall("mutation { createCommitOnBranch(input: {branch:"
        + " {repositoryNameWithOwner: \\\"evil/x\\\", branchName: \\\"main\\\"},"
        + " expectedHeadOid: \\\"a\\\", message: {headline: \\\"m\\\"}}) { x } }"));

    assertThat(pull.actions()).extracting(ApiAction::kind).containsExactly("open-pull-request");
    assertThat(contents.actions().get(0).kind()).isEqualTo("push");
    assertThat(ref.actions().get(0).kind()).isEqualTo("push");
    assertThat(comment.actions().get(0).kind()).isEqualTo("write-tracker");
    assertThat(hook.actions().get(0).kind()).isEqualTo("admin");
    assertThat(cob.actions().get(0).kind()).isEqualTo("push");
    assertThat(List.of(pull, contents, ref, comment, hook, cob)).allSatisfy(a -> {
      assertThat(a.decision()).isEqualTo(Decision.DENY);
      assertThat(a.reason()).isEqualTo("evil/x is not one of this run's repositories");
      assertThat(a.actions()).allSatisfy(x -> assertThat(x.repository()).isEqualTo("evil/x"));
    });
  }

  private static ApiCall graphQlCall(String query) {
    return ApiJudgeFixture.graphQl("{\"query\": \"" + query + "\"}");
  }

  @Test
  void repositoriesCompareWithoutCaseButRouteWordsWithCase() {
    ApiJudgement upper = chat("").judge(call("POST", "/repos/ACME/Widget/pulls", "{}"));
    ApiJudgement attached = chat("").judge(call("GET", "/repos/acme/GADGET/pulls/1", null));
    ApiJudgement routeCase = chat("").judge(call("POST", "/repos/acme/widget/Pulls", "{}"));

    assertThat(upper.decision()).isEqualTo(Decision.ALLOW);
    assertThat(upper.actions().get(0).repository()).isEqualTo("acme/widget");
    assertThat(attached.decision()).isEqualTo(Decision.ALLOW);
    assertThat(routeCase.decision()).isEqualTo(Decision.DENY);
    assertThat(routeCase.reason()).contains("is not a route the boundary knows");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/", "/rate_limit", "/meta", "/zen", "/octocat", "/user",
      "/installation/repositories", "/emojis", "/licenses", "/licenses/mit",
      "/gitignore/templates", "/gitignore/templates/Java", "/repos/acme/widget",
      "/repos/acme/widget/pulls/1/files"})
  void harmlessReadsAndTheRunsRepositoriesAreAllowed(String path) {
    assertThat(strict.judge(call("GET", path, null)).decision()).isEqualTo(Decision.ALLOW);
    assertThat(strict.judge(call("HEAD", path, null)).decision()).isEqualTo(Decision.ALLOW);
  }

  @ParameterizedTest
  @ValueSource(strings = {"/search/code", "/users/mallory/repos", "/repositories/1",
      "/user/repos", "/orgs/acme", "/gists", "/notifications", "/licenses/mit/x"})
  void otherReadsAreDenied(String path) {
    ApiJudgement j = strict.judge(call("GET", path, null));

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.reason()).isEqualTo("GET " + path + " is not a read the boundary allows (only"
        + " the run's repositories and a few harmless routes)");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "/repos/acme%2Fwidget/x/pulls", "/repos/acme/widget%2fpulls", "/repos/acme/widget/../x",
      "/repos/acme/widget/%2e%2e/pulls", "/repos/acme/widget/./pulls", "/repos//acme/widget",
      "/repos/acme/widget/pulls/", "/repos/acme/widget;x=1/pulls", "/repos/acme/widget/pulls%3B",
      "/repos/acme/widget/pulls%252F", "/repos/acme/widget/pulls%zz", "/repos/acme/widget/pulls%",
      "/repos/acme/widget/pulls\\x", "/repos/acme/widget/pulls%5C", "/repos/acme/widget/p ulls",
      "/repos/acme/widget/pülls", "/repos/acme/widget/%00", "/repos/acme/widget/%ff",
      "repos/acme/widget/pulls", "", "//"})
  void pathsThatCouldBeReadTwoWaysAreDenied(String path) {
    ApiJudgement j = open.judge(call("POST", path, "{}"));

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.reason()).contains("is not a path the boundary reads plainly");
  }

  @Test
  void aPathIsDecodedOnce() {
    ApiJudgement j = chat("").judge(call("POST", "/repos/ac%6De/widget/pull%73", "{}"));

    assertThat(j.decision()).isEqualTo(Decision.ALLOW);
    assertThat(j.actions().get(0).kind()).isEqualTo("open-pull-request");
  }

  @Test
  void hostsAreTheConfiguredOnesOnly() {
    GitHubApiJudge j = chat("");
    ApiCall evil = new ApiCall("GET", "api.github.com.evil.test", "/repos/acme/widget", "", "",
        null);
    ApiCall upperWithPort = new ApiCall("GET", "API.GitHub.com:443", "/repos/acme/widget", "",
        "", null);
    ApiCall ghes = new ApiCall("POST", "github.example.com", "/api/v3/repos/acme/widget/pulls",
        "", "", "{}".getBytes(StandardCharsets.UTF_8));
    ApiCall ghesWithoutPrefix = new ApiCall("GET", "github.example.com", "/repos/acme/widget",
        "", "", null);
    ApiCall ghesUploads = new ApiCall("POST", "github.example.com",
        "/api/uploads/repos/acme/widget/releases/1/assets", "", "", null);

    assertThat(j.judge(evil).reason())
        .isEqualTo("api.github.com.evil.test is not a GitHub API host of this run");
    assertThat(j.judge(upperWithPort).decision()).isEqualTo(Decision.ALLOW);
    assertThat(j.judge(ghes).decision()).isEqualTo(Decision.ALLOW);
    assertThat(j.judge(ghes).actions().get(0).kind()).isEqualTo("open-pull-request");
    assertThat(j.judge(ghesWithoutPrefix).decision()).isEqualTo(Decision.DENY);
    assertThat(j.judge(ghesUploads).reason()).startsWith("publishing a release is denied");
    GitHubApiJudge dotCom = new GitHubApiJudge(ApiJudgeFixture.rules(""), Mode.CHAT,
        ApiJudgeFixture.WIDGET, List.of(), ApiHosts.GITHUB_COM, DefaultBranches.UNKNOWN);
    assertThat(dotCom.judge(ghes).decision()).isEqualTo(Decision.DENY);
  }

  @Test
  void otherMethodsAndWritesWithAQueryStringAreDenied() {
    GitHubApiJudge j = chat("");

    assertThat(j.judge(call("OPTIONS", "/repos/acme/widget", null)).reason())
        .isEqualTo("OPTIONS /repos/acme/widget is not a method the boundary judges, so it is"
            + " denied");
    assertThat(j.judge(new ApiCall("PUT", ApiHosts.API, "/repos/acme/widget/contents/a",
        "branch=main", "", "{\"branch\":\"f\"}".getBytes(StandardCharsets.UTF_8))).reason())
        .isEqualTo("PUT /repos/acme/widget/contents/a has a query string, which the boundary"
            + " does not read on writes, so it is denied");
    assertThat(j.judge(new ApiCall("GET", ApiHosts.API, "/repos/acme/widget/pulls",
        "state=open", "", null)).decision()).isEqualTo(Decision.ALLOW);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "not json", "[]", "{\"branch\":1}", "{\"branch\":\"f\",\"branch\":\"main\"}",
      "{\"branch\":\"f\"} {}"})
  void anUnreadableContentsBodyIsDeniedNamingTheRoute(String body) {
    ApiJudgement j = open.judge(call("PUT", "/repos/acme/widget/contents/a.txt", body));

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.reason()).isEqualTo("PUT /repos/acme/widget/contents/a.txt: the request body"
        + " cannot be read as the route's JSON, so it is denied");
  }

  @Test
  void aDeeplyNestedBodyIsDeniedNotThrown() {
    String deep = "{\"a\":".repeat(5000) + "1" + "}".repeat(5000);

    ApiJudgement j = open.judge(call("PUT", "/repos/acme/widget/contents/a.txt", deep));

    assertThat(j.decision()).isEqualTo(Decision.DENY);
  }

  @Test
  void nullFieldsOfACallAreDeniedNotThrown() {
    ApiJudgement j = open.judge(new ApiCall(null, null, null, null, null, null));

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(Optional.ofNullable(j.reason())).isPresent();
  }
}
