package dev.pushgate.gateway;

import dev.pushgate.policy.ActionClass;
import dev.pushgate.policy.Boundary;
import dev.pushgate.policy.ContentRules;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Judgement;
import dev.pushgate.policy.Mode;
import dev.pushgate.policy.PushRules;
import dev.pushgate.policy.UpdateKind;
import dev.pushgate.types.RepoSlug;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What the gateway knows of an authenticated run: who it is, what it may push to, and whether
 * its pushes may change CI workflows ({@code push-workflows}), the content rules its pushed
 * files are judged by, its mode, and the boundaries in force for it. A read-only mode
 * ({@code plan}, {@code review}, {@code orchestrate}) refuses every push, as the command policy
 * refuses {@code git push} there. Where the command policy lets {@code git push} through to the
 * gateway ({@link Boundary#GIT_PUSH} in force: a sandboxed run), the gateway also asks where the
 * mode asks (chat mode asks before every push), as the hook would have asked without a sandbox.
 */
public record RunContext(
    String runId,
    String workspaceId,
    RepoSlug repository,
    List<RepoSlug> attachedRepositories,
    PushRules pushRules,
    Decision pushWorkflows,
    ContentRules content,
    Mode mode,
    Set<Boundary> boundaries) {

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

  /** A run where no boundary is in force: the command policy asks where its mode asks. */
  public RunContext(String runId, String workspaceId, RepoSlug repository,
      List<RepoSlug> attachedRepositories, PushRules pushRules, Decision pushWorkflows,
      ContentRules content, Mode mode) {
    this(runId, workspaceId, repository, attachedRepositories, pushRules, pushWorkflows, content,
        mode, Set.of());
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
    boundaries = Set.copyOf(boundaries);
  }

  /**
   * The judgement of moving {@code ref} by an update of {@code kind}: the mode's and the push
   * rules', by the table the command policy reads ({@link Mode#decisionFor}). Where the hook lets
   * pushes through to the gateway, the mode's ask applies here; elsewhere the hook has asked
   * already, and only the mode's deny applies (for a push that did not pass the hook).
   */
  public Judgement judgePush(String ref, UpdateKind kind) {
    String what = "push to " + ref;
    Judgement byRules = pushRules.judge(ref, kind);
    return boundaries.contains(Boundary.GIT_PUSH)
        ? mode.judge(ActionClass.PUSH, what, byRules)
        : mode.denies(ActionClass.PUSH, what).orElse(byRules);
  }

  /**
   * True when some push of this run could be allowed or asked for: its mode does not deny pushes
   * (a read-only mode does) and its push rules do not deny every ref.
   */
  public boolean mayPushSomething() {
    return mode.decisionFor(ActionClass.PUSH) != Decision.DENY && !pushRules.deniesEverything();
  }

  /** The run's own repository or one attached to its workspace. */
  public boolean mayReach(RepoSlug repo) {
    return repository.sameAs(repo) || attachedRepositories.stream().anyMatch(repo::sameAs);
  }
}
