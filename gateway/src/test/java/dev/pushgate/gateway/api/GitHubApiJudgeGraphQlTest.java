package dev.pushgate.gateway.api;

import static dev.pushgate.gateway.api.ApiJudgeFixture.STRICT;
import static dev.pushgate.gateway.api.ApiJudgeFixture.chat;
import static dev.pushgate.gateway.api.ApiJudgeFixture.graphQl;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.gateway.api.ApiJudgement.ApiAction;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Judgement;
import dev.pushgate.policy.Mode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** GraphQL documents: each root field of the operation GitHub would run, mapped and decided. */
class GitHubApiJudgeGraphQlTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** createCommitOnBranch with its whole input in {@code $input}. */
  private static final String CREATE_COMMIT_ON_BRANCH = "mutation($input:"
      + " CreateCommitOnBranchInput!) { createCommitOnBranch(input: $input) { commit { url } } }";
  private static final Map<String, Object> ADD_A_TXT =
      Map.of("additions", java.util.List.of(Map.of("path", "a.txt", "contents", "eA==")));

  private final GitHubApiJudge strict = chat(STRICT);

  /** The strict rules' judgement of {@link #CREATE_COMMIT_ON_BRANCH} with {@code input}. */
  private ApiJudgement createCommitOnBranch(Map<String, Object> input) {
    return strict.judge(graphQl(body(CREATE_COMMIT_ON_BRANCH, Map.of("input", input), null)));
  }

  /** The body gh sends: the document, its variables, and optionally an operation name. */
  private static String body(String document, Map<String, Object> variables, String operation) {
    ObjectNode b = JSON.createObjectNode();
    b.put("query", document);
    b.set("variables", JSON.valueToTree(variables));
    if (operation != null) {
      b.put("operationName", operation);
    }
    return b.toString();
  }

  private static String body(String document) {
    return body(document, Map.of(), null);
  }

  private ApiJudgement judge(GitHubApiJudge j, String document) {
    return j.judge(graphQl(body(document)));
  }

  @Test
  void eachActionSaysWhatItWouldPutOnGitHubForTheApprover() {
    ApiJudgement j = judge(chat("open-pull-request: ask\nwrite-tracker: ask\n"), "mutation {"
        + " pr: createPullRequest(input: {repositoryId: \"R\", baseRefName: \"main\","
        + " headRefName: \"f\", title: \"Add f\", body: \"1\\n2\\n3\\n4\"}) { clientMutationId }"
        + " c: addComment(input: {subjectId: \"PR\", body: \"" + "x".repeat(400) + "\"})"
        + " { clientMutationId } }");

    assertThat(j.actions()).extracting(ApiAction::says).containsExactly(
        "repositoryId \"R\", baseRefName \"main\", headRefName \"f\", title \"Add f\","
            + " body \"1 / 2 / 3\" (cut; 7 characters in all)",
        "subjectId \"PR\", body \"" + "x".repeat(200) + "…\" (cut; 400 characters in all)");
    assertThat(j.actions()).extracting(ApiAction::repository).containsOnly("acme/widget");
  }

  @ParameterizedTest
  @CsvSource({
      "createPullRequest, open-pull-request",
      "updatePullRequest, open-pull-request",
      "closePullRequest, open-pull-request",
      "reopenPullRequest, open-pull-request",
      "addPullRequestReview, publish-review-or-merge",
      "submitPullRequestReview, publish-review-or-merge",
      "addPullRequestReviewComment, publish-review-or-merge",
      "addPullRequestReviewThread, publish-review-or-merge",
      "addComment, write-tracker",
      "createIssue, write-tracker",
      "updateIssue, write-tracker",
      "closeIssue, write-tracker",
      "reopenIssue, write-tracker",
      "addLabelsToLabelable, write-tracker",
      "removeLabelsFromLabelable, write-tracker",
      "addReaction, write-tracker",
      "removeReaction, write-tracker",
      "updateIssueComment, write-tracker",
      "deleteIssueComment, write-tracker",
  })
  void mutationsMapToTheirActionClass(String field, String kind) {
    ApiJudgement j = judge(strict,
        "mutation($i: X!) { " + field + "(input: $i) { clientMutationId } }");

    assertThat(j.actions()).singleElement().satisfies(a -> {
      assertThat(a.kind()).isEqualTo(kind);
      assertThat(a.target()).isEqualTo(field);
      // Keyed by node ids: the run's own repository is the one named.
      assertThat(a.repository()).isEqualTo("acme/widget");
    });
    assertThat(j.decision()).isEqualTo(switch (kind) {
      case "open-pull-request" -> Decision.ALLOW;
      case "publish-review-or-merge" -> Decision.ASK;
      default -> Decision.DENY;
    });
  }

  @ParameterizedTest
  @EnumSource(Decision.class)
  void createPullRequestGetsTheRulesDecisionWhateverItsAlias(Decision d) {
    ApiJudgement j = judge(chat("open-pull-request: " + d.id()),
        "mutation { pr: createPullRequest(input: {repositoryId: \"R_1\", baseRefName: \"main\","
            + " headRefName: \"f\", title: \"t\"}) { pullRequest { url } } }");

    assertThat(j.decision()).isEqualTo(d);
    assertThat(j.actions().get(0).target()).isEqualTo("createPullRequest");
  }

  @ParameterizedTest
  @ValueSource(strings = {"mergePullRequest", "enablePullRequestAutoMerge", "enqueuePullRequest",
      "mergeBranch"})
  void mergesAreDeniedInChatMode(String field) {
    ApiJudgement j = judge(chat(""), "mutation { " + field + "(input: {}) { clientMutationId } }");

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.reason()).endsWith(" is denied in every mode, whatever the rules (a merge moves the base branch, which was not judged): a person merges it on GitHub");
  }

  @Test
  void mergePullRequestReadsAsGhPrMergeDoes() {
    ApiJudgement j = chat("").judge(graphQl(body("mutation PullRequestMerge($input:"
        + " MergePullRequestInput!) { mergePullRequest(input: $input) { clientMutationId } }",
        Map.of("input", Map.of("pullRequestId", "PR_1", "mergeMethod", "MERGE")), null)));

    assertThat(j.reason()).isEqualTo("merging a pull request is denied in every mode, whatever the rules (a merge moves the base branch, which was not judged): a person merges it on GitHub");
  }

  @Test
  void aBodyWithFieldsTheJudgeDoesNotReadIsDenied() {
    // A harmless read in "query", and a mutation where a server with persisted queries or a
    // case-folding reader would look: the judge reads only query, variables and operationName.
    for (String extra : List.of(
        "\"extensions\":{\"persistedQuery\":{\"version\":1,\"sha256Hash\":\"abc\"}}",
        "\"Query\":\"mutation { mergePullRequest(input: {}) { x } }\"",
        "\"id\":\"merge-it\"", "\"doc_id\":\"1\"")) {
      ApiJudgement j = chat("").judge(graphQl("{\"query\":\"{ viewer { login } }\"," + extra + "}"));
      assertThat(j.decision()).as(extra).isEqualTo(Decision.DENY);
      assertThat(j.reason()).as(extra).contains("the body has a field the boundary does not read");
    }
    ApiJudgement plain = chat("").judge(graphQl("{\"query\":\"{ viewer { login } }\","
        + "\"variables\":{},\"operationName\":null}"));
    assertThat(plain.decision()).isEqualTo(Decision.ALLOW);
  }

  @Test
  void anUnknownMutationIsDeniedNamingIt() {
    ApiJudgement j = judge(chat(""), "mutation { deleteRepository(input: {}) { x } }");

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.reason()).isEqualTo(
        "the GraphQL mutation deleteRepository is not one the boundary knows, so it is denied");
  }

  @Test
  void everyRootFieldIsJudgedAndTheStrictestWins() {
    ApiJudgement j = judge(strict, "mutation { a: createPullRequest(input: {}) { x }"
        + " b: addComment(input: {}) { x } __typename }");

    assertThat(j.actions()).extracting(ApiAction::target)
        .containsExactly("createPullRequest", "addComment");
    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.reason()).isEqualTo("writing to the tracker (addComment) is denied (write-tracker)");
  }

  @Test
  void fragmentsAtTheRootAreResolved() {
    ApiJudgement spread = judge(chat(""), "mutation { ...M } fragment M on Mutation {"
        + " mergePullRequest(input: {}) { x } }");
    ApiJudgement inline = judge(chat(""),
        "mutation { ... on Mutation { ... { mergePullRequest(input: {}) { x } } } }");
    ApiJudgement loop = judge(chat(""), "mutation { ...A } fragment A on Mutation { ...B }"
        + " fragment B on Mutation { ...A }");
    ApiJudgement missing = judge(chat(""), "mutation { ...Nowhere }");

    assertThat(spread.reason()).isEqualTo("merging a pull request is denied in every mode, whatever the rules (a merge moves the base branch, which was not judged): a person merges it on GitHub");
    assertThat(inline.reason()).isEqualTo("merging a pull request is denied in every mode, whatever the rules (a merge moves the base branch, which was not judged): a person merges it on GitHub");
    assertThat(loop.decision()).isEqualTo(Decision.DENY);
    assertThat(missing.reason()).endsWith("its fragments cannot be resolved");
  }

  /** More root fields than the judge reads: refused for that, not as an unresolved fragment. */
  @Test
  void moreThan256RootFieldsAreRefusedSayingSo() {
    StringBuilder flat = new StringBuilder("query {");
    for (int i = 0; i < 257; i++) {
      flat.append(" a").append(i).append(": __typename");
    }
    StringBuilder spread = new StringBuilder("query { ...F } fragment F on Query {");
    for (int i = 0; i < 300; i++) {
      spread.append(" a").append(i).append(": __typename");
    }
    StringBuilder exactly = new StringBuilder("query {");
    for (int i = 0; i < 256; i++) {
      exactly.append(" a").append(i).append(": __typename");
    }
    String refused = "POST /graphql is denied: it selects more than 256 root fields (aliases and"
        + " fields through fragments each count); pushgate judges at most 256 in one call:"
        + " split the call";

    ApiJudgement tooMany = judge(chat(""), flat + " }");
    ApiJudgement throughFragment = judge(chat(""), spread + " }");

    assertThat(tooMany.decision()).isEqualTo(Decision.DENY);
    assertThat(tooMany.reason()).isEqualTo(refused);
    assertThat(throughFragment.reason()).isEqualTo(refused);
    assertThat(judge(chat(""), exactly + " }").decision()).isEqualTo(Decision.ALLOW);
  }

  @Test
  void createCommitOnBranchIsAPushToItsBranch() {
    ApiJudgement main = createCommitOnBranch(Map.of("branch",
        Map.of("repositoryNameWithOwner", "acme/widget", "branchName", "main"),
        "fileChanges", ADD_A_TXT, "expectedHeadOid", "a".repeat(40)));
    ApiJudgement feature = createCommitOnBranch(Map.of("branch",
        Map.of("repositoryNameWithOwner", "ACME/widget", "branchName", "feature"),
        "fileChanges", ADD_A_TXT));
    ApiJudgement other = createCommitOnBranch(Map.of("branch",
        Map.of("repositoryNameWithOwner", "evil/widget", "branchName", "feature"),
        "fileChanges", ADD_A_TXT));

    assertThat(main.decision()).isEqualTo(Decision.DENY);
    assertThat(main.reason()).isEqualTo("push to refs/heads/main is denied");
    assertThat(main.needsWriteToken()).isTrue();
    assertThat(feature.decision()).isEqualTo(Decision.ALLOW);
    assertThat(feature.actions().get(0).repository()).isEqualTo("acme/widget");
    assertThat(other.reason()).isEqualTo("evil/widget is not one of this run's repositories");
  }

  @Test
  void aDocumentSentAgainIsJudgedAgainWithItsOwnVariables() {
    // The run's judge keeps the documents it parsed (ParsedDocuments): the variables, the
    // operation picked and every rule are still read on each call.
    Map<String, Object> feature = Map.of("branch", Map.of("repositoryNameWithOwner",
        "acme/widget", "branchName", "feature"), "fileChanges", ADD_A_TXT);
    Map<String, Object> main = Map.of("branch", Map.of("repositoryNameWithOwner",
        "acme/widget", "branchName", "main"), "fileChanges", ADD_A_TXT);

    assertThat(createCommitOnBranch(feature).decision()).isEqualTo(Decision.ALLOW);
    assertThat(createCommitOnBranch(main).reason()).isEqualTo("push to refs/heads/main is denied");
    assertThat(createCommitOnBranch(feature).decision()).isEqualTo(Decision.ALLOW);
  }

  @Test
  void createCommitOnBranchNamingItsBranchTwoWaysIsDenied() {
    // An allowed branch by name, and main's ref by node id: GitHub could take either.
    ApiJudgement both = createCommitOnBranch(Map.of("branch",
        Map.of("repositoryNameWithOwner", "acme/widget", "branchName", "feature",
            "id", "REF_kwDOmain"), "fileChanges", ADD_A_TXT));
    ApiJudgement extra = createCommitOnBranch(Map.of("branch",
        Map.of("repositoryNameWithOwner", "acme/widget", "branchName", "feature",
            "ref", "refs/heads/main"), "fileChanges", ADD_A_TXT));

    assertThat(both.decision()).isEqualTo(Decision.DENY);
    assertThat(both.reason()).contains("createCommitOnBranch has an input the boundary cannot read");
    assertThat(extra.decision()).isEqualTo(Decision.DENY);
  }

  @Test
  void createCommitOnBranchChangingAWorkflowFollowsTheWorkflowRule() {
    ApiJudgement j = judge(chat(""), "mutation { createCommitOnBranch(input: {branch:"
        + " {repositoryNameWithOwner: \"acme/widget\", branchName: \"f\"}, fileChanges:"
        + " {deletions: [{path: \".github/workflows/ci.yml\"}]}, expectedHeadOid: \"a\"})"
        + " { commit { url } } }");

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.reason()).isEqualTo("pushing a change to CI workflows is denied"
        + " (push-workflows): it changes CI workflows (.github/workflows/ci.yml)");
  }

  @Test
  void createCommitOnBranchNamedByIdIsJudgedAsTheStrictestPushRule() {
    ApiJudgement j = judge(strict, "mutation { createCommitOnBranch(input: {branch: {id:"
        + " \"REF_1\"}, expectedHeadOid: \"a\"}) { commit { url } } }");

    assertThat(j.decision()).isEqualTo(Decision.DENY);
    assertThat(j.reason()).startsWith("committing to a branch named by its id is denied");
  }

  @Test
  void refMutationsArePushes() {
    GitHubApiJudge j = chat(STRICT + "push-workflows: allow\n");

    ApiJudgement create = judge(j, "mutation { createRef(input: {repositoryId: \"R\", name:"
        + " \"refs/heads/release/2\", oid: \"a\"}) { ref { name } } }");
    ApiJudgement force = judge(j, "mutation { updateRefs(input: {repositoryId: \"R\","
        + " refUpdates: [{name: \"refs/heads/f\", afterOid: \"b\", beforeOid: \"a\", force: true}]})"
        + " { clientMutationId } }");
    ApiJudgement update = judge(j, "mutation { updateRefs(input: {repositoryId: \"R\","
        + " refUpdates: [{name: \"refs/heads/f\", afterOid: \"b\", beforeOid: \"a\"}]}) { x } }");
    ApiJudgement delete = judge(j, "mutation { updateRefs(input: {repositoryId: \"R\","
        + " refUpdates: [{name: \"refs/heads/f\", afterOid: \"" + "0".repeat(40) + "\"}]}) { x } }");
    ApiJudgement byId = judge(j, "mutation { deleteRef(input: {refId: \"REF\"}) { x } }");

    assertThat(create.decision()).isEqualTo(Decision.ASK);
    assertThat(create.reason()).isEqualTo("push to refs/heads/release/* needs approval");
    assertThat(create.needsWriteToken()).isTrue();
    assertThat(force.reason()).isEqualTo("no force-push or delete of branches");
    assertThat(update.decision()).isEqualTo(Decision.ALLOW);
    assertThat(delete.reason()).isEqualTo("no force-push or delete of branches");
    assertThat(byId.decision()).isEqualTo(Decision.DENY);
  }

  @Test
  void everyRefMutationToAnIdIsJudgedByWhatItsCommitsBring() {
    List<String> asked = new java.util.ArrayList<>();
    GitHubApiJudge j = ApiJudgeFixture.judge("push-workflows: allow\n", Mode.CHAT,
        (repo, ref, id, rules) -> {
          asked.add(repo + " " + ref + " " + id);
          return new UnseenCommits.Brought(Optional.of(new Judgement(Decision.DENY, "content",
              "config/.env matches \"no secret files\"")), List.of());
        });

    ApiJudgement byId = judge(j, "mutation { updateRef(input: {refId: \"REF\", oid: \"a1\"})"
        + " { x } }");
    ApiJudgement create = judge(j, "mutation { createRef(input: {repositoryId: \"R\", name:"
        + " \"refs/heads/x\", oid: \"b1\"}) { x } }");
    ApiJudgement update = judge(j, "mutation { updateRefs(input: {repositoryId: \"R\","
        + " refUpdates: [{name: \"refs/heads/f\", afterOid: \"c1\", beforeOid: \"a\"}]}) { x } }");
    ApiJudgement noOid = judge(j, "mutation { createRef(input: {repositoryId: \"R\", name:"
        + " \"refs/heads/x\"}) { x } }");

    assertThat(List.of(byId, create, update)).allSatisfy(a -> {
      assertThat(a.decision()).isEqualTo(Decision.DENY);
      assertThat(a.reason()).isEqualTo("config/.env matches \"no secret files\"");
    });
    // GraphQL names the repository by node id: the run's own is read.
    assertThat(asked).containsExactly("acme/widget updateRef a1", "acme/widget refs/heads/x b1",
        "acme/widget refs/heads/f c1");
    assertThat(noOid.reason()).contains("an input the boundary cannot read");
  }

  @ParameterizedTest
  @EnumSource(value = Mode.class, names = {"PLAN", "REVIEW", "ORCHESTRATE"})
  void readOnlyModesDenyEveryMutationAndAllowQueries(Mode mode) {
    GitHubApiJudge j = ApiJudgeFixture.judge("", mode);

    assertThat(judge(j, "mutation { addComment(input: {}) { x } }").reason())
        .isEqualTo("writing to the tracker (addComment) is denied in " + mode.id()
            + " mode, which is read-only");
    assertThat(judge(j, "{ viewer { login } }").decision()).isEqualTo(Decision.ALLOW);
  }

  @Test
  void queriesReadOnlyTheRunsRepositories() {
    GitHubApiJudge j = chat("");
    String doc = "query($o: String!, $n: String!) { repository(owner: $o, name: $n) { id } }";

    assertThat(j.judge(graphQl(body(doc, Map.of("o", "acme", "n", "Gadget"), null))).decision())
        .isEqualTo(Decision.ALLOW);
    assertThat(j.judge(graphQl(body(doc, Map.of("o", "evil", "n", "x"), null))).reason())
        .isEqualTo("evil/x is not one of this run's repositories");
    assertThat(judge(j, "{ repository(owner: \"acme\") { id } }").decision())
        .isEqualTo(Decision.DENY);
    assertThat(judge(j, "{ viewer { login } rateLimit { remaining } }").decision())
        .isEqualTo(Decision.ALLOW);
    assertThat(judge(j, "{ search(query: \"x\", type: REPOSITORY, first: 1) { repositoryCount } }")
        .reason()).isEqualTo("the GraphQL field search reads outside this run's repositories, so"
        + " it is denied (gh pr status and gh search use it); use gh pr list, gh pr view or gh"
        + " issue list, which read one of the run's repositories");
    // A search scoped to one of the run's repositories stays denied: its query is free text.
    assertThat(judge(j, "{ search(query: \"repo:acme/widget is:pr\", type: ISSUE, first: 1)"
        + " { issueCount } }").decision()).isEqualTo(Decision.DENY);
  }

  @Test
  void theOperationIsPickedByItsName() {
    GitHubApiJudge j = chat("");
    String doc = "query Q { viewer { login } } mutation M { mergePullRequest(input: {}) { x } }";

    assertThat(j.judge(graphQl(body(doc, Map.of(), "Q"))).decision()).isEqualTo(Decision.ALLOW);
    assertThat(j.judge(graphQl(body(doc, Map.of(), "M"))).decision()).isEqualTo(Decision.DENY);
    assertThat(j.judge(graphQl(body(doc, Map.of(), null))).reason()).isEqualTo("POST /graphql is"
        + " denied: the document has several operations (or none) and names none to run");
    assertThat(j.judge(graphQl(body(doc, Map.of(), "Nope"))).reason())
        .isEqualTo("POST /graphql is denied: the document has no operation named Nope");
    assertThat(judge(j, "query Q { viewer { id } } query Q { viewer { id } }").decision())
        .isEqualTo(Decision.DENY);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "", "not json", "[]", "{}", "{\"query\": 1}", "{\"query\": \"{ viewer { id } }\","
          + " \"variables\": []}", "{\"query\": \"{ viewer { id } }\", \"operationName\": 1}",
      "{\"query\": \"{ viewer { id } }\", \"query\": \"mutation { mergePullRequest }\"}",
      "{\"query\": \"mutation { \"}", "{\"query\": \"subscription { x }\"}",
      "{\"query\": \"type Query { x: Int }\"}", "{\"query\": \"\"}",
      "{\"query\": \"mutation { addComment(input: {}, input: {}) { x } }\"}",
      "{\"query\": \"mutation { createRef(input: {name: \\\"refs/heads/a\\\","
          + " name: \\\"refs/heads/b\\\"}) { x } }\"}",
      "{\"query\": \"mutation($a: X, $a: X) { addComment(input: $a) { x } }\"}",
      "{\"query\": \"mutation { createRef(input: {name: \\\"main\\\"}) { x } }\"}",
      "{\"query\": \"mutation { createCommitOnBranch(input: {branch: {branchName: \\\"x\\\"}}) { x } }\"}",
      "{\"query\": \"mutation { updateRefs(input: {refUpdates: []}) { x } }\"}",
  })
  void malformedCallsAreDenied(String raw) {
    ApiJudgement j = chat("").judge(new ApiCall("POST", ApiHosts.API, "/graphql", "", "",
        raw.getBytes(StandardCharsets.UTF_8)));

    assertThat(j.decision()).isEqualTo(Decision.DENY);
  }

  @Test
  void hugeAndDeepDocumentsAreDeniedNotThrown() {
    String huge = "{ viewer { login } }" + " ".repeat(GraphQlCalls.MAX_DOCUMENT);
    String deep = "{ " + "a { ".repeat(3000) + "b" + " }".repeat(3001);
    String manyTokens = "{ viewer { " + "login ".repeat(60_000) + "} }";
    String deepValue = "mutation { addComment(input: " + "[".repeat(3000) + "]".repeat(3000)
        + ") { x } }";

    for (String doc : new String[] {huge, deep, manyTokens, deepValue}) {
      ApiJudgement j = judge(chat(""), doc);
      assertThat(j.decision()).isEqualTo(Decision.DENY);
    }
    assertThat(judge(chat(""), huge).reason()).endsWith("larger than 256 KiB");
  }

  @Test
  void graphQlIsAPostWithoutAQueryString() {
    GitHubApiJudge j = chat("");

    assertThat(j.judge(new ApiCall("GET", ApiHosts.API, "/graphql", "query=x", "", null))
        .reason()).isEqualTo("GET /graphql is denied: GraphQL calls are POST requests");
    assertThat(j.judge(new ApiCall("POST", ApiHosts.API, "/graphql", "x=1", "",
        body("{ viewer { id } }").getBytes(StandardCharsets.UTF_8))).decision())
        .isEqualTo(Decision.DENY);
    assertThat(j.judge(new ApiCall("POST", ApiJudgeFixture.GHES, "/api/graphql", "", "",
        body("{ viewer { id } }").getBytes(StandardCharsets.UTF_8))).decision())
        .isEqualTo(Decision.ALLOW);
  }
}
