package dev.pushgate.gateway;

import dev.pushgate.policy.ContentRules;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.PushRules;
import dev.pushgate.types.RepoSlug;
import java.util.List;
import java.util.Objects;

/**
 * What the gateway knows of an authenticated run: who it is, what it may push to, and whether
 * its pushes may change CI workflows ({@code push-workflows}), and the content rules its pushed
 * files are judged by.
 */
public record RunContext(
    String runId,
    String workspaceId,
    RepoSlug repository,
    List<RepoSlug> attachedRepositories,
    PushRules pushRules,
    Decision pushWorkflows,
    ContentRules content) {

  /** A run whose rules leave {@code push-workflows} at its default, deny. */
  public RunContext(String runId, String workspaceId, RepoSlug repository,
      List<RepoSlug> attachedRepositories, PushRules pushRules) {
    this(runId, workspaceId, repository, attachedRepositories, pushRules, Decision.DENY);
  }

  /** A run whose rules leave {@code content} at its default set ({@link ContentRules#DEFAULT}). */
  public RunContext(String runId, String workspaceId, RepoSlug repository,
      List<RepoSlug> attachedRepositories, PushRules pushRules, Decision pushWorkflows) {
    this(runId, workspaceId, repository, attachedRepositories, pushRules, pushWorkflows,
        ContentRules.DEFAULT);
  }

  public RunContext {
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(workspaceId, "workspaceId");
    Objects.requireNonNull(repository, "repository");
    attachedRepositories = List.copyOf(attachedRepositories);
    Objects.requireNonNull(pushRules, "pushRules");
    Objects.requireNonNull(pushWorkflows, "pushWorkflows");
    Objects.requireNonNull(content, "content");
  }

  /** The run's own repository or one attached to its workspace. */
  public boolean mayReach(RepoSlug repo) {
    return repository.sameAs(repo) || attachedRepositories.stream().anyMatch(repo::sameAs);
  }
}
