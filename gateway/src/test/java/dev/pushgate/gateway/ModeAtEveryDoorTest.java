package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.gateway.api.ApiCall;
import dev.pushgate.gateway.api.ApiHosts;
import dev.pushgate.gateway.api.GitHubApiJudge;
import dev.pushgate.policy.Boundary;
import dev.pushgate.policy.CommandJudgement;
import dev.pushgate.policy.CommandPolicy;
import dev.pushgate.policy.ContentRules;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Mode;
import dev.pushgate.policy.WorkspaceRules;
import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every command of the policy's corpus that the hook lets through to a boundary in a sandboxed
 * run ({@code git push} to the gateway, gh and curl to the GitHub API boundary) gets, at that
 * boundary, the decision the hook gives it in a run without a sandbox, in every mode (issue 28,
 * "the mode at every door"). The boundary is driven with the calls the client would make (the
 * push's ref updates, gh's REST or GraphQL request) under the corpus's default rules.
 *
 * <p>The one exception is stricter, never looser: what the API boundary denies by a rule of its
 * own, whatever the mode ({@link #DENIED_AT_THE_BOUNDARY}, docs/github-api.md), is denied where
 * the hook would ask.
 */
class ModeAtEveryDoorTest {
  private static final Path CORPUS =
      Path.of("..", "policy-hooks", "src", "test", "resources", "command-corpus.tsv");
  private static final RepoSlug REPO = new RepoSlug("acme", "widget");
  private static final WorkspaceRules RULES = WorkspaceRules.DEFAULT;
  private static final String GATEWAY = "the push gateway";
  private static final ObjectId A = ObjectId.fromString("1111111111111111111111111111111111111111");
  private static final ObjectId B = ObjectId.fromString("2222222222222222222222222222222222222222");
  private static final ObjectId ZERO = ObjectId.zeroId();

  /**
   * What a deferred line sends to its boundary, by a literal the line holds: the push gateway
   * ({@link #GATEWAY}) or the API calls gh or curl make for it. Every call names the run's
   * repository, as the line's own {@code o/r} would be in a run.
   */
  private static final Map<String, List<ApiCall>> CALLS = new LinkedHashMap<>();

  static {
    CALLS.put("pr create", List.of(rest("POST", "/repos/acme/widget/pulls",
        "{\"title\":\"x\",\"head\":\"feature\",\"base\":\"main\"}")));
    CALLS.put("gh pr merge --auto", List.of(graphQl("mutation { enablePullRequestAutoMerge("
        + "input: {pullRequestId: \\\"PR_1\\\"}) { clientMutationId } }")));
    CALLS.put("gh pr merge 12", List.of(rest("PUT", "/repos/acme/widget/pulls/12/merge", "{}")));
    CALLS.put("gh pr merge {}", List.of(rest("PUT", "/repos/acme/widget/pulls/12/merge", "{}")));
    CALLS.put("gh pr review", List.of(rest("POST", "/repos/acme/widget/pulls/12/reviews",
        "{\"event\":\"APPROVE\"}")));
    CALLS.put("gh pr comment", List.of(rest("POST", "/repos/acme/widget/issues/12/comments",
        "{\"body\":\"LGTM\"}")));
    CALLS.put("gh pr close", List.of(rest("PATCH", "/repos/acme/widget/pulls/12",
        "{\"state\":\"closed\"}")));
    CALLS.put("gh pr edit", List.of(rest("PATCH", "/repos/acme/widget/pulls/12",
        "{\"title\":\"x\"}")));
    CALLS.put("gh issue create", List.of(rest("POST", "/repos/acme/widget/issues",
        "{\"title\":\"bug\"}")));
    CALLS.put("gh issue edit", List.of(rest("POST", "/repos/acme/widget/issues/5/labels",
        "{\"labels\":[\"x\"]}")));
    CALLS.put("gh issue comment", List.of(rest("POST", "/repos/acme/widget/issues/5/comments",
        "{\"body\":\"done\"}")));
    CALLS.put("gh issue close", List.of(rest("PATCH", "/repos/acme/widget/issues/5",
        "{\"state\":\"closed\"}")));
    CALLS.put("gh issue reopen", List.of(rest("PATCH", "/repos/acme/widget/issues/5",
        "{\"state\":\"open\"}")));
    CALLS.put("gh release create", List.of(rest("POST", "/repos/acme/widget/releases",
        "{\"tag_name\":\"v1\"}")));
    CALLS.put("gh release upload", List.of(new ApiCall("POST", ApiHosts.UPLOADS,
        "/repos/acme/widget/releases/1/assets", "", "application/octet-stream", new byte[1])));
    CALLS.put("gh api -X PATCH repos/o/r ", List.of(rest("PATCH", "/repos/acme/widget",
        "{\"description\":\"x\"}")));
    CALLS.put("repos/o/r/issues -f title=x", List.of(rest("POST", "/repos/acme/widget/issues",
        "{\"title\":\"x\"}")));
    CALLS.put("DELETE repos/o/r/git/refs/heads/x", List.of(rest("DELETE",
        "/repos/acme/widget/git/refs/heads/x", "")));
    CALLS.put("addStar", List.of(graphQl(
        "mutation { addStar(input: {starrableId: \\\"R_1\\\"}) { clientMutationId } }")));
    CALLS.put("gh repo create", List.of(rest("POST", "/user/repos",
        "{\"name\":\"x\",\"private\":true}")));
    CALLS.put("gh workflow run", List.of(rest("POST",
        "/repos/acme/widget/actions/workflows/ci.yml/dispatches", "{\"ref\":\"main\"}")));
    CALLS.put("gh secret set", List.of(rest("PUT", "/repos/acme/widget/actions/secrets/TOKEN",
        "{\"encrypted_value\":\"eA==\",\"key_id\":\"1\"}")));
    CALLS.put("curl -s https://api.github.com/repos/o/r ", List.of(rest("GET",
        "/repos/acme/widget", "")));
  }

  /**
   * What the API boundary denies in every mode: merges (the base branch is not in the call),
   * releases, repository administration, workflow dispatches, secrets and mutations it does not
   * know.
   */
  private static final List<String> DENIED_AT_THE_BOUNDARY = List.of("gh pr merge",
      "gh release", "gh api -X PATCH repos/o/r ", "addStar", "gh repo create", "gh workflow run",
      "gh secret set");

  private static ApiCall rest(String method, String path, String body) {
    return new ApiCall(method, ApiHosts.API, path, "", "application/json",
        body.getBytes(StandardCharsets.UTF_8));
  }

  private static ApiCall graphQl(String query) {
    return rest("POST", "/graphql", "{\"query\":\"" + query + "\"}");
  }

  /** The corpus's commands that a sandboxed chat-mode run's hook lets through to a boundary. */
  static List<String> deferredLines() throws IOException {
    List<String> out = new ArrayList<>();
    for (String line : Files.readAllLines(CORPUS, StandardCharsets.UTF_8)) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      String command = line.split("\t", -1)[0].replace("⏎", "\n");
      CommandJudgement j = CommandPolicy.judge(command, Mode.CHAT, RULES,
          EnumSet.allOf(Boundary.class));
      if (j.reason().contains(", which is judged at ")) {
        out.add(command);
      }
    }
    return out;
  }

  static Stream<String> deferred() throws IOException {
    return deferredLines().stream();
  }

  @Test
  void theCorpusDefersPushesAndGitHubCallsToTheBoundaries() throws IOException {
    List<String> lines = deferredLines();
    assertThat(lines).hasSizeGreaterThan(50);
    assertThat(lines).anyMatch(l -> l.contains("git push")).anyMatch(l -> l.contains("gh pr"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("deferred")
  void theBoundaryDecidesAsTheHookWouldWithoutASandbox(String line) {
    for (Mode mode : Mode.values()) {
      CommandJudgement hook = CommandPolicy.judge(line, mode, RULES);
      if (DENIED_AT_THE_BOUNDARY.stream().anyMatch(line::contains)) {
        assertThat(atTheBoundary(line, mode)).as("%s in %s mode", line, mode.id())
            .isEqualTo(Decision.DENY);
        continue;
      }
      assertThat(atTheBoundary(line, mode)).as("%s in %s mode; the hook without a sandbox: %s",
          line, mode.id(), hook.reason()).isEqualTo(hook.decision());
    }
  }

  @Test
  void refDeletesAndObjectWritesAskInASandboxedChatRunAndOnlyThere() {
    // Found by review: under the default rules deleteRef and DELETE git/refs were allowed in chat
    // mode, while the hook asks about both without a sandbox.
    List<ApiCall> calls = List.of(
        graphQl("mutation { deleteRef(input: {refId: \\\"REF_1\\\"}) { clientMutationId } }"),
        rest("DELETE", "/repos/acme/widget/git/refs/heads/x", ""),
        rest("POST", "/repos/acme/widget/git/blobs", "{\"content\":\"hi\"}"));
    GitHubApiJudge sandboxed = new GitHubApiJudge(RULES, Mode.CHAT, EnumSet.allOf(Boundary.class),
        REPO, List.of(), ApiHosts.GITHUB_COM, repo -> Optional.of("main"));
    GitHubApiJudge hookAsked = new GitHubApiJudge(RULES, Mode.CHAT, Set.of(), REPO, List.of(),
        ApiHosts.GITHUB_COM, repo -> Optional.of("main"));
    for (ApiCall c : calls) {
      assertThat(sandboxed.judge(c).decision()).as(c.path()).isEqualTo(Decision.ASK);
      assertThat(sandboxed.judge(c).reason()).as(c.path()).endsWith("needs approval in chat mode");
      assertThat(hookAsked.judge(c).decision()).as(c.path()).isEqualTo(Decision.ALLOW);
    }
  }

  /** The strictest decision the boundaries give what {@code line} sends them. */
  private static Decision atTheBoundary(String line, Mode mode) {
    List<Decision> decisions = new ArrayList<>();
    if (toGateway(line)) {
      decisions.addAll(pushes(mode));
    } else {
      GitHubApiJudge api = new GitHubApiJudge(RULES, mode, EnumSet.allOf(Boundary.class), REPO,
          List.of(), ApiHosts.GITHUB_COM, repo -> Optional.of("main"));
      CALLS.forEach((literal, calls) -> {
        if (line.contains(literal)) {
          calls.forEach(c -> decisions.add(api.judge(c).decision()));
        }
      });
    }
    assertThat(decisions).as("what %s sends its boundary (add it to CALLS)", line).isNotEmpty();
    return decisions.stream().reduce(Decision.ALLOW, Decision::strictest);
  }

  private static boolean toGateway(String line) {
    return CommandPolicy.judge(line, Mode.CHAT, RULES, EnumSet.allOf(Boundary.class)).reason()
        .endsWith("judged at " + GATEWAY);
  }

  /**
   * The gateway's verdicts, for a sandboxed run (the push boundary in force), on each kind of
   * update of a branch, the default branch and a tag.
   */
  private static List<Decision> pushes(Mode mode) {
    RunContext run = new RunContext("run-1", "ws-1", REPO, List.of(), RULES.push(),
        RULES.pushWorkflows(), ContentRules.DEFAULT, mode, Set.of(Boundary.GIT_PUSH));
    List<Decision> out = new ArrayList<>();
    for (String ref : List.of("refs/heads/main", "refs/heads/feature", "refs/tags/v1")) {
      for (ObjectId[] move : new ObjectId[][] {{ZERO, A}, {A, B}, {A, ZERO}}) {
        Verdict v = Verdict.of(run::judgePush, ref, move[0], move[1]);
        out.add(switch (v.verdict()) {
          case ALLOWED -> Decision.ALLOW;
          case DENIED -> Decision.DENY;
          case ASK -> Decision.ASK;
          case BY_THE_PACK -> throw new AssertionError("one decision per kind here: " + ref);
        });
      }
    }
    return out;
  }
}
