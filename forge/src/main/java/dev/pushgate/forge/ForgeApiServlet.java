package dev.pushgate.forge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.types.BearerCredential;
import dev.pushgate.types.RepoSlug;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The subset of GitHub's App API that pushgate's broker uses, served by the local forge with
 * GitHub's shapes and status codes: {@code GET /app}, {@code GET /repos/{owner}/{repo}/installation},
 * {@code POST /app/installations/{id}/access_tokens}, {@code DELETE /installation/token}; and,
 * for installation tokens, the repository REST API ({@link ForgeRepoApi}) and GraphQL ({@link
 * ForgeGraphql}) that {@code gh} uses.
 */
final class ForgeApiServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;
  private static final Logger log = LoggerFactory.getLogger(ForgeApiServlet.class);
  private static final Pattern REPO_INSTALLATION =
      Pattern.compile("/repos/([^/]+)/([^/]+)/installation");
  private static final Pattern ACCESS_TOKENS =
      Pattern.compile("/app/installations/([0-9]+)/access_tokens");
  /**
   * What the forge's App declares, and so all an installation token can be granted: a request
   * for more (another permission, or write where the App reads) is refused, as GitHub does.
   */
  private static final Map<String, String> APP_PERMISSIONS = orderedPermissions();
  private static final List<String> LEVELS = List.of("read", "write");
  /** The request log's path under the API (a test aid). */
  static final String REQUESTS_PATH = "/_forge/requests";

  private final transient ForgeRepositories repos;
  private final transient ForgeTokens tokens;
  private final transient ForgeAppJwt appJwt;
  private final transient Clock clock;
  private final transient ObjectMapper json = new ObjectMapper();

  private final transient ForgeRepoApi repoApi;
  private final transient ForgeGraphql graphql;
  private final transient ForgeRequestLog requestLog;

  ForgeApiServlet(ForgeRepositories repos, ForgeTokens tokens, ForgeAppKey appKey, Clock clock,
      ForgeRepoApi repoApi, ForgeGraphql graphql, ForgeRequestLog requestLog) {
    this.repos = repos;
    this.tokens = tokens;
    this.appJwt = new ForgeAppJwt(appKey.publicKey(), clock);
    this.clock = clock;
    this.repoApi = repoApi;
    this.graphql = graphql;
    this.requestLog = requestLog;
  }

  /**
   * The repository API and GraphQL, authorised by installation tokens; every request is
   * recorded in the request log with the credential it presented and the status answered.
   */
  private boolean tokenApi(HttpServletRequest req, HttpServletResponse rsp, String path)
      throws IOException, SQLException {
    Matcher m = ForgeRepoApi.REPO_PATH.matcher(path);
    boolean repoRoute = m.matches() && !REPO_INSTALLATION.matcher(path).matches();
    boolean graphqlRoute = path.equals(ForgeGraphql.PATH);
    if (!repoRoute && !graphqlRoute) {
      return false;
    }
    ForgeCaller caller = ForgeCaller.of(req, tokens);
    LoggedResponse logged = new LoggedResponse(rsp, status -> requestLog.add(
        new ForgeRequestLog.Entry(clock.instant(), req.getMethod(), path, caller.credential(),
            caller.tokenSha256(), status)));
    try {
      if (repoRoute) {
        repoApi.handle(req, logged, m, caller);
      } else {
        graphql.handle(req, logged, caller);
      }
    } finally {
      logged.recordOnce();
    }
    return true;
  }

  /**
   * {@code GET /_forge/requests}: the request log, a test aid (see {@link ForgeRequestLog}). Only
   * to loopback callers; the sandboxes' socket never serves the API path.
   */
  private void requests(HttpServletRequest req, HttpServletResponse rsp) throws IOException {
    if (!java.net.InetAddress.getByName(req.getRemoteAddr()).isLoopbackAddress()) {
      error(rsp, 404, "Not Found");
      return;
    }
    ArrayNode list = json.createArrayNode();
    for (ForgeRequestLog.Entry e : requestLog.entries()) {
      ObjectNode o = list.addObject();
      o.put("at", e.at().toString());
      o.put("method", e.method());
      o.put("path", e.path());
      o.put("credential", e.credential());
      o.put("token_sha256", e.tokenSha256());
      o.put("status", e.status());
    }
    send(rsp, 200, list);
  }

  @Override
  protected void service(HttpServletRequest req, HttpServletResponse rsp) throws IOException {
    rsp.setHeader("X-GitHub-Request-Id", UUID.randomUUID().toString());
    String path = req.getPathInfo() == null ? "" : req.getPathInfo();
    try {
      String method = req.getMethod();
      if (method.equals("DELETE") && path.equals("/installation/token")) {
        revoke(req, rsp);
        return;
      }
      if (method.equals("GET") && path.equals("/installation/repositories")) {
        installationRepositories(req, rsp);
        return;
      }
      if (method.equals("GET") && path.equals(REQUESTS_PATH)) {
        requests(req, rsp);
        return;
      }
      if (tokenApi(req, rsp, path)) {
        return;
      }
      Optional<String> jwtProblem = checkAppJwt(req);
      if (jwtProblem.isPresent()) {
        error(rsp, 401, jwtProblem.get());
        return;
      }
      Matcher m;
      if (method.equals("GET") && path.equals("/app")) {
        app(rsp);
      } else if (method.equals("GET") && (m = REPO_INSTALLATION.matcher(path)).matches()) {
        installation(rsp, m.group(1), m.group(2));
      } else if (method.equals("POST") && (m = ACCESS_TOKENS.matcher(path)).matches()) {
        accessToken(req, rsp, Long.parseLong(m.group(1)));
      } else {
        error(rsp, 404, "Not Found");
      }
    } catch (SQLException e) {
      log.error("local forge API failed", e);
      error(rsp, 500, "Server Error");
    }
  }

  private void app(HttpServletResponse rsp) throws IOException {
    ObjectNode app = json.createObjectNode();
    app.put("id", Long.parseLong(ForgeAppKey.APP_ID));
    app.put("slug", "pushgate-local-forge");
    app.put("name", "pushgate local forge");
    app.put("node_id", "A_local");
    app.putNull("owner");
    app.put("description", "The App of pushgate's embedded local forge");
    app.put("external_url", "http://127.0.0.1/forge/");
    app.put("html_url", "http://127.0.0.1/forge/");
    app.put("created_at", "2026-01-01T00:00:00Z");
    app.put("updated_at", "2026-01-01T00:00:00Z");
    ObjectNode perms = app.putObject("permissions");
    APP_PERMISSIONS.forEach(perms::put);
    app.putArray("events");
    send(rsp, 200, app);
  }

  private void installation(HttpServletResponse rsp, String owner, String name)
      throws IOException {
    Optional<ForgeRepositories.ForgeRepo> repo = findRepo(owner, name);
    if (repo.isEmpty()) {
      error(rsp, 404, "Not Found");
      return;
    }
    send(rsp, 200, installationJson(owner));
  }

  private void accessToken(HttpServletRequest req, HttpServletResponse rsp, long installationId)
      throws IOException, SQLException {
    List<ForgeRepositories.ForgeRepo> installed = repos.ofInstallation(installationId);
    if (installed.isEmpty()) {
      error(rsp, 404, "Not Found");
      return;
    }
    JsonNode body;
    try {
      body = req.getContentLength() == 0 ? json.createObjectNode() : ForgeJson.readBody(req);
    } catch (dev.pushgate.types.BoundedBody.Refused e) {
      ForgeJson.tooLarge(rsp);
      return;
    } catch (IOException e) {
      error(rsp, 400, "Problems parsing JSON");
      return;
    }
    if (body == null || body.isMissingNode() || !body.isObject()) {
      error(rsp, 400, "Problems parsing JSON");
      return;
    }
    List<ForgeRepositories.ForgeRepo> selected = new ArrayList<>();
    JsonNode names = body.path("repositories");
    JsonNode ids = body.path("repository_ids");
    if (!names.isMissingNode() || !ids.isMissingNode()) {
      for (JsonNode n : names) {
        // Like GitHub, names are looked up among the installation's repositories by name alone,
        // without regard to case; a name two repositories share but for case names neither.
        List<ForgeRepositories.ForgeRepo> named = n.isTextual() ? installed.stream()
            .filter(x -> x.slug().name().equalsIgnoreCase(n.asText())).toList() : List.of();
        Optional<ForgeRepositories.ForgeRepo> r =
            named.size() == 1 ? Optional.of(named.get(0)) : Optional.empty();
        if (r.isEmpty()) {
          error(rsp, 422, "There is at least one repository that does not exist or is not"
              + " accessible to the parent installation.");
          return;
        }
        selected.add(r.get());
      }
      for (JsonNode n : ids) {
        Optional<ForgeRepositories.ForgeRepo> r = n.canConvertToLong()
            ? installed.stream().filter(x -> x.id() == n.asLong()).findFirst()
            : Optional.empty();
        if (r.isEmpty()) {
          error(rsp, 422, "There is at least one repository that does not exist or is not"
              + " accessible to the parent installation.");
          return;
        }
        selected.add(r.get());
      }
    }
    if (selected.isEmpty()) {
      // An unscoped token would cover every repository; the forge never issues one.
      error(rsp, 422, "The local forge issues tokens for listed repositories only.");
      return;
    }
    Map<String, String> permissions = new LinkedHashMap<>();
    JsonNode asked = body.path("permissions");
    if (!asked.isMissingNode() && !asked.isObject()) {
      // GitHub's words for a field of the wrong type; the default is never taken instead.
      error(rsp, 422, "Invalid request.\n\nFor 'properties/permissions', " + asked
          + " is not an object.");
      return;
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = asked.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!granted(e.getKey(), e.getValue())) {
        error(rsp, 422, "The permissions requested are not granted to this installation.");
        return;
      }
      permissions.put(e.getKey(), e.getValue().asText());
    }
    if (permissions.isEmpty()) {
      permissions.put("contents", "write");
      permissions.put("metadata", "read");
    }
    permissions.putIfAbsent("metadata", "read");
    ForgeTokens.Issued issued =
        tokens.issue(selected.stream().map(ForgeRepositories.ForgeRepo::id).toList(), permissions);
    ObjectNode out = json.createObjectNode();
    out.put("token", issued.token().reveal());
    out.put("expires_at", issued.expiresAt().toString());
    ObjectNode p = out.putObject("permissions");
    permissions.forEach(p::put);
    out.put("repository_selection", "selected");
    ArrayNode list = out.putArray("repositories");
    for (ForgeRepositories.ForgeRepo r : selected) {
      list.add(repositoryJson(r));
    }
    send(rsp, 201, out);
  }

  /** A permission the App declares, asked at its declared level or below. */
  private static boolean granted(String permission, JsonNode level) {
    String declared = APP_PERMISSIONS.get(permission);
    return declared != null && level.isTextual() && LEVELS.contains(level.asText())
        && LEVELS.indexOf(level.asText()) <= LEVELS.indexOf(declared);
  }

  private static Map<String, String> orderedPermissions() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("contents", "write");
    p.put("metadata", "read");
    p.put("pull_requests", "write");
    p.put("issues", "write");
    p.put("workflows", "write");
    return java.util.Collections.unmodifiableMap(p);
  }

  /**
   * The repositories an installation token reads, as GitHub lists them: the one read an
   * installation token alone can make, used by the GitHub API boundary's end-to-end test.
   */
  private void installationRepositories(HttpServletRequest req, HttpServletResponse rsp)
      throws IOException, SQLException {
    String token = BearerCredential.ofBearerOrToken(req.getHeader("Authorization")).orElse(null);
    Optional<ForgeTokens.Grant> grant = token == null ? Optional.empty() : tokens.check(token);
    if (grant.isEmpty()) {
      error(rsp, 401, "Bad credentials");
      return;
    }
    ObjectNode out = json.createObjectNode();
    var list = out.putArray("repositories");
    for (ForgeRepositories.ForgeRepo r : repos.all()) {
      if (grant.get().canRead(r.id())) {
        ObjectNode n = list.addObject();
        n.put("id", r.id());
        n.put("full_name", r.slug().toString());
      }
    }
    out.put("total_count", list.size());
    send(rsp, 200, out);
  }

  private void revoke(HttpServletRequest req, HttpServletResponse rsp)
      throws IOException, SQLException {
    String token = BearerCredential.ofBearerOrToken(req.getHeader("Authorization")).orElse(null);
    if (token == null || !tokens.revoke(token)) {
      error(rsp, 401, "Bad credentials");
      return;
    }
    rsp.setStatus(204);
  }

  private Optional<String> checkAppJwt(HttpServletRequest req) {
    Optional<String> bearer = BearerCredential.of(req.getHeader("Authorization"));
    if (bearer.isEmpty()) {
      return Optional.of("Requires authentication");
    }
    return appJwt.problem(bearer.get());
  }

  private Optional<ForgeRepositories.ForgeRepo> findRepo(String owner, String name) {
    try {
      return repos.find(new RepoSlug(owner, name));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private ObjectNode installationJson(String owner) {
    ObjectNode inst = json.createObjectNode();
    long id = ForgeAppKey.installationIdOf(owner);
    inst.put("id", id);
    ObjectNode account = inst.putObject("account");
    account.put("login", owner);
    account.put("id", 1);
    account.put("type", "Organization");
    inst.put("repository_selection", "all");
    inst.put("access_tokens_url", "/app/installations/" + id + "/access_tokens");
    inst.put("repositories_url", "/installation/repositories");
    inst.put("html_url", "http://127.0.0.1/forge/");
    inst.put("app_id", Long.parseLong(ForgeAppKey.APP_ID));
    inst.put("target_id", 1);
    inst.put("target_type", "Organization");
    ObjectNode perms = inst.putObject("permissions");
    APP_PERMISSIONS.forEach(perms::put);
    inst.putArray("events");
    inst.put("created_at", "2026-01-01T00:00:00Z");
    inst.put("updated_at", "2026-01-01T00:00:00Z");
    inst.put("single_file_name", (String) null);
    inst.put("app_slug", "pushgate-local-forge");
    inst.putNull("suspended_at");
    inst.putNull("suspended_by");
    return inst;
  }

  private ObjectNode repositoryJson(ForgeRepositories.ForgeRepo r) {
    ObjectNode repo = json.createObjectNode();
    repo.put("id", r.id());
    repo.put("node_id", "R_" + r.id());
    repo.put("name", r.slug().name());
    repo.put("full_name", r.slug().toString());
    repo.put("private", true);
    ObjectNode owner = repo.putObject("owner");
    owner.put("login", r.slug().owner());
    owner.put("id", 1);
    owner.put("type", "Organization");
    repo.put("default_branch", "main");
    return repo;
  }

  private void error(HttpServletResponse rsp, int status, String message) throws IOException {
    ForgeJson.error(rsp, status, message);
  }

  private void send(HttpServletResponse rsp, int status, JsonNode body) throws IOException {
    rsp.setStatus(status);
    rsp.setContentType("application/json; charset=utf-8");
    json.writeValue(rsp.getOutputStream(), body);
  }
}
