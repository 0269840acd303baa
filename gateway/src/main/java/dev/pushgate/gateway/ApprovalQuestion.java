package dev.pushgate.gateway;

import java.util.List;

/**
 * What an approver is asked about: one ref update held by the gateway, or one GitHub API call.
 * The one description of a question: the appliance's approval desk holds it as it is, adding only
 * an id and times (and, for a hook's command, the command).
 *
 * @param action what is asked about: {@code push}, or the action classes of an API call ({@code
 *     open-pull-request, write-tracker})
 * @param commitSummaries what the answer covers, one line each: the commits new to the
 *     repository for a push; every action of an API call, with what it says
 */
public record ApprovalQuestion(
    String runId,
    String workspaceId,
    String repository,
    String ref,
    String kind,
    String oldId,
    String newId,
    String rule,
    String reason,
    List<String> commitSummaries,
    String action) {

  public ApprovalQuestion {
    commitSummaries = List.copyOf(commitSummaries);
    action = action == null ? "push" : action;
  }

  /** A question about a ref update of a push. */
  public ApprovalQuestion(String runId, String workspaceId, String repository, String ref,
      String kind, String oldId, String newId, String rule, String reason,
      List<String> commitSummaries) {
    this(runId, workspaceId, repository, ref, kind, oldId, newId, rule, reason, commitSummaries,
        "push");
  }
}
