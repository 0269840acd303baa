package dev.pushgate.gateway;

import java.util.List;

/** What an approver is asked about one ref update held by the gateway. */
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
    List<String> commitSummaries) {

  public ApprovalQuestion {
    commitSummaries = List.copyOf(commitSummaries);
  }
}
