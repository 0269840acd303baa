package dev.pushgate.gateway.api;

import dev.pushgate.gateway.api.ApiHosts.Api;
import dev.pushgate.policy.Boundary;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Mode;
import dev.pushgate.policy.WorkspaceRules;
import dev.pushgate.types.RepoSlug;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Judges one run's GitHub API calls (docs/github-api.md, "What is judged: routes and actions"):
 * REST routes through {@link RestRoutes}, GraphQL documents through {@link GraphQlCalls}, both
 * with the run's rules, mode and repositories ({@link RunPolicy}). It reads the call, asks
 * {@link DefaultBranches} at most once, and for a ref move to an object named by id has
 * {@link UnseenCommits} fetch and judge its commits; it sends nothing else anywhere.
 *
 * <p>Fails closed: another host, a path it cannot read plainly, an unknown route or an unreadable
 * body is denied with a reason naming the route, and so is anything that makes it fail.
 */
public final class GitHubApiJudge implements ApiJudge {
  private static final String ENTERPRISE_REST = "/api/v3";
  private static final String ENTERPRISE_GRAPHQL = "/api/graphql";
  private static final String ENTERPRISE_UPLOADS = "/api/uploads";

  private final ApiHosts hosts;
  private final RestRoutes rest;
  private final GraphQlCalls graphQl;

  /**
   * @param rules the run's workspace rules
   * @param mode the run's mode: a read-only mode denies every write
   * @param repository the run's primary repository
   * @param attached the run's attached repositories (may be empty)
   * @param hosts the API host names, with the GitHub Enterprise Server host if any
   * @param defaultBranches tells a repository's default branch, for a contents write naming none
   */
  public GitHubApiJudge(WorkspaceRules rules, Mode mode, RepoSlug repository,
      List<RepoSlug> attached, ApiHosts hosts, DefaultBranches defaultBranches) {
    this(rules, mode, Set.of(), repository, attached, hosts, defaultBranches);
  }

  /** As {@link #GitHubApiJudge(WorkspaceRules, Mode, Set, RepoSlug, List, ApiHosts,
   * DefaultBranches, UnseenCommits)}, where ref moves to unseen commits cannot be judged. */
  public GitHubApiJudge(WorkspaceRules rules, Mode mode, Set<Boundary> boundaries,
      RepoSlug repository, List<RepoSlug> attached, ApiHosts hosts,
      DefaultBranches defaultBranches) {
    this(rules, mode, boundaries, repository, attached, hosts, defaultBranches,
        UnseenCommits.NONE);
  }

  /**
   * A judge for a run where {@code boundaries} are in force. Where the command policy lets
   * GitHub calls through to this boundary ({@link Boundary#GITHUB_API}), the mode's asks are
   * applied here, as the hook applies them without a sandbox; elsewhere the hook has asked.
   *
   * @param unseen fetches and judges the commits a ref move names by id, as a push of them
   */
  public GitHubApiJudge(WorkspaceRules rules, Mode mode, Set<Boundary> boundaries,
      RepoSlug repository, List<RepoSlug> attached, ApiHosts hosts,
      DefaultBranches defaultBranches, UnseenCommits unseen) {
    List<RepoSlug> repos = new ArrayList<>();
    repos.add(Objects.requireNonNull(repository, "repository"));
    repos.addAll(Objects.requireNonNull(attached, "attached"));
    RunPolicy policy = new RunPolicy(Objects.requireNonNull(rules, "rules"),
        Objects.requireNonNull(mode, "mode"), repos,
        Objects.requireNonNull(boundaries, "boundaries").contains(Boundary.GITHUB_API),
        Objects.requireNonNull(unseen, "unseen"));
    this.hosts = Objects.requireNonNull(hosts, "hosts");
    this.rest = new RestRoutes(policy, Objects.requireNonNull(defaultBranches, "defaultBranches"));
    this.graphQl = new GraphQlCalls(policy);
  }

  @Override
  public ApiJudgement judge(ApiCall call) {
    try {
      return judgeOrThrow(call);
    } catch (RuntimeException | StackOverflowError e) {
      // A bug here must not become an allow; nothing of the call goes into the reason.
      return denied("the call could not be judged (internal error), so it is denied");
    }
  }

  private ApiJudgement judgeOrThrow(ApiCall call) {
    String method = call.method() == null ? "" : call.method();
    String shownMethod = RestRoutes.shown(method);
    Api api = hosts.apiOf(call.host());
    if (api == Api.NONE) {
      return denied(RestRoutes.shown(ApiHosts.normalised(call.host()))
          + " is not a GitHub API host of this run");
    }
    Optional<String> rendered = RenderedHtml.askedFor(call.accept());
    if (rendered.isPresent()) {
      return denied(rendered.get()); // any route: a file's rendered HTML may carry them too
    }
    String path = call.path() == null ? "" : call.path();
    if (api == Api.ENTERPRISE) {
      if (path.equals(ENTERPRISE_GRAPHQL)) {
        return graphQl(method, call);
      }
      if (under(path, ENTERPRISE_UPLOADS)) {
        return uploads();
      }
      if (!under(path, ENTERPRISE_REST)) {
        return denied(shownMethod + " " + RestRoutes.shown(path)
            + " is not under " + ENTERPRISE_REST + ", so it is denied");
      }
      path = path.length() == ENTERPRISE_REST.length() ? "/"
          : path.substring(ENTERPRISE_REST.length());
    }
    if (api == Api.UPLOADS) {
      return uploads();
    }
    if (api == Api.REST && path.equals("/graphql")) {
      return graphQl(method, call);
    }
    Optional<List<String>> segments = ApiPath.segments(path);
    if (segments.isEmpty()) {
      return denied(shownMethod + " " + RestRoutes.shown(path)
          + " is not a path the boundary reads plainly (encoded slash, dot segment, empty"
          + " segment, ';' or a bad escape), so it is denied");
    }
    if (!isRead(method) && !call.query().isEmpty()) {
      // The judged fields are read from the body; a query string could say them again.
      return denied(RestRoutes.route(method, segments.get())
          + " has a query string, which the boundary does not read on writes, so it is denied");
    }
    return rest.judge(method, segments.get(), call.body());
  }

  private ApiJudgement graphQl(String method, ApiCall call) {
    String route = RestRoutes.shown(method) + " /graphql";
    if (!method.equals("POST")) {
      return denied(route + " is denied: GraphQL calls are POST requests");
    }
    if (!call.query().isEmpty()) {
      return denied(route + " is denied: it has a query string, which the boundary does not read");
    }
    return graphQl.judge(route, call.body());
  }

  private static boolean isRead(String method) {
    return method.equals("GET") || method.equals("HEAD");
  }

  /** The uploads host takes release assets only: denied as releases are on the API host. */
  private static ApiJudgement uploads() {
    return new ApiJudgement(List.of(RunPolicy.denied(RunPolicy.ADMIN, null, null,
        RestRoutes.RELEASES_DENIED)), false);
  }

  private static boolean under(String path, String prefix) {
    return path.equals(prefix) || path.startsWith(prefix + "/");
  }

  private static ApiJudgement denied(String reason) {
    return new ApiJudgement(List.of(new ApiJudgement.ApiAction(RunPolicy.UNKNOWN, null, null,
        Decision.DENY, reason)), false);
  }
}
