package dev.pushgate.gateway.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.gateway.ProposedContent;
import dev.pushgate.gateway.api.ApiJudgement.ApiAction;
import dev.pushgate.policy.ActionClass;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.UpdateKind;
import dev.pushgate.types.RepoSlug;
import dev.pushgate.types.UntrustedText;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jgit.lib.Repository;

/**
 * GitHub's REST routes mapped to actions (docs/github-api.md, "What is judged"). Route words are
 * compared as GitHub compares them, case-sensitively; owner and repository without regard to case.
 * A route this class does not know is denied, naming the route.
 */
final class RestRoutes {
  /** Reads outside any repository that tell nothing about anyone's code: exact paths. */
  private static final Set<String> HARMLESS_READS = Set.of("", "rate_limit", "meta", "zen",
      "octocat", "user", "installation/repositories", "emojis", "licenses", "gitignore/templates",
      "versions");
  /** ... and one more segment under these. */
  private static final Set<String> HARMLESS_READ_FOLDERS = Set.of("licenses", "gitignore/templates");
  /**
   * Repository routes that administer the repository or its automation rather than its code,
   * pull requests or tracker: every write under them is denied.
   */
  private static final Set<String> ADMINISTRATION = Set.of("hooks", "keys", "collaborators",
      "invitations", "branches", "rulesets", "environments", "actions", "pages", "transfer",
      "forks", "dependabot", "codespaces", "topics", "autolinks", "deployments", "statuses",
      "check-runs", "check-suites", "teams", "vulnerability-alerts", "automated-security-fixes",
      "private-vulnerability-reporting", "properties", "interaction-limits", "dispatches",
      "generate", "tags", "subscription", "notifications", "import", "lfs", "code-scanning",
      "secret-scanning", "merge-upstream", "security-advisories", "attestations",
      "deployment_protection_rules", "immutable-releases");
  private static final Set<String> GIT_OBJECTS = Set.of("blobs", "trees", "commits", "tags");
  /** The action classes whose calls put text on GitHub: titles, bodies, comments, labels. */
  static final Set<String> TEXT_WRITES = Set.of(ActionClass.OPEN_PULL_REQUEST.id(),
      ActionClass.PUBLISH_REVIEW_OR_MERGE.id(), ActionClass.WRITE_TRACKER.id());
  static final String RELEASES_DENIED = "publishing a release is denied: a release creates a tag"
      + " and publishes files, and no rule of this workspace speaks for either";
  private static final int MAX_ROUTE_SHOWN = 200;

  private final RunPolicy policy;
  private final DefaultBranches defaultBranches;

  RestRoutes(RunPolicy policy, DefaultBranches defaultBranches) {
    this.policy = policy;
    this.defaultBranches = defaultBranches;
  }

  ApiJudgement judge(String method, List<String> path, byte[] body) {
    String route = route(method, path);
    boolean read = method.equals("GET") || method.equals("HEAD");
    boolean write = Set.of("POST", "PUT", "PATCH", "DELETE").contains(method);
    if (!read && !write) {
      return one(RunPolicy.denied(RunPolicy.UNKNOWN, null, route,
          route + " is not a method the boundary judges, so it is denied"));
    }
    boolean inRepo = path.size() >= 3 && path.get(0).equals("repos");
    if (!inRepo) {
      if (read && (HARMLESS_READS.contains(String.join("/", path)) || path.size() >= 2
          && HARMLESS_READ_FOLDERS.contains(String.join("/", path.subList(0, path.size() - 1))))) {
        return one(policy.read(null, route));
      }
      return read
          ? one(RunPolicy.denied(RunPolicy.READ, null, route, route
              + " is not a read the boundary allows (only the run's repositories and a few"
              + " harmless routes)"))
          : one(RunPolicy.denied(RunPolicy.ADMIN, null, route, route
              + " is account or organisation administration, which is denied"));
    }
    Optional<RepoSlug> repo = policy.runRepository(path.get(1), path.get(2));
    if (repo.isEmpty()) {
      return read ? one(RunPolicy.otherRepository(RunPolicy.READ, shown(path.get(1)),
          shown(path.get(2)), route)) : anotherRepository(method, path, body, route);
    }
    if (read) {
      return one(policy.read(repo.get(), route));
    }
    return write(method, repo.get(), path.subList(3, path.size()), body, route);
  }

  /**
   * A write to a repository that is not the run's, denied as the action it is (audited as a
   * pull request, a push, …, not as a read): the route read as for the run's own repository by a
   * policy that refuses every action for the repository.
   */
  private ApiJudgement anotherRepository(String method, List<String> path, byte[] body,
      String route) {
    RepoSlug other;
    try {
      other = new RepoSlug(path.get(1), path.get(2));
    } catch (IllegalArgumentException e) {
      return one(RunPolicy.otherRepository(RunPolicy.UNKNOWN, shown(path.get(1)),
          shown(path.get(2)), route));
    }
    ApiJudgement j = new RestRoutes(policy.onAnotherRepository(other), defaultBranches)
        .write(method, other, path.subList(3, path.size()), body, route);
    return new ApiJudgement(j.actions().stream().map(a -> RunPolicy.otherRepository(a.kind(),
        shown(path.get(1)), shown(path.get(2)), a.target())).toList(), false);
  }

  /**
   * A write, and the text it makes visible when it is a pull request, review or tracker write
   * (titles, bodies, comments): judged for secrets as a commit message is.
   */
  private ApiJudgement write(String method, RepoSlug repo, List<String> r, byte[] body,
      String route) {
    ApiJudgement j = writeAction(method, repo, r, body, route);
    ApiAction a = j.actions().get(0);
    if (j.actions().size() != 1 || !TEXT_WRITES.contains(a.kind()) || body.length == 0) {
      return j;
    }
    // Read once: the text judged and the text shown to an approver are of the same document.
    Optional<JsonNode> json = JsonBody.object(body);
    if (json.isEmpty()) {
      return one(unreadable(repo, route));
    }
    ProposedContent text = ContentReaders.visibleText(json.get());
    List<ApiAction> actions = new ArrayList<>(List.of(a.saying(WhatItSays.ofRestBody(
        json.get()))));
    actions.addAll(policy.content(a.kind(), repo, a.target(), text, actions));
    return new ApiJudgement(actions, j.needsWriteToken());
  }

  private ApiJudgement writeAction(String method, RepoSlug repo, List<String> r, byte[] body,
      String route) {
    String n = r.size() >= 2 ? r.get(1) : "";
    // Pull requests.
    if (is(r, "pulls") && method.equals("POST")) {
      return one(policy.act(ActionClass.OPEN_PULL_REQUEST, repo, "new pull request",
          "opening a pull request"));
    }
    if (is(r, "pulls", "#") && method.equals("PATCH")) {
      return one(policy.act(ActionClass.OPEN_PULL_REQUEST, repo, "#" + n,
          "editing pull request #" + n));
    }
    if (is(r, "pulls", "#", "requested_reviewers") && oneOf(method, "POST", "DELETE")) {
      return one(policy.act(ActionClass.OPEN_PULL_REQUEST, repo, "#" + n,
          "requesting reviewers of pull request #" + n));
    }
    if (is(r, "pulls", "#", "merge") && method.equals("PUT")) {
      return one(policy.merge(repo, "#" + n, "merging a pull request"));
    }
    if (is(r, "pulls", "#", "update-branch") && method.equals("PUT")) {
      return new ApiJudgement(policy.pushToUnnamedRef(repo, "#" + n + " head branch",
          "updating pull request #" + n + "'s branch", true), true);
    }
    if (is(r, "pulls", "#", "reviews") && method.equals("POST")
        || is(r, "pulls", "#", "reviews", "#") && oneOf(method, "PUT", "DELETE")
        || is(r, "pulls", "#", "reviews", "#", "events") && method.equals("POST")
        || is(r, "pulls", "#", "reviews", "#", "dismissals") && method.equals("PUT")
        || is(r, "pulls", "#", "comments") && method.equals("POST")
        || is(r, "pulls", "#", "comments", "#", "replies") && method.equals("POST")) {
      return one(policy.act(ActionClass.PUBLISH_REVIEW_OR_MERGE, repo, "#" + n,
          "publishing a review of pull request #" + n));
    }
    if (is(r, "pulls", "comments", "#") && oneOf(method, "PATCH", "DELETE")) {
      return one(policy.act(ActionClass.PUBLISH_REVIEW_OR_MERGE, repo, route,
          "changing a review comment"));
    }
    if (is(r, "merges") && method.equals("POST")) {
      return one(policy.merge(repo, route, "merging a branch"));
    }
    // The tracker: issues, comments, labels, assignees, milestones, reactions.
    if (isTrackerWrite(method, r)) {
      return one(policy.act(ActionClass.WRITE_TRACKER, repo, route, trackerWhat(r)));
    }
    // Contents and git data: pushes.
    if (r.size() >= 2 && r.get(0).equals("contents") && oneOf(method, "PUT", "DELETE")) {
      return contents(method, repo, String.join("/", r.subList(1, r.size())), body, route);
    }
    if (r.size() >= 2 && r.get(0).equals("git")) {
      return gitData(method, repo, r, body, route);
    }
    if (!r.isEmpty() && r.get(0).equals("releases")) {
      return one(RunPolicy.denied(RunPolicy.ADMIN, repo.toString(), route, RELEASES_DENIED));
    }
    if (r.isEmpty() || ADMINISTRATION.contains(r.get(0))) {
      return one(RunPolicy.denied(RunPolicy.ADMIN, repo.toString(), route,
          "repository administration (" + route + ") is denied"));
    }
    return one(unknownRoute(repo, route));
  }

  private static boolean isTrackerWrite(String method, List<String> r) {
    return is(r, "issues") && method.equals("POST")
        || is(r, "issues", "#") && method.equals("PATCH")
        || is(r, "issues", "#", "comments") && method.equals("POST")
        || is(r, "issues", "comments", "#") && oneOf(method, "PATCH", "DELETE")
        || is(r, "issues", "#", "labels") && oneOf(method, "POST", "PUT", "DELETE")
        || is(r, "issues", "#", "labels", "*") && method.equals("DELETE")
        || is(r, "issues", "#", "assignees") && oneOf(method, "POST", "DELETE")
        || is(r, "issues", "#", "lock") && oneOf(method, "PUT", "DELETE")
        || is(r, "issues", "#", "reactions") && method.equals("POST")
        || is(r, "issues", "#", "reactions", "#") && method.equals("DELETE")
        || is(r, "issues", "comments", "#", "reactions") && method.equals("POST")
        || is(r, "issues", "comments", "#", "reactions", "#") && method.equals("DELETE")
        || is(r, "pulls", "comments", "#", "reactions") && method.equals("POST")
        || is(r, "pulls", "comments", "#", "reactions", "#") && method.equals("DELETE")
        || is(r, "labels") && method.equals("POST")
        || is(r, "labels", "*") && oneOf(method, "PATCH", "DELETE")
        || is(r, "milestones") && method.equals("POST")
        || is(r, "milestones", "#") && oneOf(method, "PATCH", "DELETE")
        || is(r, "commits", "*", "comments") && method.equals("POST")
        || is(r, "comments", "#") && oneOf(method, "PATCH", "DELETE")
        || is(r, "comments", "#", "reactions") && method.equals("POST")
        || is(r, "comments", "#", "reactions", "#") && method.equals("DELETE");
  }

  private static String trackerWhat(List<String> r) {
    if (r.contains("reactions")) {
      return "adding or removing a reaction";
    }
    if (r.contains("comments")) {
      return "writing a comment";
    }
    if (r.get(0).equals("issues")) {
      return r.size() == 1 ? "opening an issue" : "changing issue #" + r.get(1);
    }
    return "writing to the tracker (" + r.get(0) + ")";
  }

  /**
   * A contents write commits to a branch: a push to it, fast-forward (GitHub makes the commit on
   * the branch's tip), judged as an update even when GitHub would create the branch.
   */
  private ApiJudgement contents(String method, RepoSlug repo, String file, byte[] body,
      String route) {
    Optional<JsonNode> json = JsonBody.object(body);
    Optional<ProposedContent> proposed = json.flatMap(j ->
        ContentReaders.contents(method.equals("PUT"), file, j));
    if (proposed.isEmpty()) {
      return one(unreadable(repo, route));
    }
    JsonNode branchNode = json.get().get("branch");
    String branch;
    if (branchNode == null || branchNode.isNull()) {
      Optional<String> fallback = defaultBranches.of(repo);
      if (fallback.isEmpty()) {
        return one(RunPolicy.denied(RunPolicy.PUSH, repo.toString(), route, route
            + " names no branch and the default branch of " + repo
            + " is not known, so it is denied; name the branch"));
      }
      branch = fallback.get();
    } else if (branchNode.isTextual()) {
      branch = branchNode.asText();
    } else {
      return one(unreadable(repo, route));
    }
    Optional<String> ref = branchRef(branch);
    if (ref.isEmpty()) {
      return one(RunPolicy.denied(RunPolicy.PUSH, repo.toString(), route, route
          + ": the branch " + shown(branch) + " is not a plain branch name, so it is denied"));
    }
    List<ApiAction> actions = new ArrayList<>(policy.push(repo, ref.get(), UpdateKind.UPDATE));
    actions.set(0, actions.get(0).saying(WhatItSays.ofContentsWrite(method.equals("PUT")
        ? "writes " + proposed.get().files() : "deletes " + shown(file), json.get())));
    if (!policy.readOnly() && isWorkflowPath(file)) {
      actions.add(policy.workflowFiles(repo, ref.get(), List.of(shown(file))));
    }
    actions.addAll(policy.content(RunPolicy.PUSH, repo, ref.get(), proposed.get(), actions));
    return new ApiJudgement(actions, true);
  }

  private ApiJudgement gitData(String method, RepoSlug repo, List<String> r, byte[] body,
      String route) {
    if (r.size() == 2 && GIT_OBJECTS.contains(r.get(1)) && method.equals("POST")) {
      Optional<ProposedContent> proposed = JsonBody.object(body).flatMap(j ->
          switch (r.get(1)) {
            case "blobs" -> ContentReaders.blob(j);
            case "trees" -> ContentReaders.tree(j);
            case "commits" -> ContentReaders.commit(j);
            default -> ContentReaders.tag(j);
          });
      if (proposed.isEmpty()) {
        return one(unreadable(repo, route));
      }
      List<ApiAction> actions = new ArrayList<>(List.of(policy.gitObjects(repo, route)));
      actions.addAll(policy.content(RunPolicy.GIT_OBJECTS, repo, route, proposed.get(),
          actions));
      return new ApiJudgement(actions, true);
    }
    if (is(r, "git", "refs") && method.equals("POST")) {
      Optional<JsonNode> json = JsonBody.object(body);
      Optional<String> ref = json.flatMap(j -> JsonBody.text(j, "ref"));
      Optional<String> sha = json.flatMap(j -> JsonBody.text(j, "sha"));
      if (ref.isEmpty() || sha.isEmpty()) {
        return one(unreadable(repo, route));
      }
      if (!validRef(ref.get())) {
        return one(RunPolicy.denied(RunPolicy.PUSH, repo.toString(), route, route
            + ": " + shown(ref.get()) + " is not a full ref name, so it is denied"));
      }
      return new ApiJudgement(policy.move(repo, ref.get(), UpdateKind.CREATE, sha.get()), true);
    }
    if (r.size() >= 4 && r.get(1).equals("refs") && oneOf(method, "PATCH", "DELETE")) {
      String ref = "refs/" + String.join("/", r.subList(2, r.size()));
      if (r.get(2).equals("refs") || !validRef(ref)) {
        return one(RunPolicy.denied(RunPolicy.PUSH, repo.toString(), route, route
            + " does not name a ref plainly, so it is denied"));
      }
      if (method.equals("DELETE")) {
        return new ApiJudgement(policy.push(repo, ref, UpdateKind.DELETE), true);
      }
      Optional<JsonNode> json = JsonBody.object(body);
      JsonNode force = json.map(j -> j.get("force")).orElse(null);
      Optional<String> sha = json.flatMap(j -> JsonBody.text(j, "sha"));
      if (sha.isEmpty() || force != null && !force.isNull() && !force.isBoolean()) {
        return one(unreadable(repo, route));
      }
      UpdateKind kind = force != null && force.asBoolean(false) ? UpdateKind.FORCE
          : UpdateKind.UPDATE;
      return new ApiJudgement(policy.move(repo, ref, kind, sha.get()), true);
    }
    return one(unknownRoute(repo, route));
  }

  /** {@code refs/heads/<branch>} for a plain branch name: not a ref or shorthand spelled out. */
  static Optional<String> branchRef(String branch) {
    if (branch.startsWith("-")) {
      return Optional.empty(); // git refuses such a branch name; it reads as an option
    }
    for (String prefix : List.of("refs/", "heads/", "tags/", "remotes/")) {
      if (branch.startsWith(prefix)) {
        return Optional.empty();
      }
    }
    String ref = "refs/heads/" + branch;
    return validRef(ref) ? Optional.of(ref) : Optional.empty();
  }

  static boolean validRef(String ref) {
    return ref.startsWith("refs/") && ref.length() <= 1024 && Repository.isValidRefName(ref)
        && ref.chars().allMatch(c -> c > 0x20 && c < 0x7f || c > 0x9f);
  }

  /** As the gateway's WorkflowPaths: the workflow directory in any case, and its parents. */
  static boolean isWorkflowPath(String path) {
    String p = path.toLowerCase(Locale.ROOT);
    return p.equals(".github") || p.equals(".github/workflows")
        || p.startsWith(".github/workflows/");
  }

  private static ApiAction unreadable(RepoSlug repo, String route) {
    return RunPolicy.denied(RunPolicy.UNKNOWN, repo.toString(), route,
        route + ": the request body cannot be read as the route's JSON, so it is denied");
  }

  private static ApiAction unknownRoute(RepoSlug repo, String route) {
    return RunPolicy.denied(RunPolicy.UNKNOWN, repo == null ? null : repo.toString(), route,
        route + " is not a route the boundary knows, so it is denied");
  }

  /**
   * Whether {@code path} is exactly {@code pattern}: {@code #} stands for a number, {@code *} for
   * any one segment, anything else for itself.
   */
  static boolean is(List<String> path, String... pattern) {
    if (path.size() != pattern.length) {
      return false;
    }
    for (int i = 0; i < pattern.length; i++) {
      String p = pattern[i];
      String s = path.get(i);
      boolean ok = switch (p) {
        case "#" -> !s.isEmpty() && s.length() <= 19 && s.chars().allMatch(c -> c >= '0' && c <= '9');
        case "*" -> true;
        default -> p.equals(s);
      };
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  private static boolean oneOf(String method, String... methods) {
    for (String m : methods) {
      if (m.equals(method)) {
        return true;
      }
    }
    return false;
  }

  static String route(String method, List<String> path) {
    return path.isEmpty() ? method + " /" : method + " /" + shown(String.join("/", path));
  }

  /** Text from the call, safe and short enough for a one-line reason. */
  static String shown(String s) {
    String p = UntrustedText.printable(s);
    return p.length() <= MAX_ROUTE_SHOWN ? p : p.substring(0, MAX_ROUTE_SHOWN) + "…";
  }

  private static ApiJudgement one(ApiAction a) {
    return new ApiJudgement(List.of(a), false);
  }
}
