package dev.pushgate.it;

/** The bodies of {@code POST /v1/runs} that several classes create their runs with. */
final class RunJson {
  private RunJson() {}

  /**
   * A chat run of {@code repository} in {@code workspace} whose pushes to main are denied, for
   * the reason "push to main is denied".
   */
  static String chatMainDenied(String workspace, String repository) {
    return """
        {"workspaceId": "%s", "mode": "chat", "repository": "%s",
         "rules": {"push": [{"refs": "refs/heads/main", "decision": "deny",
                             "reason": "push to main is denied"}]}}""".formatted(workspace,
        repository);
  }
}
