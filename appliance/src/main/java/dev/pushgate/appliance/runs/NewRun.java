package dev.pushgate.appliance.runs;

import dev.pushgate.policy.WorkspaceRules;
import dev.pushgate.types.RepoSlug;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/** A validated request to start a run; {@code sandbox} is null when no paths were given. */
public record NewRun(
    String workspaceId,
    String sessionId,
    String agentId,
    String mode,
    RepoSlug repository,
    List<RepoSlug> attachedRepositories,
    WorkspaceRules rules,
    String rulesJson,
    Duration ttl,
    SandboxInput sandbox) {

  public NewRun {
    Objects.requireNonNull(workspaceId, "workspaceId");
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(repository, "repository");
    attachedRepositories = List.copyOf(attachedRepositories);
    Objects.requireNonNull(rules, "rules");
    Objects.requireNonNull(rulesJson, "rulesJson");
  }
}
