package dev.pushgate.forge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import dev.pushgate.gateway.ErrorAnswer;
import dev.pushgate.types.BoundedBody;
import java.io.IOException;
import java.util.Map;

/**
 * GitHub's REST shapes for the forge's repositories, pull requests, comments and commits, and
 * its error bodies. URLs are made from the API base the request came to.
 */
final class ForgeJson {
  static final ObjectMapper JSON = new ObjectMapper();

  private final String api;
  private final String web;

  private ForgeJson(String api, String web) {
    this.api = api;
    this.web = web;
  }

  /** URLs as the client reached the forge: its Host, then the forge's paths. */
  static ForgeJson forRequest(HttpServletRequest req) {
    String host = req.getHeader("Host") == null ? "127.0.0.1" : req.getHeader("Host");
    String origin = req.getScheme() + "://" + host;
    return new ForgeJson(origin + LocalForge.CONTEXT_PATH + LocalForge.API_PATH,
        origin + LocalForge.CONTEXT_PATH);
  }

  String repoApi(ForgeRepositories.ForgeRepo r) {
    return api + "/repos/" + r.slug();
  }

  /** The forge's web origin and path, where GitHub's web and download hosts would be. */
  String web() {
    return web;
  }

  String repoWeb(ForgeRepositories.ForgeRepo r) {
    return web + "/" + r.slug();
  }

  static String pullNodeId(ForgeRepositories.ForgeRepo r, long number) {
    return "PR_" + r.id() + "_" + number;
  }

  static String commentNodeId(ForgeRepositories.ForgeRepo r, long id) {
    return "IC_" + r.id() + "_" + id;
  }

  ObjectNode user(String login) {
    ObjectNode u = JSON.createObjectNode();
    u.put("login", login);
    u.put("id", 1);
    u.put("node_id", "BOT_1");
    u.put("type", login.endsWith("[bot]") ? "Bot" : "User");
    u.put("site_admin", false);
    return u;
  }

  ObjectNode repository(ForgeRepositories.ForgeRepo r, Map<String, Boolean> permissions) {
    ObjectNode repo = JSON.createObjectNode();
    repo.put("id", r.id());
    repo.put("node_id", "R_" + r.id());
    repo.put("name", r.slug().name());
    repo.put("full_name", r.slug().toString());
    repo.put("private", true);
    repo.put("visibility", "private");
    ObjectNode owner = repo.putObject("owner");
    owner.put("login", r.slug().owner());
    owner.put("id", 1);
    owner.put("type", "Organization");
    repo.put("html_url", repoWeb(r));
    repo.put("url", repoApi(r));
    repo.put("clone_url", repoWeb(r) + ".git");
    repo.putNull("description");
    repo.put("fork", false);
    repo.put("default_branch", "main");
    repo.put("archived", false);
    repo.put("disabled", false);
    repo.put("has_issues", true);
    repo.put("allow_merge_commit", true);
    repo.put("allow_squash_merge", true);
    repo.put("allow_rebase_merge", true);
    if (permissions != null) {
      ObjectNode p = repo.putObject("permissions");
      permissions.forEach(p::put);
    }
    return repo;
  }

  ObjectNode pull(ForgeRepositories.ForgeRepo r, ForgePulls.Pull p, String headSha,
      String baseSha, int comments) {
    ObjectNode o = JSON.createObjectNode();
    o.put("url", repoApi(r) + "/pulls/" + p.number());
    o.put("id", r.id() * 100_000 + p.number());
    o.put("node_id", pullNodeId(r, p.number()));
    o.put("html_url", repoWeb(r) + "/pull/" + p.number());
    o.put("issue_url", repoApi(r) + "/issues/" + p.number());
    o.put("comments_url", repoApi(r) + "/issues/" + p.number() + "/comments");
    o.put("number", p.number());
    o.put("state", p.state());
    o.put("locked", false);
    o.put("title", p.title());
    o.put("body", p.body());
    o.set("user", user(p.author()));
    o.put("created_at", p.createdAt());
    o.put("updated_at", p.updatedAt());
    o.put("closed_at", p.mergedAt());
    o.put("merged_at", p.mergedAt());
    o.put("merge_commit_sha", p.mergeCommit());
    o.put("draft", false);
    o.set("head", branchRef(r, p.head(), headSha));
    o.set("base", branchRef(r, p.base(), baseSha));
    o.put("author_association", "NONE");
    o.put("merged", p.mergeCommit() != null);
    if (p.open()) {
      o.put("mergeable", headSha != null && baseSha != null);
      o.put("mergeable_state", headSha != null && baseSha != null ? "clean" : "dirty");
    } else {
      o.putNull("mergeable");
      o.put("mergeable_state", "unknown");
    }
    o.put("comments", comments);
    return o;
  }

  private ObjectNode branchRef(ForgeRepositories.ForgeRepo r, String branch, String sha) {
    ObjectNode b = JSON.createObjectNode();
    b.put("label", r.slug().owner() + ":" + branch);
    b.put("ref", branch);
    b.put("sha", sha);
    b.set("user", user(r.slug().owner()));
    b.set("repo", repository(r, null));
    return b;
  }

  ObjectNode comment(ForgeRepositories.ForgeRepo r, ForgePulls.Comment c) {
    ObjectNode o = JSON.createObjectNode();
    o.put("id", c.id());
    o.put("node_id", commentNodeId(r, c.id()));
    o.put("url", repoApi(r) + "/issues/comments/" + c.id());
    o.put("html_url", repoWeb(r) + "/pull/" + c.issue() + "#issuecomment-" + c.id());
    o.put("issue_url", repoApi(r) + "/issues/" + c.issue());
    o.put("body", c.body());
    o.set("user", user(c.author()));
    o.put("created_at", c.createdAt());
    o.put("updated_at", c.createdAt());
    o.put("author_association", "NONE");
    return o;
  }

  ObjectNode ref(ForgeRepositories.ForgeRepo r, String name, String sha) {
    ObjectNode o = JSON.createObjectNode();
    o.put("ref", name);
    o.put("node_id", "REF_" + r.id() + "_" + name);
    o.put("url", repoApi(r) + "/git/" + name);
    ObjectNode obj = o.putObject("object");
    obj.put("sha", sha);
    obj.put("type", "commit");
    obj.put("url", repoApi(r) + "/git/commits/" + sha);
    return o;
  }

  /** GitHub's error shape as the forge gives it ({@link #errorBody}). */
  static final ErrorAnswer.Shape ERROR = (status, message) -> errorBody(status, message)
      .toString();

  static void error(HttpServletResponse rsp, int status, String message) throws IOException {
    ErrorAnswer.write(rsp, status, ERROR, message);
  }

  /**
   * The most request-body bytes the forge reads: more than the API boundary forwards
   * (ApiBoundary.MAX_BODY), whose calls it answers.
   */
  static final int MAX_BODY = 32 * 1024 * 1024;

  /**
   * A request's JSON body, read whole within {@link #MAX_BODY} ({@link BoundedBody.Refused}
   * past it; a caller answers {@link #tooLarge}); an empty body reads as a missing node.
   */
  static JsonNode readBody(HttpServletRequest req) throws IOException {
    return JSON.readTree(BoundedBody.read(req.getInputStream(), req.getContentLengthLong(),
        MAX_BODY));
  }

  /** GitHub's answer to a body larger than it takes. */
  static void tooLarge(HttpServletResponse rsp) throws IOException {
    error(rsp, 413, "the request body is larger than " + MAX_BODY + " bytes");
  }

  static ObjectNode errorBody(int status, String message) {
    ObjectNode e = JSON.createObjectNode();
    e.put("message", message);
    e.put("documentation_url", "https://docs.github.com/rest");
    e.put("status", String.valueOf(status));
    return e;
  }

  /** GitHub's 422 with one error: {@code code} on {@code field} of {@code resource}. */
  static void validationFailed(HttpServletResponse rsp, String resource, String field,
      String code, String message) throws IOException {
    ObjectNode e = errorBody(422, "Validation Failed");
    ArrayNode errors = e.putArray("errors");
    ObjectNode one = errors.addObject();
    one.put("resource", resource);
    if (field != null) {
      one.put("field", field);
    }
    one.put("code", code);
    if (message != null) {
      one.put("message", message);
    }
    send(rsp, 422, e);
  }

  static void send(HttpServletResponse rsp, int status, JsonNode body) throws IOException {
    rsp.setStatus(status);
    rsp.setContentType("application/json; charset=utf-8");
    JSON.writeValue(rsp.getOutputStream(), body);
  }
}
