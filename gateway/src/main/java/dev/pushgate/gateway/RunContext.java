package dev.pushgate.gateway;

import dev.pushgate.policy.Decision;
import dev.pushgate.policy.PushRules;
import dev.pushgate.types.RepoSlug;
import java.util.List;
import java.util.Objects;

/**
 * What the gateway knows of an authenticated run: who it is, what it may push to, and whether
 * its pushes may change CI workflows ({@code push-workflows}).
 */
public record RunContext(
    String runId,
    String workspaceId,
    RepoSlug repository,
    List<RepoSlug> attachedRepositories,
    PushRules pushRules,
    Decision pushWorkflows) {

  /** A run whose rules leave {@code push-workflows} at its default, deny. */
  public RunContext(String runId, String workspaceId, RepoSlug repository,
      List<RepoSlug> attachedRepositories, PushRules pushRules) {
    this(runId, workspaceId, repository, attachedRepositories, pushRules, Decision.DENY);
  }

  public RunContext {
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(workspaceId, "workspaceId");
    Objects.requireNonNull(repository, "repository");
    attachedRepositories = List.copyOf(attachedRepositories);
    Objects.requireNonNull(pushRules, "pushRules");
    Objects.requireNonNull(pushWorkflows, "pushWorkflows");
  }

  /** The run's own repository or one attached to its workspace. */
  public boolean mayReach(RepoSlug repo) {
    return repository.sameAs(repo) || attachedRepositories.stream().anyMatch(repo::sameAs);
  }
}
