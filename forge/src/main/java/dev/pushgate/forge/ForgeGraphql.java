package dev.pushgate.forge;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.forge.ForgeCommits.Refused;
import graphql.ExecutionInput;
import graphql.ExecutionResult;
import graphql.GraphQL;
import graphql.GraphqlErrorBuilder;
import graphql.Scalars;
import graphql.analysis.MaxQueryDepthInstrumentation;
import graphql.execution.DataFetcherResult;
import graphql.schema.DataFetcher;
import graphql.schema.DataFetchingEnvironment;
import graphql.schema.GraphQLScalarType;
import graphql.schema.GraphQLSchema;
import graphql.schema.TypeResolver;
import graphql.schema.idl.RuntimeWiring;
import graphql.schema.idl.SchemaGenerator;
import graphql.schema.idl.SchemaParser;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * GitHub's GraphQL API at {@code /graphql}, on the subset of its schema in {@code
 * github-subset.graphqls}: enough for {@code gh pr create|list|view|merge|comment} and the
 * mutations {@code createPullRequest}, {@code mergePullRequest}, {@code addComment}, {@code
 * createRef}, {@code updateRefs}. Authorised
 * as GitHub does: no or a bad token is a 401; a repository the token is not scoped to cannot be
 * resolved; a mutation without its permission is a FORBIDDEN error.
 */
final class ForgeGraphql {
  static final String PATH = "/graphql";
  private static final String CALLER = "caller";
  private static final String WEB = "web";
  private static final String REPO = "_repo";
  private static final Pattern PULL_ID = Pattern.compile("PR_([0-9]+)_([0-9]+)");
  private static final Pattern REPO_ID = Pattern.compile("R_([0-9]+)");
  private static final String NOT_ACCESSIBLE = "Resource not accessible by integration";
  private static final int MAX_DEPTH = 25;
  private static final TypeReference<Map<String, Object>> VARIABLES = new TypeReference<>() {};

  private final ForgeRepositories repos;
  private final ForgePullRequests pulls;
  private final ForgeCommits commits;
  private final GraphQL graphql;

  ForgeGraphql(ForgeRepositories repos, ForgePullRequests pulls, ForgeCommits commits) {
    this.repos = repos;
    this.pulls = pulls;
    this.commits = commits;
    // gh's deepest query (pr view's status checks) is 12 levels; a deeper one is refused
    this.graphql = GraphQL.newGraphQL(schema())
        .instrumentation(new MaxQueryDepthInstrumentation(MAX_DEPTH)).build();
  }

  void handle(HttpServletRequest req, HttpServletResponse rsp, ForgeCaller caller)
      throws IOException {
    if (!req.getMethod().equals("POST")) {
      ForgeJson.error(rsp, 404, "Not Found");
      return;
    }
    if (!caller.presented()) {
      ForgeJson.error(rsp, 401, "This endpoint requires you to be authenticated.");
      return;
    }
    if (caller.grant().isEmpty()) {
      ForgeJson.error(rsp, 401, "Bad credentials");
      return;
    }
    JsonNode body;
    try {
      body = ForgeJson.readBody(req);
    } catch (dev.pushgate.types.BoundedBody.Refused e) {
      ForgeJson.tooLarge(rsp);
      return;
    } catch (IOException e) {
      body = null;
    }
    if (body == null || !body.path("query").isTextual()) {
      ForgeJson.error(rsp, 400, "Problems parsing JSON");
      return;
    }
    Map<String, Object> variables = body.path("variables").isObject()
        ? ForgeJson.JSON.convertValue(body.get("variables"), VARIABLES) : Map.of();
    ExecutionInput input = ExecutionInput.newExecutionInput(body.get("query").asText())
        .operationName(body.path("operationName").isTextual()
            ? body.get("operationName").asText() : null)
        .variables(variables)
        .graphQLContext(Map.of(CALLER, caller, WEB, ForgeJson.forRequest(req)))
        .build();
    ExecutionResult result = graphql.execute(input);
    ForgeJson.send(rsp, 200, githubShape(result.toSpecification()));
  }

  /** GitHub puts an error's {@code type} beside its message, not under {@code extensions}. */
  private static JsonNode githubShape(Map<String, Object> spec) {
    ObjectNode out = ForgeJson.JSON.valueToTree(spec);
    for (JsonNode e : out.path("errors")) {
      JsonNode type = e.path("extensions").path("type");
      if (type.isTextual()) {
        ((ObjectNode) e).put("type", type.asText());
        ((ObjectNode) e).remove("extensions");
      }
    }
    return out;
  }

  private GraphQLSchema schema() {
    String sdl;
    try (InputStream in = ForgeGraphql.class.getResourceAsStream("github-subset.graphqls")) {
      sdl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    TypeResolver byTypename = env -> env.getSchema().getObjectType(
        String.valueOf(((Map<?, ?>) env.getObject()).get("__typename")));
    RuntimeWiring.Builder wiring = RuntimeWiring.newRuntimeWiring();
    for (String name : List.of("DateTime", "URI", "GitObjectID", "HTML", "Date", "GitRefname")) {
      wiring.scalar(GraphQLScalarType.newScalar().name(name)
          .coercing(Scalars.GraphQLString.getCoercing()).build());
    }
    for (String name : List.of("Node", "Actor", "RepositoryOwner", "RequestedReviewer",
        "StatusCheckRollupContext")) {
      wiring.type(name, t -> t.typeResolver(byTypename));
    }
    wiring.type("Query", t -> t
        .dataFetcher("repository", guarded(this::repository))
        .dataFetcher("node", guarded(this::node))
        .dataFetcher("viewer", env -> actor("User", ForgeCaller.BOT_LOGIN)));
    wiring.type("Repository", t -> t
        .dataFetcher("pullRequest", guarded(this::pullRequest))
        .dataFetcher("pullRequests", guarded(this::pullRequests)));
    wiring.type("Mutation", t -> t
        .dataFetcher("createPullRequest", guarded(this::createPullRequest))
        .dataFetcher("mergePullRequest", guarded(this::mergePullRequest))
        .dataFetcher("addComment", guarded(this::addComment))
        .dataFetcher("createRef", guarded(this::createRef))
        .dataFetcher("updateRefs", guarded(this::updateRefs)));
    return new SchemaGenerator().makeExecutableSchema(new SchemaParser().parse(sdl),
        wiring.build());
  }

  // ---- resolvers

  private interface Resolver {
    Object get(DataFetchingEnvironment env) throws IOException, Refused;
  }

  /** A refusal becomes a GraphQL error of GitHub's type; the field answers null. */
  private static DataFetcher<Object> guarded(Resolver r) {
    return env -> {
      try {
        return r.get(env);
      } catch (Refused e) {
        return DataFetcherResult.newResult().error(GraphqlErrorBuilder.newError(env)
            .message(e.getMessage()).extensions(Map.of("type", typeOf(e))).build()).build();
      }
    };
  }

  private static String typeOf(Refused e) {
    return switch (e.status) {
      case 404 -> "NOT_FOUND";
      case 403 -> "FORBIDDEN";
      default -> "UNPROCESSABLE";
    };
  }

  private Object repository(DataFetchingEnvironment env) throws Refused {
    String owner = env.getArgument("owner");
    String name = env.getArgument("name");
    Optional<ForgeRepositories.ForgeRepo> r;
    try {
      r = repos.find(new dev.pushgate.types.RepoSlug(owner, name));
    } catch (IllegalArgumentException e) {
      r = Optional.empty();
    }
    if (r.isEmpty() || !caller(env).sees(r.get())) {
      throw new Refused(404,
          "Could not resolve to a Repository with the name '" + owner + "/" + name + "'.");
    }
    return repository(r.get(), caller(env), web(env));
  }

  private Object node(DataFetchingEnvironment env) throws IOException, Refused {
    String id = env.getArgument("id");
    Matcher m;
    if ((m = PULL_ID.matcher(id)).matches()) {
      ForgeRepositories.ForgeRepo r = repoById(env, Long.parseLong(m.group(1)), id);
      return pull(r, pulls.get(r, Long.parseLong(m.group(2))), web(env));
    }
    if ((m = REPO_ID.matcher(id)).matches()) {
      return repository(repoById(env, Long.parseLong(m.group(1)), id), caller(env), web(env));
    }
    throw notResolved(id);
  }

  private Object pullRequest(DataFetchingEnvironment env) throws IOException, Refused {
    ForgeRepositories.ForgeRepo r = repoOf(env);
    int number = env.getArgument("number");
    Optional<ForgePulls.Pull> p = pulls.store().pull(r, number);
    if (p.isEmpty()) {
      throw new Refused(404, "Could not resolve to a PullRequest with the number of " + number
          + ".");
    }
    return pull(r, p.get(), web(env));
  }

  private Object pullRequests(DataFetchingEnvironment env) throws IOException {
    ForgeRepositories.ForgeRepo r = repoOf(env);
    List<String> states = env.getArgument("states");
    String base = env.getArgument("baseRefName");
    String head = env.getArgument("headRefName");
    Integer first = env.getArgument("first");
    List<ForgePulls.Pull> matching = new ArrayList<>(pulls.list(r).stream()
        .filter(p -> states == null || states.contains(stateOf(p)))
        .filter(p -> base == null || base.equals(p.base()))
        .filter(p -> head == null || head.equals(p.head()))
        .toList());
    Map<String, Object> orderBy = env.getArgument("orderBy");
    Comparator<ForgePulls.Pull> byNumber = Comparator.comparingLong(ForgePulls.Pull::number);
    matching.sort(orderBy != null && "ASC".equals(orderBy.get("direction"))
        ? byNumber : byNumber.reversed());
    List<Object> nodes = new ArrayList<>();
    for (ForgePulls.Pull p : matching.subList(0, first == null ? matching.size()
        : Math.min(first, matching.size()))) {
      nodes.add(pull(r, p, web(env)));
    }
    return connection(matching.size(), nodes);
  }

  private Object createPullRequest(DataFetchingEnvironment env) throws IOException, Refused {
    Map<String, Object> input = env.getArgument("input");
    ForgeRepositories.ForgeRepo r = repoByNodeId(env, String.valueOf(input.get("repositoryId")));
    need(env, r, "pull_requests");
    ForgePulls.Pull p;
    try {
      p = pulls.open(r, (String) input.get("title"), (String) input.get("body"),
          (String) input.get("headRefName"), (String) input.get("baseRefName"));
    } catch (Refused e) {
      throw e.validation() ? new Refused(422, createMessage(e)) : e;
    }
    return payload(input, "pullRequest", pull(r, p, web(env)));
  }

  /** GitHub's GraphQL words for a pull request it would not open. */
  private static String createMessage(Refused e) {
    if ("head".equals(e.field)) {
      return "Head sha can't be blank, Head ref must be a branch";
    }
    if ("base".equals(e.field)) {
      return "Base sha can't be blank, Base ref must be a branch";
    }
    return e.getMessage() != null ? e.getMessage() : e.field + " " + e.code;
  }

  private Object mergePullRequest(DataFetchingEnvironment env) throws IOException, Refused {
    Map<String, Object> input = env.getArgument("input");
    PullNode pull = pullByNodeId(env, String.valueOf(input.get("pullRequestId")));
    ForgeRepositories.ForgeRepo r = pull.repo();
    need(env, r, "contents");
    Object method = input.get("mergeMethod");
    ForgePulls.Pull p = pulls.merge(r, pull.number(),
        ForgeCommits.Method.valueOf(method == null ? "MERGE" : method.toString()),
        (String) input.get("commitHeadline"), (String) input.get("commitBody"),
        (String) input.get("expectedHeadOid"));
    Map<String, Object> out = payload(input, "pullRequest", pull(r, p, web(env)));
    out.put("actor", actor("Bot", ForgeCaller.BOT_LOGIN));
    return out;
  }

  private Object addComment(DataFetchingEnvironment env) throws IOException, Refused {
    Map<String, Object> input = env.getArgument("input");
    PullNode pull = pullByNodeId(env, String.valueOf(input.get("subjectId")));
    ForgeRepositories.ForgeRepo r = pull.repo();
    need(env, r, "issues", "pull_requests");
    long number = pull.number();
    ForgePulls.Comment c;
    try {
      c = pulls.comment(r, number, (String) input.get("body"));
    } catch (Refused e) {
      throw e.validation() ? new Refused(422, "Body can't be blank") : e;
    }
    Map<String, Object> edge = new HashMap<>();
    edge.put("cursor", "c" + c.id());
    edge.put("node", comment(r, c, web(env)));
    Map<String, Object> out = payload(input, "commentEdge", edge);
    out.put("timelineEdge", edge);
    out.put("subject", pull(r, pulls.get(r, number), web(env)));
    return out;
  }

  private Object createRef(DataFetchingEnvironment env) throws IOException, Refused {
    Map<String, Object> input = env.getArgument("input");
    ForgeRepositories.ForgeRepo r = repoByNodeId(env, String.valueOf(input.get("repositoryId")));
    need(env, r, "contents");
    String name = String.valueOf(input.get("name"));
    if (!name.startsWith("refs/") || !org.eclipse.jgit.lib.Repository.isValidRefName(name)) {
      throw new Refused(422, "Reference name must start with 'refs/'");
    }
    if (!commits.createRef(r, name, oid(input.get("oid")))) {
      throw new Refused(422, "A ref named \"" + name + "\" already exists in the repository.");
    }
    return payload(input, "ref", null);
  }

  /**
   * Each update in turn, creating a ref it does not find (GitHub applies them at once and checks
   * {@code beforeOid}; the forge's tests need no more).
   */
  private Object updateRefs(DataFetchingEnvironment env) throws IOException, Refused {
    Map<String, Object> input = env.getArgument("input");
    ForgeRepositories.ForgeRepo r = repoByNodeId(env, String.valueOf(input.get("repositoryId")));
    need(env, r, "contents");
    for (Map<String, Object> u : castList(input.get("refUpdates"))) {
      String name = String.valueOf(u.get("name"));
      org.eclipse.jgit.lib.ObjectId after = oid(u.get("afterOid"));
      if (after.equals(org.eclipse.jgit.lib.ObjectId.zeroId())) {
        commits.deleteRef(r, name);
      } else if (!commits.createRef(r, name, after)) {
        commits.updateRef(r, name, after, Boolean.TRUE.equals(u.get("force")));
      }
    }
    return payload(input, "clientMutationId", input.get("clientMutationId"));
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> castList(Object o) {
    return (List<Map<String, Object>>) o;
  }

  private static org.eclipse.jgit.lib.ObjectId oid(Object v) throws Refused {
    String s = String.valueOf(v);
    if (!org.eclipse.jgit.lib.ObjectId.isId(s)) {
      throw new Refused(422, "Invalid object id " + s);
    }
    return org.eclipse.jgit.lib.ObjectId.fromString(s);
  }

  // ---- lookups and checks

  private static ForgeJson web(DataFetchingEnvironment env) {
    return env.getGraphQlContext().get(WEB);
  }

  private static ForgeCaller caller(DataFetchingEnvironment env) {
    return env.getGraphQlContext().get(CALLER);
  }

  private static ForgeRepositories.ForgeRepo repoOf(DataFetchingEnvironment env) {
    return (ForgeRepositories.ForgeRepo) ((Map<?, ?>) env.getSource()).get(REPO);
  }

  private ForgeRepositories.ForgeRepo repoByNodeId(DataFetchingEnvironment env, String id)
      throws Refused {
    Matcher m = REPO_ID.matcher(id);
    if (!m.matches()) {
      throw notResolved(id);
    }
    return repoById(env, Long.parseLong(m.group(1)), id);
  }

  /** A pull request a mutation names by its node id: its repository and its number. */
  private record PullNode(ForgeRepositories.ForgeRepo repo, long number) {}

  private PullNode pullByNodeId(DataFetchingEnvironment env, String id) throws Refused {
    Matcher m = PULL_ID.matcher(id);
    if (!m.matches()) {
      throw notResolved(id);
    }
    return new PullNode(repoById(env, Long.parseLong(m.group(1)), id), Long.parseLong(m.group(2)));
  }

  /** The repository of a node id, if the caller's token sees it: otherwise it does not exist. */
  private ForgeRepositories.ForgeRepo repoById(DataFetchingEnvironment env, long repoId,
      String id) throws Refused {
    return repos.all().stream().filter(r -> r.id() == repoId && caller(env).sees(r))
        .findFirst().orElseThrow(() -> notResolved(id));
  }

  private static Refused notResolved(String id) {
    return new Refused(404, "Could not resolve to a node with the global id of '" + id + "'");
  }

  private static void need(DataFetchingEnvironment env, ForgeRepositories.ForgeRepo r,
      String... permissions) throws Refused {
    if (!caller(env).may(r, "write", permissions)) {
      throw new Refused(403, NOT_ACCESSIBLE);
    }
  }

  // ---- shapes: maps read by graphql-java's property fetchers, typed by __typename

  private static Map<String, Object> payload(Map<String, Object> input, String key,
      Object value) {
    Map<String, Object> out = new HashMap<>();
    out.put("clientMutationId", input.get("clientMutationId"));
    out.put(key, value);
    return out;
  }

  private static Map<String, Object> actor(String type, String login) {
    Map<String, Object> a = new HashMap<>();
    a.put("__typename", type);
    a.put("id", type.substring(0, 1) + "_" + login);
    a.put("login", login);
    a.put("name", null);
    a.put("avatarUrl", "https://avatars.githubusercontent.com/u/1");
    a.put("url", "https://github.com/" + login);
    return a;
  }

  private Map<String, Object> repository(ForgeRepositories.ForgeRepo r, ForgeCaller caller,
      ForgeJson web) {
    Map<String, Object> repo = new HashMap<>();
    repo.put(REPO, r);
    repo.put("__typename", "Repository");
    repo.put("id", "R_" + r.id());
    repo.put("databaseId", r.id());
    repo.put("name", r.slug().name());
    Map<String, Object> owner = actor("Organization", r.slug().owner());
    owner.put("id", "O_" + r.slug().owner());
    repo.put("owner", owner);
    repo.put("nameWithOwner", r.slug().toString());
    repo.put("url", web.repoWeb(r));
    repo.put("description", null);
    repo.put("hasIssuesEnabled", true);
    repo.put("hasWikiEnabled", false);
    repo.put("hasProjectsEnabled", false);
    repo.put("isPrivate", true);
    repo.put("isFork", false);
    repo.put("isArchived", false);
    repo.put("isEmpty", false);
    repo.put("visibility", "PRIVATE");
    repo.put("viewerPermission", caller.may(r, "write", "contents") ? "WRITE" : "READ");
    repo.put("defaultBranchRef", ref(r, "main"));
    repo.put("parent", null);
    repo.put("mergeCommitAllowed", true);
    repo.put("rebaseMergeAllowed", true);
    repo.put("squashMergeAllowed", true);
    repo.put("deleteBranchOnMerge", false);
    repo.put("viewerDefaultMergeMethod", "MERGE");
    return repo;
  }

  private static Map<String, Object> ref(ForgeRepositories.ForgeRepo r, String branch) {
    String tip;
    try {
      tip = ForgePullRequests.tip(r, branch);
    } catch (IOException e) {
      tip = null;
    }
    Map<String, Object> ref = new HashMap<>();
    ref.put("id", "REF_" + r.id() + "_" + branch);
    ref.put("name", branch);
    ref.put("prefix", "refs/heads/");
    ref.put("target", tip == null ? null : commit(tip));
    return ref;
  }

  private static Map<String, Object> commit(String oid) {
    Map<String, Object> c = new HashMap<>();
    c.put("__typename", "Commit");
    c.put("id", "C_" + oid);
    c.put("oid", oid);
    c.put("abbreviatedOid", oid.substring(0, 7));
    c.put("message", "");
    c.put("messageHeadline", "");
    c.put("messageBody", "");
    c.put("committedDate", "2026-01-01T00:00:00Z");
    c.put("authoredDate", "2026-01-01T00:00:00Z");
    c.put("statusCheckRollup", null);
    return c;
  }

  private static String stateOf(ForgePulls.Pull p) {
    return p.open() ? "OPEN" : p.mergeCommit() != null ? "MERGED" : "CLOSED";
  }

  private static Map<String, Object> connection(int total, List<?> nodes) {
    Map<String, Object> c = new HashMap<>();
    c.put("totalCount", total);
    c.put("nodes", nodes);
    Map<String, Object> page = new HashMap<>();
    page.put("hasNextPage", false);
    page.put("hasPreviousPage", false);
    page.put("startCursor", null);
    page.put("endCursor", null);
    c.put("pageInfo", page);
    return c;
  }

  private Map<String, Object> pull(ForgeRepositories.ForgeRepo r, ForgePulls.Pull p,
      ForgeJson web) throws IOException {
    String headOid = ForgePullRequests.tip(r, p.head());
    String baseOid = ForgePullRequests.tip(r, p.base());
    boolean mergeable = p.open() && headOid != null && baseOid != null;
    Map<String, Object> o = new HashMap<>();
    o.put("__typename", "PullRequest");
    o.put("id", ForgeJson.pullNodeId(r, p.number()));
    o.put("number", p.number());
    o.put("title", p.title());
    o.put("body", p.body());
    o.put("state", stateOf(p));
    o.put("url", web.repoWeb(r) + "/pull/" + p.number());
    o.put("author", actor("Bot", p.author()));
    o.put("authorAssociation", "NONE");
    o.put("isDraft", false);
    o.put("closed", !p.open());
    o.put("merged", p.mergeCommit() != null);
    o.put("locked", false);
    o.put("createdAt", p.createdAt());
    o.put("updatedAt", p.updatedAt());
    o.put("closedAt", p.mergedAt());
    o.put("mergedAt", p.mergedAt());
    o.put("mergedBy", p.mergeCommit() == null ? null : actor("Bot", ForgeCaller.BOT_LOGIN));
    o.put("maintainerCanModify", false);
    o.put("mergeable", mergeable ? "MERGEABLE" : "UNKNOWN");
    o.put("mergeStateStatus", mergeable ? "CLEAN" : "UNKNOWN");
    o.put("reviewDecision", null);
    o.put("isInMergeQueue", false);
    o.put("isMergeQueueEnabled", false);
    o.put("additions", 0);
    o.put("deletions", 0);
    o.put("changedFiles", 0);
    o.put("baseRefName", p.base());
    o.put("headRefName", p.head());
    String zero = "0".repeat(40);
    o.put("baseRefOid", baseOid == null ? zero : baseOid);
    o.put("headRefOid", headOid == null ? zero : headOid);
    o.put("baseRef", baseOid == null ? null : ref(r, p.base()));
    o.put("headRef", headOid == null ? null : ref(r, p.head()));
    o.put("mergeCommit", p.mergeCommit() == null ? null : commit(p.mergeCommit()));
    o.put("potentialMergeCommit", null);
    Map<String, Object> owner = actor("Organization", r.slug().owner());
    owner.put("id", "O_" + r.slug().owner());
    o.put("headRepositoryOwner", owner);
    Map<String, Object> repo = repository(r, ForgeCaller.NOBODY, web);
    o.put("headRepository", repo);
    o.put("baseRepository", repo);
    o.put("repository", repo);
    o.put("isCrossRepository", false);
    o.put("viewerMergeHeadlineText",
        "Merge pull request #" + p.number() + " from " + r.slug().owner() + "/" + p.head());
    o.put("viewerMergeBodyText", p.title());
    Map<String, Object> headCommit = new HashMap<>();
    headCommit.put("id", "PRC_" + p.number());
    headCommit.put("commit", commit(headOid == null ? zero : headOid));
    o.put("commits", connection(1, List.of(headCommit)));
    for (String empty : List.of("reviewRequests", "reviews", "latestReviews", "assignees",
        "labels", "projectCards", "projectItems", "files")) {
      o.put(empty, connection(0, List.of()));
    }
    o.put("milestone", null);
    List<Object> comments = new ArrayList<>();
    for (ForgePulls.Comment c : pulls.store().comments(r, p.number())) {
      comments.add(comment(r, c, web));
    }
    o.put("comments", connection(comments.size(), comments));
    o.put("reactionGroups", List.of());
    o.put("autoMergeRequest", null);
    return o;
  }

  private static Map<String, Object> comment(ForgeRepositories.ForgeRepo r,
      ForgePulls.Comment c, ForgeJson web) {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("__typename", "IssueComment");
    o.put("id", ForgeJson.commentNodeId(r, c.id()));
    o.put("databaseId", c.id());
    o.put("author", actor("Bot", c.author()));
    o.put("authorAssociation", "NONE");
    o.put("body", c.body());
    o.put("createdAt", c.createdAt());
    o.put("includesCreatedEdit", false);
    o.put("isMinimized", false);
    o.put("minimizedReason", null);
    o.put("reactionGroups", List.of());
    o.put("url", web.repoWeb(r) + "/pull/" + c.issue() + "#issuecomment-" + c.id());
    o.put("viewerDidAuthor", true);
    return o;
  }
}
