package dev.pushgate.gateway.api;

import dev.pushgate.policy.Decision;
import java.util.List;

/**
 * What the boundary does with one call: the strictest of its actions' decisions. A GraphQL
 * document can hold several mutations; a REST call has one action.
 *
 * @param actions every action the call performs, in the order the call names them (never empty)
 * @param needsWriteToken whether the call, once allowed, needs a token with contents write (a
 *     contents or git-data write) rather than the run's read token
 */
public record ApiJudgement(List<ApiAction> actions, boolean needsWriteToken) {
  public ApiJudgement {
    if (actions == null || actions.isEmpty()) {
      throw new IllegalArgumentException("a judgement names at least one action");
    }
    actions = List.copyOf(actions);
  }

  public Decision decision() {
    Decision d = Decision.ALLOW;
    for (ApiAction a : actions) {
      d = d.strictest(a.decision());
    }
    return d;
  }

  /** The reason of the first action with the overall decision: what the refusal or question says. */
  public String reason() {
    Decision d = decision();
    for (ApiAction a : actions) {
      if (a.decision() == d) {
        return a.reason();
      }
    }
    throw new AssertionError();
  }

  /**
   * One action of a call.
   *
   * @param kind an action class id ({@code open-pull-request}, {@code publish-review-or-merge},
   *     {@code write-tracker}, {@code push}, {@code push-workflows}) or {@code read}, {@code admin},
   *     {@code git-objects} (blobs, trees, commits, tags: they move no ref), {@code unknown}
   * @param repository {@code owner/name}, or null when the call names none
   * @param target what is acted on, for the audit: a ref ({@code refs/heads/main}), a pull request
   *     ({@code #12}), a GraphQL field ({@code mergePullRequest}) or the route
   * @param reason one line a person reads, e.g. {@code merging a pull request is denied in chat
   *     mode}; the boundary prefixes "Control Center policy: "
   * @param says what the action would put on GitHub, for an approver: a pull request's title,
   *     base and head, a comment's first lines, the files of a contents write ("" when nothing)
   */
  public record ApiAction(String kind, String repository, String target, Decision decision,
      String reason, String says) {
    public ApiAction {
      says = says == null ? "" : says;
    }

    public ApiAction(String kind, String repository, String target, Decision decision,
        String reason) {
      this(kind, repository, target, decision, reason, "");
    }

    /** This action, saying {@code says}. */
    public ApiAction saying(String says) {
      return new ApiAction(kind, repository, target, decision, reason, says);
    }
  }
}
