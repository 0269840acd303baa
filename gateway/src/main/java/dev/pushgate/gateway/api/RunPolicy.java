package dev.pushgate.gateway.api;

import dev.pushgate.gateway.ProposedContent;
import dev.pushgate.gateway.RuleDetectors;
import dev.pushgate.gateway.api.ApiJudgement.ApiAction;
import dev.pushgate.policy.ActionClass;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Judgement;
import dev.pushgate.policy.Mode;
import dev.pushgate.policy.PushRules;
import dev.pushgate.policy.UpdateKind;
import dev.pushgate.policy.WorkspaceRules;
import dev.pushgate.types.RepoSlug;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A run's rules, mode and repositories turned into {@link ApiAction}s. REST and GraphQL both end
 * here, so a merge or a push reads the same whichever API asked for it.
 *
 * <p>The mode is applied first, by the table every door reads ({@link Mode#decisionFor}): a
 * read-only mode denies every write, objects-only writes included. In chat mode a merge is
 * denied outright ({@link #merge}); every other action gets its rule's decision and, where the
 * command policy lets gh through to this boundary ({@code modeAsks}), the mode's ask: the
 * question the hook would have asked without a sandbox, asked here.
 */
final class RunPolicy {
  static final String PUSH = ActionClass.PUSH.id();
  static final String READ = "read";
  static final String ADMIN = "admin";
  static final String UNKNOWN = "unknown";
  /** Creating blobs, trees, commits or tags: a write that moves no ref. */
  static final String GIT_OBJECTS = "git-objects";

  private final WorkspaceRules rules;
  private final Mode mode;
  private final List<RepoSlug> repositories;
  /** {@link #repositories} by {@link RepoSlug#key}, the first of each: every call looks one up. */
  private final Map<String, RepoSlug> byKey = new HashMap<>();
  private final UnseenCommits unseen;
  /** The repository a write names that is not one of the run's; null for the run's own. */
  private final RepoSlug another;
  private final boolean modeAsks;
  /**
   * The secret detectors the run's content rules run, picked once for every write the run's
   * judge reads ({@link RuleDetectors}): as the run's rules, the run's own.
   */
  private final RuleDetectors contentDetectors;

  RunPolicy(WorkspaceRules rules, Mode mode, List<RepoSlug> repositories, boolean modeAsks,
      UnseenCommits unseen) {
    this(rules, mode, repositories, modeAsks, unseen, null,
        RuleDetectors.of(rules.content()));
  }

  private RunPolicy(WorkspaceRules rules, Mode mode, List<RepoSlug> repositories,
      boolean modeAsks, UnseenCommits unseen, RepoSlug another, RuleDetectors contentDetectors) {
    this.rules = rules;
    this.contentDetectors = contentDetectors;
    this.mode = mode;
    this.repositories = List.copyOf(repositories);
    this.repositories.forEach(r -> byKey.putIfAbsent(r.key(), r));
    this.modeAsks = modeAsks;
    this.unseen = unseen;
    this.another = another;
  }

  /**
   * {@code byRules} of an action of class {@code action}, with the mode's ask where it applies
   * here ({@link Mode#judge}: the rules' words at equal strictness).
   */
  private Judgement withModesAsk(ActionClass action, String what, Judgement byRules) {
    return modeAsks ? mode.judge(action, what, byRules) : byRules;
  }

  private Judgement withModesAsk(ActionClass action, String what, Decision d, String reason) {
    return withModesAsk(action, what, new Judgement(d, action.id(), reason));
  }

  /** The run's own repository (not an attached one). */
  RepoSlug primary() {
    return repositories.get(0);
  }

  /** The run's own spelling of {@code owner/name}, compared without regard to case as GitHub does. */
  Optional<RepoSlug> runRepository(String owner, String name) {
    return Optional.ofNullable(byKey.get((owner + "/" + name).toLowerCase(Locale.ROOT)));
  }

  ApiAction read(RepoSlug repo, String target) {
    return new ApiAction(READ, name(repo), target, Decision.ALLOW,
        "reading " + (repo == null ? target : repo.toString()) + " is allowed");
  }

  /** A call of kind {@code kind} on a repository that is not one of the run's: denied. */
  static ApiAction otherRepository(String kind, String owner, String name, String target) {
    String slug = owner + "/" + name;
    return new ApiAction(kind, slug, target, Decision.DENY,
        slug + " is not one of this run's repositories");
  }

  static ApiAction denied(String kind, String repo, String target, String reason) {
    return new ApiAction(kind, repo, target, Decision.DENY, reason);
  }

  /**
   * An action of class {@code action}: {@code what} is a phrase such as "opening a pull request".
   */
  ApiAction act(ActionClass action, RepoSlug repo, String target, String what) {
    if (refusedOutright(action)) {
      return readOnly(action.id(), repo, target, what);
    }
    Decision d = rules.decisionFor(action);
    String reason = switch (d) {
      case ALLOW -> what + " is allowed (" + action.id() + ")";
      case ASK -> what + " needs approval (" + action.id() + ")";
      case DENY -> what + " is denied (" + action.id() + ")";
    };
    Judgement j = withModesAsk(action, what, d, reason);
    return new ApiAction(action.id(), name(repo), target, j.decision(), j.reason());
  }

  /**
   * A merge (a pull request's, a branch into another, or one queued by auto-merge or the merge
   * queue). Denied in every mode: read-only modes deny every write, and chat mode denies merges,
   * because a merge moves the base branch upstream with commits that were judged as pushes to
   * the head branch, not to the base, and the base is not in the call to judge.
   */
  ApiAction merge(RepoSlug repo, String target, String what) {
    if (refusedOutright(ActionClass.PUBLISH_REVIEW_OR_MERGE)) {
      return readOnly(ActionClass.PUBLISH_REVIEW_OR_MERGE.id(), repo, target, what);
    }
    return new ApiAction(ActionClass.PUBLISH_REVIEW_OR_MERGE.id(), name(repo), target,
        Decision.DENY, mergeDenied(what));
  }

  /**
   * Why a merge is denied, in chat mode as in every other: no rule or approval opens it, so the
   * reason says what does (a person merging on GitHub) rather than naming the mode alone.
   */
  static String mergeDenied(String what) {
    return what + " is denied in every mode, whatever the rules (a merge moves the base branch,"
        + " which was not judged): a person merges it on GitHub";
  }

  /**
   * A ref update judged by the push rules, worded as the gateway words a push's refusal: the
   * rule's own reason; the ref's name judged by the content rules as a push's is.
   */
  List<ApiAction> push(RepoSlug repo, String ref, UpdateKind kind) {
    if (refusedOutright(ActionClass.PUSH)) {
      return List.of(readOnly(PUSH, repo, ref, "push to " + ref));
    }
    Judgement j = unseen.judgeWrite(repo == null ? primary() : repo, ref, kind,
        (named, k) -> withModesAsk(ActionClass.PUSH, "push to " + named,
            rules.push().judge(named, k)));
    List<ApiAction> out = new ArrayList<>();
    out.add(new ApiAction(PUSH, name(repo), ref, j.decision(), j.reason()));
    if (kind != UpdateKind.DELETE) {
      // A ref's name is visible on GitHub as a file is: judged as the push path judges it.
      out.addAll(content(PUSH, repo, ref, new ProposedContent().text("the ref name", ref),
          out));
    }
    return out;
  }

  /**
   * A ref moved to {@code newId}, an object the call names by id: judged as a push of the
   * commits it brings ({@link #commitsBrought}).
   */
  List<ApiAction> move(RepoSlug repo, String ref, UpdateKind kind, String newId) {
    List<ApiAction> out = new ArrayList<>(push(repo, ref, kind));
    out.addAll(commitsBrought(repo, ref, newId, out));
    return out;
  }

  /**
   * What moving a ref to {@code newId} brings that no branch or tag upstream has, fetched and
   * judged as a push of it is: by the content rules and, for the CI workflow files it changes,
   * by {@code push-workflows}. Refused when the commits cannot be fetched or read. Not read when
   * {@code others} already deny the move (as a push refused by its ref rule is not scanned), nor
   * in a read-only mode. A call naming its repository by node id reads the run's own.
   */
  List<ApiAction> commitsBrought(RepoSlug repo, String target, String newId,
      List<ApiAction> others) {
    if (readOnly() || others.stream().anyMatch(a -> a.decision() == Decision.DENY)) {
      return List.of();
    }
    UnseenCommits.Brought brought;
    try {
      brought = unseen.judge(repo == null ? primary() : repo, target, newId, rules.content());
    } catch (UnseenCommits.Unreadable e) {
      return List.of(new ApiAction(PUSH, name(repo), target, Decision.DENY, "moving "
          + RestRoutes.shown(target) + " to " + RestRoutes.shown(newId) + " is denied: its"
          + " commits cannot be judged as a push's: " + e.getMessage()));
    }
    List<ApiAction> out = new ArrayList<>();
    if (!brought.workflows().isEmpty()) {
      out.add(workflowFiles(repo, target, brought.workflows()));
    }
    brought.content().ifPresent(j ->
        out.add(new ApiAction(PUSH, name(repo), target, j.decision(), j.reason())));
    return out;
  }

  /**
   * A ref update whose ref the call does not name (a node id, a pull request's head branch): as
   * strict as the strictest push rule, and as the workflow rule when it moves to unseen commits.
   */
  List<ApiAction> pushToUnnamedRef(RepoSlug repo, String target, String what,
      boolean contentUnseen) {
    if (refusedOutright(ActionClass.PUSH)) {
      return List.of(readOnly(PUSH, repo, target, what));
    }
    Decision d = rules.push().strictest();
    String reason = switch (d) {
      case ALLOW -> what + " is allowed: every push rule allows it";
      case ASK -> what + " needs approval: the call does not name the ref, so it is judged as"
          + " strictly as the strictest push rule";
      case DENY -> what + " is denied: the call does not name the ref, so it is judged as"
          + " strictly as the strictest push rule";
    };
    Judgement j = withModesAsk(ActionClass.PUSH, what, d, reason);
    List<ApiAction> out = new ArrayList<>();
    out.add(new ApiAction(PUSH, name(repo), target, j.decision(), j.reason()));
    if (contentUnseen) {
      out.add(workflows(repo, target,
          "it moves a ref to commits the boundary cannot read, which may change CI workflows"));
    }
    return out;
  }

  /**
   * Creating blobs, trees, commits or tags. They move no ref, but an uploaded object is readable
   * in the repository by its id, so they are refused where no push could publish anything: a
   * read-only mode, or push rules that deny every ref (the default and every scoped rule deny).
   * Otherwise allowed: the ref update that would publish them is judged itself.
   */
  ApiAction gitObjects(RepoSlug repo, String target) {
    String what = "creating git objects";
    // Objects are placed only to be pushed: where the mode denies pushes, it denies them.
    if (refusedOutright(ActionClass.PUSH)) {
      return readOnly(GIT_OBJECTS, repo, target, what);
    }
    if (somePushCouldLand()) {
      // The hook asks about `gh api` writes in chat mode, objects-only ones too.
      Judgement j = withModesAsk(ActionClass.PUSH, what, Decision.ALLOW,
          what + " is allowed: objects alone move no ref");
      return new ApiAction(GIT_OBJECTS, name(repo), target, j.decision(), j.reason());
    }
    return new ApiAction(GIT_OBJECTS, name(repo), target, Decision.DENY, what + " is denied: no"
        + " push rule of " + repo + " lets any ref be pushed, and an uploaded object is readable"
        + " by its id");
  }

  /**
   * Whether some ref update could be allowed or asked about under the push rules: a scoped rule
   * that does not deny, or a default that does not deny and is not shadowed by a rule for every
   * ref and kind ({@code refs/**}, which matches every ref name). A rule that lets only deletes
   * through places no object, so it does not count (found by attack: a delete-only allow let
   * blobs be uploaded while every push that brings objects was refused). Errs towards yes.
   */
  private boolean somePushCouldLand() {
    PushRules push = rules.push();
    boolean defaultReachable = push.rules().stream()
        .noneMatch(r -> r.kinds().isEmpty() && r.refs().toString().equals("refs/**"));
    return defaultReachable && push.fallback() != Decision.DENY
        || push.rules().stream().anyMatch(r -> r.decision() != Decision.DENY
            && !r.kinds().equals(Set.of(UpdateKind.DELETE)));
  }

  /**
   * What a write puts on GitHub judged by the run's content rules, by the push path's own judge
   * and in its words ({@code config/.env matches "no secret files"}): one more action beside the
   * write's own, or none when no content rule asks or denies. Not judged when {@code others}
   * already deny the write (as a push refused by its ref rule is not scanned), nor in a read-only
   * mode, which denies the write anyway.
   *
   * @param kind the write's action class ({@code push}, {@code git-objects})
   */
  List<ApiAction> content(String kind, RepoSlug repo, String target, ProposedContent proposed,
      List<ApiAction> others) {
    boolean denied = others.stream().anyMatch(a -> a.decision() == Decision.DENY);
    if (readOnly() || denied) {
      return List.of();
    }
    return proposed.judge(contentDetectors, target).map(j ->
        List.of(new ApiAction(kind, name(repo), target, j.decision(), j.reason())))
        .orElse(List.of());
  }

  /** The workflow rule for a write that changes {@code paths}, worded as the gateway's. */
  ApiAction workflowFiles(RepoSlug repo, String ref, List<String> paths) {
    return workflows(repo, ref, "it changes CI workflows (" + String.join(", ", paths) + ")");
  }

  private ApiAction workflows(RepoSlug repo, String target, String because) {
    Decision d = rules.pushWorkflows();
    String reason = switch (d) {
      case ALLOW -> "pushing a change to CI workflows is allowed (push-workflows): " + because;
      case ASK -> "pushing a change to CI workflows needs approval (push-workflows): " + because;
      case DENY -> "pushing a change to CI workflows is denied (push-workflows): " + because;
    };
    return new ApiAction(ActionClass.PUSH_WORKFLOWS.id(), name(repo), target, d, reason);
  }

  /**
   * Whether every write is refused outright, before any rule: a read-only mode, or a write to a
   * repository that is not the run's ({@link #onAnotherRepository}).
   */
  boolean readOnly() {
    return mode.isReadOnly() || another != null;
  }

  /**
   * Whether an action of class {@code action} is refused before any rule: on another repository,
   * or where the mode's table ({@link Mode#decisionFor}) denies it.
   */
  private boolean refusedOutright(ActionClass action) {
    return another != null || mode.decisionFor(action) == Decision.DENY;
  }

  /**
   * This run's policy for a write to {@code other}, which is not one of its repositories: every
   * action keeps its own kind (a pull request stays {@code open-pull-request} in the audit, not
   * a read) and is denied for the repository, with no rule, content or fetch consulted.
   */
  RunPolicy onAnotherRepository(RepoSlug other) {
    return new RunPolicy(rules, mode, repositories, modeAsks, UnseenCommits.NONE, other,
        contentDetectors);
  }

  private ApiAction readOnly(String kind, RepoSlug repo, String target, String what) {
    if (another != null) {
      return new ApiAction(kind, another.toString(), target, Decision.DENY,
          another + " is not one of this run's repositories");
    }
    return new ApiAction(kind, name(repo), target, Decision.DENY, mode.deniedReason(what));
  }

  private static String name(RepoSlug repo) {
    return repo == null ? null : repo.toString();
  }
}
