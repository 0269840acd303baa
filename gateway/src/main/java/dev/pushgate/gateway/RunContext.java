package dev.pushgate.gateway;

import dev.pushgate.broker.RepoSlug;
import dev.pushgate.policy.PushRules;
import java.util.List;
import java.util.Objects;

/** What the gateway knows of an authenticated run: who it is and what it may push to. */
public record RunContext(
    String runId,
    String workspaceId,
    RepoSlug repository,
    List<RepoSlug> attachedRepositories,
    PushRules pushRules) {

  public RunContext {
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(workspaceId, "workspaceId");
    Objects.requireNonNull(repository, "repository");
    attachedRepositories = List.copyOf(attachedRepositories);
    Objects.requireNonNull(pushRules, "pushRules");
  }

  /** The run's own repository or one attached to its workspace. */
  public boolean mayReach(RepoSlug repo) {
    return repository.sameAs(repo) || attachedRepositories.stream().anyMatch(repo::sameAs);
  }
}
