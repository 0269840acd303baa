package dev.pushgate.gateway.api;

import dev.pushgate.policy.Mode;
import dev.pushgate.policy.RulesException;
import dev.pushgate.policy.WorkspaceRules;
import dev.pushgate.types.RepoSlug;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** A run on acme/widget with acme/gadget attached, and calls to it. */
final class ApiJudgeFixture {
  static final RepoSlug WIDGET = new RepoSlug("acme", "widget");
  static final RepoSlug GADGET = new RepoSlug("acme", "gadget");
  static final String GHES = "github.example.com";
  /**
   * Pull requests allowed, reviews asked, tracker denied; main denied, release branches asked,
   * no force or delete anywhere under refs/heads.
   */
  static final String STRICT = """
      open-pull-request: allow
      publish-review-or-merge: ask
      write-tracker: deny
      push:
        - refs: refs/heads/main
          decision: deny
        - refs: "refs/heads/release/*"
          decision: ask
        - refs: "refs/heads/**"
          kinds: [force, delete]
          decision: deny
          reason: no force-push or delete of branches
      """;

  private ApiJudgeFixture() {}

  static WorkspaceRules rules(String yaml) {
    try {
      return WorkspaceRules.parse(yaml);
    } catch (RulesException e) {
      throw new AssertionError(e);
    }
  }

  /** Commits a ref move names by id that bring nothing any rule asks about. */
  static final UnseenCommits NOTHING_FOUND = (repo, ref, id, rules) ->
      new UnseenCommits.Brought(Optional.empty(), List.of());

  static GitHubApiJudge judge(String yaml, Mode mode) {
    return judge(yaml, mode, NOTHING_FOUND);
  }

  static GitHubApiJudge judge(String yaml, Mode mode, UnseenCommits unseen) {
    return new GitHubApiJudge(rules(yaml), mode, Set.of(), WIDGET, List.of(GADGET),
        ApiHosts.withEnterprise(GHES),
        repo -> repo.sameAs(WIDGET) ? Optional.of("main") : Optional.empty(), unseen);
  }

  static GitHubApiJudge chat(String yaml) {
    return judge(yaml, Mode.CHAT);
  }

  static ApiCall call(String method, String path, String body) {
    return new ApiCall(method, ApiHosts.API, path, "", "application/json",
        body == null ? null : body.getBytes(StandardCharsets.UTF_8));
  }

  static ApiCall graphQl(String json) {
    return new ApiCall("POST", ApiHosts.API, "/graphql", "", "application/json",
        json.getBytes(StandardCharsets.UTF_8));
  }
}
