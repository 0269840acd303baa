package dev.pushgate.gateway;

import dev.pushgate.policy.ActionClass;
import dev.pushgate.policy.ContentRules;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Judgement;
import dev.pushgate.policy.Mode;
import dev.pushgate.policy.PushRules;
import dev.pushgate.policy.UpdateKind;
import dev.pushgate.types.RepoSlug;
import java.util.List;
import java.util.Objects;

/**
 * What the gateway knows of an authenticated run: who it is, what it may push to, and whether
 * its pushes may change CI workflows ({@code push-workflows}), the content rules its pushed
 * files are judged by, and its mode: a read-only mode ({@code plan}, {@code review},
 * {@code orchestrate}) refuses every push, as the command policy refuses {@code git push} there.
 */
public record RunContext(
    String runId,
    String workspaceId,
    RepoSlug repository,
    List<RepoSlug> attachedRepositories,
    PushRules pushRules,
    Decision pushWorkflows,
    ContentRules content,
    Mode mode) {

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

  /** A chat-mode run: the mode the control API gives a run that names none. */
  public RunContext(String runId, String workspaceId, RepoSlug repository,
      List<RepoSlug> attachedRepositories, PushRules pushRules, Decision pushWorkflows,
      ContentRules content) {
    this(runId, workspaceId, repository, attachedRepositories, pushRules, pushWorkflows, content,
        Mode.CHAT);
  }

  public RunContext {
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(workspaceId, "workspaceId");
    Objects.requireNonNull(repository, "repository");
    attachedRepositories = List.copyOf(attachedRepositories);
    Objects.requireNonNull(pushRules, "pushRules");
    Objects.requireNonNull(pushWorkflows, "pushWorkflows");
    Objects.requireNonNull(content, "content");
    Objects.requireNonNull(mode, "mode");
  }

  /**
   * The judgement of moving {@code ref} by an update of {@code kind}: the mode's refusal where the
   * mode denies pushes (the same table the command policy reads, {@link Mode#decisionFor}),
   * otherwise the push rules'.
   */
  public Judgement judgePush(String ref, UpdateKind kind) {
    return mode.denies(ActionClass.PUSH, "push to " + ref)
        .orElseGet(() -> pushRules.judge(ref, kind));
  }

  /** The run's own repository or one attached to its workspace. */
  public boolean mayReach(RepoSlug repo) {
    return repository.sameAs(repo) || attachedRepositories.stream().anyMatch(repo::sameAs);
  }
}
