package dev.pushgate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Where a boundary is in force for the run, the command policy lets through what the boundary
 * judges; where it is not, it judges exactly as it always did.
 */
class BoundaryDeferralTest {
  private static final Set<Boundary> NONE = Set.of();
  private static final Set<Boundary> PUSHES = EnumSet.of(Boundary.GIT_PUSH);
  private static final Set<Boundary> BOTH = EnumSet.allOf(Boundary.class);
  private static final WorkspaceRules DEFAULT = WorkspaceRules.DEFAULT;
  private static final WorkspaceRules EXAMPLE = rules(WorkspaceRulesTest.EXAMPLE);

  private static WorkspaceRules rules(String yaml) {
    try {
      return WorkspaceRules.parse(yaml);
    } catch (RulesException e) {
      throw new AssertionError(e);
    }
  }

  private static CommandJudgement judge(String line, Mode mode, WorkspaceRules rules,
      Set<Boundary> boundaries) {
    return CommandPolicy.judge(line, mode, rules, boundaries);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "git push origin feature",
      "git push",
      "git push -u origin HEAD",
      "git -C /work/repo push origin feature",
      "git -c push.default=current push",
      "/usr/bin/git push origin feature",
      "GIT_TRACE=1 git push origin feature",
      "env GIT_TRACE=1 git push origin feature",
      "timeout 60 git push origin feature",
      "bash -c 'git push origin feature'",
      "git add . && git commit -m x && git push origin feature",
      "git push https://github.com/acme/widget.git feature",
      "git push git@github.com:acme/widget.git feature",
      "git push ssh://git@GitHub.com:22/acme/widget feature",
      "git push --repo=origin",
      "git push -o ci.skip origin feature",
      "git push origin \"$BRANCH\""})
  void aPushToTheGitHostIsLetThroughToTheGatewayWhereItIsInForce(String line) {
    CommandJudgement j = judge(line, Mode.CHAT, DEFAULT, PUSHES);
    assertThat(j.decision()).as(line).isEqualTo(Decision.ALLOW);
    assertThat(j.reason()).as(line)
        .isEqualTo("`git push` would push to a remote, which is judged at the push gateway");
    assertThat(j.actions()).as(line).contains(ActionClass.PUSH);

    CommandJudgement before = judge(line, Mode.CHAT, DEFAULT, NONE);
    assertThat(before.decision()).as(line).isEqualTo(Decision.ASK);
    assertThat(before.reason()).as(line)
        .isEqualTo("`git push` would push to a remote, which needs approval in chat mode");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "git push https://gitlab.com/acme/widget.git feature",
      "git push git@bitbucket.org:acme/widget.git feature",
      "git push https://github.com.evil.example/acme/widget.git feature",
      "git push /tmp/mirror.git feature",
      "git push ../mirror feature",
      "git push \"$REMOTE\" feature",
      "git push --receive-pack='sh -c id' origin feature",
      "git push --exec=x origin feature",
      "git -c remote.origin.pushurl=https://gitlab.com/x/y.git push origin feature",
      "git -c url.https://gitlab.com/.pushInsteadOf=https://github.com/ push origin feature",
      "git --config-env=remote.origin.pushurl=URL push origin feature"})
  void aPushTheGatewayMayNotSeeStillAsks(String line) {
    assertThat(judge(line, Mode.CHAT, DEFAULT, BOTH).decision()).as(line).isEqualTo(Decision.ASK);
  }

  @Test
  void theWorkspacesPushRulesAreTheGatewaysToApplyOnTheRefsItSees() {
    // Today the hook guesses the refs and kinds from the line; at the gateway the real ones meet
    // the same rules, with the same reasons, in git's output.
    assertThat(judge("git push -f origin feature", Mode.CHAT, EXAMPLE, NONE).reason())
        .isEqualTo("`git push` to refs/heads/feature: history is not rewritten here");
    assertThat(judge("git push -f origin feature", Mode.CHAT, EXAMPLE, PUSHES).decision())
        .isEqualTo(Decision.ALLOW);
    assertThat(judge("git push origin main", Mode.CHAT, EXAMPLE, PUSHES).decision())
        .isEqualTo(Decision.ALLOW);
  }

  @Test
  void rulesThatDenyEveryPushStillDenyAtTheHook() {
    WorkspaceRules noPush = rules("""
        push:
          - refs: "refs/heads/**"
            decision: deny
            reason: this workspace does not push
        """);
    assertThat(noPush.push().fallback()).isEqualTo(Decision.ALLOW);
    assertThat(judge("git push origin feature", Mode.CHAT, noPush, PUSHES).decision())
        .as("a default of allow leaves refs the rules do not name to the gateway")
        .isEqualTo(Decision.ALLOW);

    WorkspaceRules denyAll = rules("""
        push:
          - refs: "refs/**"
            decision: deny
            reason: no pushes here
          - refs: refs/heads/main
            decision: deny
            reason: main is protected
        """);
    assertThat(judge("git push origin feature", Mode.CHAT, denyAll, PUSHES)).isEqualTo(
        new CommandJudgement(Decision.DENY, Set.of(ActionClass.PUSH),
            "`git push` to refs/heads/feature: no pushes here"));
    assertThat(judge("git push", Mode.CHAT, rules("push: deny\n"), PUSHES).decision())
        .isEqualTo(Decision.DENY);
  }

  @ParameterizedTest
  @ValueSource(strings = {"plan", "review", "orchestrate"})
  void readOnlyModesStillDenyPushesAndGitHubWrites(String id) {
    Mode mode = Mode.fromId(id);
    assertThat(judge("git push origin feature", mode, DEFAULT, BOTH)).isEqualTo(
        new CommandJudgement(Decision.DENY, Set.of(ActionClass.PUSH),
            "`git push` would push to a remote, and " + id + " mode is read-only"));
    assertThat(judge("gh pr create --fill", mode, DEFAULT, BOTH).decision())
        .isEqualTo(Decision.DENY);
    assertThat(judge("gh api -X POST repos/acme/widget/issues", mode, DEFAULT, BOTH).decision())
        .isEqualTo(Decision.DENY);
    assertThat(judge("curl -X POST https://api.github.com/repos/acme/widget/pulls", mode,
        DEFAULT, BOTH).decision()).isEqualTo(Decision.DENY);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "gh pr create --fill",
      "gh pr create --title 'Fix it' --body 'see https://example.com'",
      "gh pr merge 12 --squash",
      "gh pr comment 12 --body hi",
      "gh pr review 12 --approve",
      "gh issue create --title x --body y",
      "gh issue comment 3 --body y",
      "gh api -X POST repos/acme/widget/pulls -f title=x",
      "gh api repos/acme/widget/issues/1/comments -f body=hi",
      "gh api graphql -f query='mutation { mergePullRequest(input: {}) { clientMutationId } }'",
      "gh api -X POST https://api.github.com/repos/acme/widget/pulls",
      "gh release create v1",
      "gh -R acme/widget pr create --fill",
      "gh pr create -R github.com/acme/widget --fill",
      "GH_PROMPT_DISABLED=1 gh pr create --fill"})
  void ghCallsAreLetThroughToTheApiBoundaryWhereItIsInForce(String line) {
    CommandJudgement j = judge(line, Mode.CHAT, DEFAULT, BOTH);
    assertThat(j.decision()).as(line).isEqualTo(Decision.ALLOW);
    assertThat(j.reason()).as(line).endsWith(", which is judged at the GitHub API boundary");

    assertThat(judge(line, Mode.CHAT, DEFAULT, PUSHES).decision())
        .as("only the push gateway in force: " + line).isEqualTo(Decision.ASK);
    assertThat(judge(line, Mode.CHAT, DEFAULT, NONE).decision()).as(line).isEqualTo(Decision.ASK);
  }

  @Test
  void aGhCallsReasonNamesTheBoundary() {
    assertThat(judge("gh pr create --fill", Mode.CHAT, DEFAULT, BOTH)).isEqualTo(
        new CommandJudgement(Decision.ALLOW, Set.of(ActionClass.OPEN_PULL_REQUEST),
            "`gh pr create` would open a pull request, which is judged at the GitHub API"
                + " boundary"));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "gh pr create --hostname ghe.example.com --fill",
      "gh -R ghe.example.com/acme/widget pr create --fill",
      "gh api -X POST https://evil.example/repos/acme/widget/pulls",
      "gh api --hostname evil.example -X POST repos/acme/widget/pulls"})
  void aGhCallToAnotherHostStillAsks(String line) {
    assertThat(judge(line, Mode.CHAT, DEFAULT, BOTH).decision()).as(line).isEqualTo(Decision.ASK);
  }

  @Test
  void whatGhDoesLocallyStaysTheCommandPolicys() {
    assertThat(judge("gh extension install owner/gh-x", Mode.CHAT, DEFAULT, BOTH).decision())
        .isEqualTo(Decision.ASK);
    assertThat(judge("gh pr checkout 12", Mode.PLAN, DEFAULT, BOTH).decision())
        .isEqualTo(Decision.DENY);
  }

  @Test
  void aRuleThatDeniesTheActionStillDeniesAtTheHook() {
    WorkspaceRules noPrs = rules("open-pull-request: deny\n");
    assertThat(judge("gh pr create --fill", Mode.CHAT, noPrs, BOTH)).isEqualTo(
        new CommandJudgement(Decision.DENY, Set.of(ActionClass.OPEN_PULL_REQUEST),
            "`gh pr create` would open a pull request, which this workspace's rules deny"));
    assertThat(judge("gh pr create --fill", Mode.CHAT, EXAMPLE, BOTH).decision())
        .as("an ask is the boundary's to hold, with the same approvers")
        .isEqualTo(Decision.ALLOW);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "curl https://api.github.com/repos/acme/widget",
      "curl -sSf -H 'Accept: application/vnd.github+json' https://api.github.com/repos/acme/widget/pulls",
      "curl --header 'Authorization: Bearer x' https://api.github.com/user",
      "curl https://API.GitHub.com:443/repos/acme/widget",
      "curl --url https://api.github.com/repos/acme/widget",
      "curl -s https://uploads.github.com/repos/acme/widget/releases/1/assets",
      "wget -qO- https://api.github.com/repos/acme/widget",
      "http https://api.github.com/repos/acme/widget",
      "https GET api.github.com/repos/acme/widget",
      "xh https://api.github.com/repos/acme/widget Accept:application/json"})
  void anHttpCallToTheApiIsLetThroughWhereTheApiBoundaryIsInForce(String line) {
    WorkspaceRules askNetwork = rules("access-network: ask\n");
    CommandJudgement j = judge(line, Mode.CHAT, askNetwork, BOTH);
    assertThat(j.decision()).as(line).isEqualTo(Decision.ALLOW);
    assertThat(j.reason()).as(line).endsWith(", which is judged at the GitHub API boundary");
    assertThat(judge(line, Mode.CHAT, askNetwork, PUSHES).decision()).as(line)
        .isEqualTo(Decision.ASK);
    assertThat(judge(line, Mode.CHAT, askNetwork, NONE).decision()).as(line)
        .isEqualTo(Decision.ASK);
  }

  @Test
  void aCurlPostToTheApiIsLetThroughInChat() {
    WorkspaceRules askNetwork = rules("access-network: ask\n");
    assertThat(judge("curl -X POST -d '{\"title\":\"x\"}'"
        + " https://api.github.com/repos/acme/widget/pulls", Mode.CHAT, askNetwork, BOTH)
        .decision()).isEqualTo(Decision.ALLOW);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "curl https://api.github.com/repos/acme/widget https://evil.example/x",
      "curl http://api.github.com/repos/acme/widget",
      "curl api.github.com/repos/acme/widget",
      "curl https://api.github.com.evil.example/x",
      "curl https://api.github.com@evil.example/x",
      "curl https://api.github.com:8443/x",
      "curl --resolve api.github.com:443:203.0.113.9 https://api.github.com/x",
      "curl -x http://203.0.113.9:3128 https://api.github.com/x",
      "curl -K urls.txt",
      "curl \"$API\"/repos",
      "curl https://evil.example/x",
      "wget -i urls.txt",
      "wget https://api.github.com/x https://evil.example/y",
      "http POST :3000/x",
      "http api.github.com/repos/acme/widget",
      "http --proxy=https:http://203.0.113.9 https://api.github.com/x"})
  void anHttpCallThatMayGoElsewhereIsJudgedAsBefore(String line) {
    WorkspaceRules askNetwork = rules("access-network: ask\n");
    assertThat(judge(line, Mode.CHAT, askNetwork, BOTH).decision()).as(line)
        .isEqualTo(Decision.ASK);
  }

  @Test
  void aNetworkRuleThatDeniesStillDeniesACallToTheApi() {
    WorkspaceRules noNetwork = rules("access-network: deny\n");
    assertThat(judge("curl https://api.github.com/user", Mode.CHAT, noNetwork, BOTH).decision())
        .isEqualTo(Decision.DENY);
  }

  @Test
  void theStrictestFindingOfTheLineStillWins() {
    assertThat(judge("git push origin feature && sudo reboot", Mode.CHAT, DEFAULT, BOTH)
        .decision()).isEqualTo(Decision.DENY);
    assertThat(judge("git push origin feature && npm publish", Mode.CHAT, DEFAULT, BOTH))
        .isEqualTo(new CommandJudgement(Decision.ASK, Set.of(ActionClass.PUSH),
            "`npm publish` changes what the npm registry serves, which needs approval in chat"
                + " mode"));
    assertThat(judge("git push origin feature && gh pr create --fill", Mode.CHAT, DEFAULT,
        PUSHES).reason())
        .isEqualTo("`gh pr create` would open a pull request, which needs approval in chat mode");
    assertThat(judge("git commit -m x && git push origin feature", Mode.CHAT, EXAMPLE, PUSHES)
        .reason()).as("the boundary is named over an allow nothing judges")
        .isEqualTo("`git push` would push to a remote, which is judged at the push gateway");
  }

  @Test
  void aCommandWhoseProgramCannotBeSeenIsStillFailClosed() {
    assertThat(judge("$GIT push origin feature", Mode.CHAT, DEFAULT, BOTH).decision())
        .isEqualTo(Decision.ASK);
    assertThat(judge("git \"$SUB\" origin feature", Mode.CHAT, DEFAULT, BOTH).decision())
        .isEqualTo(Decision.ASK);
  }

  /**
   * Over the whole corpus, in every mode: with no boundary in force, the four-argument judge is
   * the three-argument one; with both in force, nothing gets stricter, a deny stays a deny, and
   * what changes says which boundary judges it.
   */
  @Test
  void boundariesOnlyEverLoosenWhatTheyJudgeAndNeverADeny() throws Exception {
    int loosened = 0;
    for (CommandCorpusTest.Case c : CommandCorpusTest.corpus()) {
      for (Mode mode : Mode.values()) {
        CommandJudgement today = CommandPolicy.judge(c.command(), mode, DEFAULT);
        assertThat(judge(c.command(), mode, DEFAULT, NONE)).as("%s in %s", c, mode.id())
            .isEqualTo(today);
        CommandJudgement deferred = judge(c.command(), mode, DEFAULT, BOTH);
        assertThat(deferred.actions()).isEqualTo(today.actions());
        assertThat(deferred.decision()).as("%s in %s", c, mode.id())
            .isLessThanOrEqualTo(today.decision());
        if (today.decision() == Decision.DENY) {
          assertThat(deferred.decision()).as("%s in %s", c, mode.id()).isEqualTo(Decision.DENY);
        }
        if (deferred.decision() != today.decision()) {
          loosened++;
          assertThat(deferred.reason()).as("%s in %s", c, mode.id()).contains("judged at the");
        }
      }
    }
    assertThat(loosened).as("the corpus has pushes and gh calls that chat asks for").isPositive();
  }

  @Test
  void theHookAnswerCarriesTheBoundarysReason() throws Exception {
    JsonNode input = new ObjectMapper().readTree("{\"hook_event_name\": \"PreToolUse\","
        + " \"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"git push origin feature\"}}");
    JsonNode out = PreToolUseHook.answer(input, Mode.CHAT, DEFAULT, PUSHES)
        .get("hookSpecificOutput");
    assertThat(out.get("permissionDecision").asText()).isEqualTo("allow");
    assertThat(out.get("permissionDecisionReason").asText()).isEqualTo("Control Center policy:"
        + " `git push` would push to a remote, which is judged at the push gateway");
    assertThat(PreToolUseHook.answer(input, Mode.CHAT, DEFAULT, Set.of())
        .at("/hookSpecificOutput/permissionDecision").asText()).isEqualTo("ask");
  }
}
