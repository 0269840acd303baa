package dev.pushgate.forge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.forge.ForgeCommits.Refused;
import dev.pushgate.types.RepoSlug;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;

/**
 * The part of GitHub's REST API on a repository that {@code gh} and the end-to-end tests use,
 * authorised by installation tokens as GitHub authorises them: a repository the token is not
 * scoped to does not exist (404); a write without its permission is "Resource not accessible by
 * integration" (403); a token the forge did not issue, or no longer honours, is "Bad
 * credentials" (401).
 */
final class ForgeRepoApi {
  static final Pattern REPO_PATH = Pattern.compile("/repos/([^/]+)/([^/]+)(/.*)?");
  private static final Pattern PULL = Pattern.compile("/pulls/([0-9]{1,9})");
  private static final Pattern PULL_MERGE = Pattern.compile("/pulls/([0-9]{1,9})/merge");
  private static final Pattern COMMENTS = Pattern.compile("/issues/([0-9]{1,9})/comments");
  private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();
  private static final Pattern ARCHIVE = Pattern.compile("/(tarball|zipball)(/.+)?");
  private static final String NOT_ACCESSIBLE = "Resource not accessible by integration";

  private final ForgeRepositories repos;
  private final ForgePullRequests pulls;
  private final ForgeCommits commits;

  ForgeRepoApi(ForgeRepositories repos, ForgePullRequests pulls, ForgeCommits commits) {
    this.repos = repos;
    this.pulls = pulls;
    this.commits = commits;
  }

  /** Answers a request under {@code /repos/{owner}/{repo}}; {@code m} matched REPO_PATH. */
  void handle(HttpServletRequest req, HttpServletResponse rsp, Matcher m, ForgeCaller caller)
      throws IOException {
    if (caller.presented() && caller.grant().isEmpty()) {
      ForgeJson.error(rsp, 401, "Bad credentials");
      return;
    }
    String method = req.getMethod();
    Optional<ForgeRepositories.ForgeRepo> found = find(m.group(1), m.group(2));
    if (found.isEmpty() || !caller.sees(found.get())) {
      // Without a token, GitHub answers a write to a private repository this way too.
      if (!caller.presented() && !method.equals("GET")) {
        ForgeJson.error(rsp, 401, "Requires authentication");
      } else {
        ForgeJson.error(rsp, 404, "Not Found");
      }
      return;
    }
    ForgeRepositories.ForgeRepo r = found.get();
    String rest = m.group(3) == null ? "" : m.group(3);
    ForgeJson out = ForgeJson.forRequest(req);
    try {
      route(req, rsp, r, rest, method, caller, out);
    } catch (Refused e) {
      if (e.validation()) {
        ForgeJson.validationFailed(rsp, resourceOf(rest), e.field, e.code, e.getMessage());
      } else {
        ForgeJson.error(rsp, e.status, e.getMessage());
      }
    }
  }

  private void route(HttpServletRequest req, HttpServletResponse rsp,
      ForgeRepositories.ForgeRepo r, String rest, String method, ForgeCaller caller,
      ForgeJson out) throws IOException, Refused {
    Matcher m;
    if (rest.isEmpty() && method.equals("GET")) {
      need(caller, r, "read", "metadata", "contents");
      ForgeJson.send(rsp, 200, out.repository(r, permissions(caller, r)));
    } else if (rest.equals("/pulls") && method.equals("GET")) {
      need(caller, r, "read", "pull_requests");
      listPulls(req, rsp, r, out);
    } else if (rest.equals("/pulls") && method.equals("POST")) {
      need(caller, r, "write", "pull_requests");
      JsonNode body = body(req);
      ForgePulls.Pull p = pulls.open(r, text(body, "title"), text(body, "body"),
          text(body, "head"), text(body, "base"));
      ForgeJson.send(rsp, 201, pullJson(r, p, out));
    } else if ((m = PULL.matcher(rest)).matches() && method.equals("GET")) {
      need(caller, r, "read", "pull_requests");
      ForgeJson.send(rsp, 200, pullJson(r, pulls.get(r, Long.parseLong(m.group(1))), out));
    } else if ((m = PULL_MERGE.matcher(rest)).matches() && method.equals("GET")) {
      need(caller, r, "read", "pull_requests");
      boolean merged = pulls.get(r, Long.parseLong(m.group(1))).mergeCommit() != null;
      if (merged) {
        rsp.setStatus(204);
      } else {
        ForgeJson.error(rsp, 404, "Not Found");
      }
    } else if ((m = PULL_MERGE.matcher(rest)).matches() && method.equals("PUT")) {
      // GitHub asks contents: write of what merges: it moves the base branch.
      need(caller, r, "write", "contents");
      mergePull(req, rsp, r, Long.parseLong(m.group(1)));
    } else if ((m = COMMENTS.matcher(rest)).matches() && method.equals("GET")) {
      need(caller, r, "read", "issues", "pull_requests");
      ArrayNode list = ForgeJson.JSON.createArrayNode();
      for (ForgePulls.Comment c : pulls.store().comments(r, Long.parseLong(m.group(1)))) {
        list.add(out.comment(r, c));
      }
      ForgeJson.send(rsp, 200, list);
    } else if ((m = COMMENTS.matcher(rest)).matches() && method.equals("POST")) {
      // On a pull request's conversation, GitHub takes either permission.
      need(caller, r, "write", "issues", "pull_requests");
      ForgePulls.Comment c =
          pulls.comment(r, Long.parseLong(m.group(1)), text(body(req), "body"));
      ForgeJson.send(rsp, 201, out.comment(r, c));
    } else if (rest.startsWith("/contents/") && method.equals("GET")) {
      need(caller, r, "read", "contents");
      getContents(req, rsp, r, rest.substring("/contents/".length()), out);
    } else if (rest.startsWith("/contents/") && method.equals("PUT")) {
      need(caller, r, "write", "contents");
      putContents(req, rsp, r, rest.substring("/contents/".length()), out);
    } else if ((m = ARCHIVE.matcher(rest)).matches() && method.equals("GET")) {
      // As GitHub for a private repository: a redirect to the archive host with a token of its
      // own in the query, good for minutes without any other credential.
      need(caller, r, "read", "contents");
      String ref = m.group(2) == null ? "HEAD" : m.group(2).substring(1);
      rsp.setStatus(302);
      rsp.setHeader("Location", out.web() + "/codeload/" + r.slug() + "/"
          + (m.group(1).equals("tarball") ? "legacy.tar.gz" : "legacy.zip") + "/" + ref
          + "?token=" + downloadToken());
    } else if (rest.startsWith("/git/ref")) {
      refs(req, rsp, r, rest, method, caller, out);
    } else {
      ForgeJson.error(rsp, 404, "Not Found");
    }
  }

  private void listPulls(HttpServletRequest req, HttpServletResponse rsp,
      ForgeRepositories.ForgeRepo r, ForgeJson out) throws IOException, Refused {
    String state = Optional.ofNullable(req.getParameter("state")).orElse("open");
    if (!List.of("open", "closed", "all").contains(state)) {
      throw Refused.invalid("state", "invalid", null);
    }
    String head = req.getParameter("head");
    String base = req.getParameter("base");
    ArrayNode list = ForgeJson.JSON.createArrayNode();
    List<ForgePulls.Pull> all = pulls.list(r);
    for (int i = all.size() - 1; i >= 0; i--) {
      ForgePulls.Pull p = all.get(i);
      boolean stateMatches = state.equals("all") || state.equals(p.state());
      // GitHub's head filter is "user:ref-name"
      boolean headMatches = head == null
          || head.equalsIgnoreCase(r.slug().owner() + ":" + p.head());
      boolean baseMatches = base == null || base.equals(p.base());
      if (stateMatches && headMatches && baseMatches) {
        list.add(pullJson(r, p, out));
      }
    }
    ForgeJson.send(rsp, 200, list);
  }

  ObjectNode pullJson(ForgeRepositories.ForgeRepo r, ForgePulls.Pull p, ForgeJson out)
      throws IOException {
    return out.pull(r, p, ForgePullRequests.tip(r, p.head()), ForgePullRequests.tip(r, p.base()),
        pulls.store().comments(r, p.number()).size());
  }

  private void mergePull(HttpServletRequest req, HttpServletResponse rsp,
      ForgeRepositories.ForgeRepo r, long number) throws IOException, Refused {
    JsonNode body = body(req);
    String how = Optional.ofNullable(text(body, "merge_method")).orElse("merge");
    ForgeCommits.Method method;
    try {
      method = ForgeCommits.Method.valueOf(how.toUpperCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw Refused.invalid("merge_method", "invalid", null);
    }
    ForgePulls.Pull p = pulls.merge(r, number, method, text(body, "commit_title"),
        text(body, "commit_message"), text(body, "sha"));
    ObjectNode o = ForgeJson.JSON.createObjectNode();
    o.put("sha", p.mergeCommit());
    o.put("merged", true);
    o.put("message", "Pull Request successfully merged");
    ForgeJson.send(rsp, 200, o);
  }

  private void getContents(HttpServletRequest req, HttpServletResponse rsp,
      ForgeRepositories.ForgeRepo r, String path, ForgeJson out) throws IOException, Refused {
    String ref = Optional.ofNullable(req.getParameter("ref")).orElse("main");
    Optional<ForgeCommits.FileAt> file;
    try (Repository repo = ForgeCommits.open(r)) {
      file = ForgeCommits.file(repo, ref, path);
    }
    if (file.isEmpty()) {
      throw new Refused(404, "Not Found");
    }
    byte[] bytes = file.get().content();
    if (asksForRaw(req)) {
      // As GitHub: the file's own bytes, not JSON (how a file over 1 MB is read).
      rsp.setStatus(200);
      rsp.setContentType(RAW);
      rsp.setContentLengthLong(bytes.length);
      rsp.getOutputStream().write(bytes);
      return;
    }
    ObjectNode o = contentJson(r, path, file.get().blob().name(), bytes.length, ref, out);
    if (bytes.length > MAX_JSON_CONTENT) {
      // As GitHub: a file over 1 MB is not put in the JSON (16 reads of a 14 MB file at once,
      // each built into a base64 string, took the forge's heap).
      o.put("encoding", "none");
      o.put("content", "");
    } else {
      o.put("encoding", "base64");
      o.put("content", Base64.getMimeEncoder(60, "\n".getBytes(StandardCharsets.US_ASCII))
          .encodeToString(bytes) + "\n");
    }
    ForgeJson.send(rsp, 200, o);
  }

  /** GitHub's media type for a file's own bytes. */
  static final String RAW = "application/vnd.github.raw";
  /** The largest file whose content a contents answer's JSON carries, as GitHub's (1 MB). */
  static final int MAX_JSON_CONTENT = 1024 * 1024;

  /** Whether the call asks only for a file's bytes ({@code vnd.github.raw}, {@code .v3.raw}). */
  private static boolean asksForRaw(HttpServletRequest req) {
    String accept = req.getHeader("Accept");
    return accept != null && java.util.Arrays.stream(accept.split(","))
        .map(a -> a.split(";")[0].trim().toLowerCase(java.util.Locale.ROOT))
        .allMatch(a -> a.equals(RAW) || a.equals("application/vnd.github.v3.raw"));
  }

  private void putContents(HttpServletRequest req, HttpServletResponse rsp,
      ForgeRepositories.ForgeRepo r, String path, ForgeJson out) throws IOException, Refused {
    JsonNode body = body(req);
    String message = text(body, "message");
    String content = text(body, "content");
    if (message == null) {
      throw new Refused(422, "Invalid request.\n\n\"message\" wasn't supplied.");
    }
    if (content == null) {
      throw new Refused(422, "Invalid request.\n\n\"content\" wasn't supplied.");
    }
    if (path.isEmpty() || path.endsWith("/") || path.contains("//")
        || List.of(path.split("/")).stream().anyMatch(s -> s.equals(".") || s.equals("..")
            || s.equalsIgnoreCase(".git"))) {
      throw Refused.invalid("path", "invalid", null);
    }
    byte[] bytes;
    try {
      bytes = Base64.getMimeDecoder().decode(content);
    } catch (IllegalArgumentException e) {
      throw new Refused(422, "content is not valid Base64");
    }
    String branch = Optional.ofNullable(text(body, "branch")).orElse("main");
    ForgeCommits.Written w = commits.putFile(r, branch, path, bytes, message, text(body, "sha"),
        ForgeCommits.forgeIdent(pulls.now()));
    ObjectNode o = ForgeJson.JSON.createObjectNode();
    o.set("content", contentJson(r, path, w.blob().name(), bytes.length, branch, out));
    ObjectNode commit = o.putObject("commit");
    commit.put("sha", w.commit().name());
    commit.put("node_id", "C_" + w.commit().name());
    commit.put("url", out.repoApi(r) + "/git/commits/" + w.commit().name());
    commit.put("html_url", out.repoWeb(r) + "/commit/" + w.commit().name());
    commit.put("message", message);
    ForgeJson.send(rsp, w.created() ? 201 : 200, o);
  }

  /**
   * The token of a download link, shaped as GitHub's ({@code GHSAT0…}). The forge serves no
   * download host; what matters to pushgate is that a link the run reads would carry it.
   */
  private static String downloadToken() {
    byte[] b = new byte[24];
    RANDOM.nextBytes(b);
    return "GHSAT0AAAAA" + java.util.HexFormat.of().formatHex(b).toUpperCase(java.util.Locale.ROOT);
  }

  private static ObjectNode contentJson(ForgeRepositories.ForgeRepo r, String path, String sha,
      long size, String ref, ForgeJson out) {
    ObjectNode o = ForgeJson.JSON.createObjectNode();
    o.put("type", "file");
    o.put("name", path.substring(path.lastIndexOf('/') + 1));
    o.put("path", path);
    o.put("sha", sha);
    o.put("size", size);
    o.put("url", out.repoApi(r) + "/contents/" + path + "?ref=" + ref);
    o.put("html_url", out.repoWeb(r) + "/blob/" + ref + "/" + path);
    o.put("git_url", out.repoApi(r) + "/git/blobs/" + sha);
    // As GitHub for a private repository: the raw link carries a token of its own.
    o.put("download_url", out.repoWeb(r) + "/raw/" + ref + "/" + path + "?token="
        + downloadToken());
    return o;
  }

  /**
   * {@code GET /git/ref/{ref}}, {@code GET /git/refs[/{prefix}]}, {@code POST /git/refs},
   * {@code PATCH} and {@code DELETE /git/refs/{ref}}, for branches and tags.
   */
  private void refs(HttpServletRequest req, HttpServletResponse rsp,
      ForgeRepositories.ForgeRepo r, String rest, String method, ForgeCaller caller,
      ForgeJson out) throws IOException, Refused {
    if (method.equals("GET")) {
      need(caller, r, "read", "contents");
      String exact = rest.startsWith("/git/ref/") ? "refs/" + rest.substring(9) : null;
      String prefix = rest.equals("/git/refs") ? "refs/"
          : rest.startsWith("/git/refs/") ? "refs/" + rest.substring(10) : null;
      if (exact == null && prefix == null) {
        throw new Refused(404, "Not Found");
      }
      try (Repository repo = ForgeCommits.open(r)) {
        if (exact != null) {
          Ref ref = repo.exactRef(exact);
          if (ref == null) {
            throw new Refused(404, "Not Found");
          }
          ForgeJson.send(rsp, 200, out.ref(r, ref.getName(), ref.getObjectId().name()));
          return;
        }
        ArrayNode list = ForgeJson.JSON.createArrayNode();
        for (Ref ref : repo.getRefDatabase().getRefsByPrefix(prefix)) {
          list.add(out.ref(r, ref.getName(), ref.getObjectId().name()));
        }
        if (list.isEmpty()) {
          throw new Refused(404, "Not Found");
        }
        ForgeJson.send(rsp, 200, list);
      }
      return;
    }
    need(caller, r, "write", "contents");
    if (method.equals("POST") && rest.equals("/git/refs")) {
      JsonNode body = body(req);
      String ref = text(body, "ref");
      ObjectId sha = objectId(text(body, "sha"));
      if (ref == null || !ref.startsWith("refs/") || ref.split("/").length < 3
          || !Repository.isValidRefName(ref)) {
        throw new Refused(422, "Reference name must start with 'refs/' and have at least two"
            + " slashes.");
      }
      if (!commits.createRef(r, ref, sha)) {
        throw new Refused(422, "Reference already exists");
      }
      ForgeJson.send(rsp, 201, out.ref(r, ref, sha.name()));
    } else if (rest.startsWith("/git/refs/") && method.equals("PATCH")) {
      String ref = "refs/" + rest.substring(10);
      JsonNode body = body(req);
      ObjectId sha = objectId(text(body, "sha"));
      commits.updateRef(r, ref, sha, body.path("force").asBoolean(false));
      ForgeJson.send(rsp, 200, out.ref(r, ref, sha.name()));
    } else if (rest.startsWith("/git/refs/") && method.equals("DELETE")) {
      if (!commits.deleteRef(r, "refs/" + rest.substring(10))) {
        throw new Refused(422, "Reference does not exist");
      }
      rsp.setStatus(204);
    } else {
      throw new Refused(404, "Not Found");
    }
  }

  private static ObjectId objectId(String sha) throws Refused {
    if (sha == null || !ObjectId.isId(sha)) {
      throw new Refused(422, "Invalid request.\n\n\"sha\" wasn't supplied.");
    }
    return ObjectId.fromString(sha);
  }

  private static Map<String, Boolean> permissions(ForgeCaller caller,
      ForgeRepositories.ForgeRepo r) {
    Map<String, Boolean> p = new LinkedHashMap<>();
    p.put("admin", false);
    p.put("maintain", false);
    p.put("push", caller.may(r, "write", "contents"));
    p.put("triage", false);
    p.put("pull", true);
    return p;
  }

  private static void need(ForgeCaller caller, ForgeRepositories.ForgeRepo r, String level,
      String... permissions) throws Refused {
    if (!caller.may(r, level, permissions)) {
      throw new Refused(403, NOT_ACCESSIBLE);
    }
  }

  private static String resourceOf(String rest) {
    return rest.startsWith("/pulls") ? "PullRequest"
        : rest.startsWith("/issues") ? "IssueComment" : "Repository";
  }

  private static JsonNode body(HttpServletRequest req) throws Refused {
    try {
      JsonNode n = ForgeJson.readBody(req);
      if (n == null || n.isMissingNode()) {
        return ForgeJson.JSON.createObjectNode();
      }
      if (!n.isObject()) {
        throw new Refused(400, "Problems parsing JSON");
      }
      return n;
    } catch (dev.pushgate.types.BoundedBody.Refused e) {
      throw new Refused(413, "the request body is larger than " + ForgeJson.MAX_BODY + " bytes");
    } catch (IOException e) {
      throw new Refused(400, "Problems parsing JSON");
    }
  }

  private static String text(JsonNode body, String field) {
    JsonNode n = body.path(field);
    return n.isTextual() ? n.asText() : null;
  }

  private Optional<ForgeRepositories.ForgeRepo> find(String owner, String name) {
    try {
      return repos.find(new RepoSlug(owner, name));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
