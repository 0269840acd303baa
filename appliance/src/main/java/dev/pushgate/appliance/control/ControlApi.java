package dev.pushgate.appliance.control;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.appliance.DefaultRules;
import dev.pushgate.approvals.ApprovalDesk;
import dev.pushgate.appliance.launch.Launches;
import dev.pushgate.appliance.runs.RunNotLaunched;
import dev.pushgate.appliance.runs.Runs;
import dev.pushgate.appliance.runs.RunRequestException;
import dev.pushgate.appliance.store.AuditStore;
import dev.pushgate.appliance.store.Ledger;
import dev.pushgate.appliance.web.ApprovalsPage;
import dev.pushgate.gateway.ErrorAnswer;
import dev.pushgate.types.AuditEntry;
import dev.pushgate.types.BoundedBody;
import dev.pushgate.gitconfig.PushUrlRewrite;
import java.io.InputStream;
import java.sql.SQLException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control API, JSON over the appliance's Unix socket: runs are created, read, launched (a
 * streamed answer, {@link LaunchApi}) and torn down here, and the audit is read. Never a secret
 * in an answer but the run's own read token and credential at creation (and what a launched
 * command prints itself).
 */
public final class ControlApi extends Handler.Abstract {
  private static final Logger log = LoggerFactory.getLogger(ControlApi.class);
  private static final int MAX_BODY = 1 << 20;
  private static final String LAUNCH = "/launch";
  private static final String FINDINGS = "/findings";

  private final Runs runs;
  private final AuditStore audit;
  private final String gatewayUrl;
  private final java.nio.file.Path gatewaySocket;
  private final ObjectMapper json = new ObjectMapper()
      .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
      // "{...} {...}" is not one request with something ignored after it.
      .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private final RunRequestParser parser;

  private final ApprovalsApi approvals;
  private final Launches launches;
  private final LaunchApi launchApi;
  private final RunEndFindings findings;
  private final TerminalApi terminals;

  /** {@code gatewayUrl}: the base git URL pushes are rewritten to. */
  /** Where the runs' git host serves repositories, e.g. {@code https://github.com}. */
  private final String gitBaseUrl;

  public ControlApi(Runs runs, AuditStore audit, ApprovalDesk desk, String gatewayUrl,
      String gitBaseUrl, java.util.function.Supplier<DefaultRules> defaultRules,
      java.nio.file.Path gatewaySocket, Launches launches,
      dev.pushgate.sandbox.MicroVmStatus microVm) {
    this.launches = launches;
    this.findings = new RunEndFindings(runs, audit);
    this.launchApi = new LaunchApi(launches, json, findings);
    this.terminals = TerminalApi.ofThisHost(json, microVm);
    this.gitBaseUrl = gitBaseUrl;
    this.parser = new RunRequestParser(json, defaultRules);
    this.runs = runs;
    this.audit = audit;
    this.gatewayUrl = gatewayUrl;
    this.gatewaySocket = gatewaySocket;
    this.approvals = new ApprovalsApi(desk, json);
  }

  /** Issues sign-in links to the approvals web page; none until the appliance serves it. */
  private volatile java.util.function.Supplier<ApprovalsPage.Link> signInLinks;

  /** Lets {@code POST /v1/approvals/signin-link} issue links to {@code page}. */
  public ControlApi servingApprovalsPage(ApprovalsPage page) {
    this.signInLinks = page::signInLink;
    return this;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    String path = Request.getPathInContext(request);
    String method = request.getMethod();
    try {
      if (path.equals("/v1/runs") && method.equals("POST")) {
        createRun(request, response, callback);
      } else if (path.equals("/v1/runs") && method.equals("GET")) {
        listRuns(response, callback);
      } else if (runIdOf(path, LAUNCH) != null) {
        if (!method.equals("POST")) {
          error(response, callback, 405, "use POST to launch a command in a run");
        } else {
          launchApi.launch(runIdOf(path, LAUNCH), readJson(request), response, callback,
              (status, body) -> send(response, callback, status, body));
        }
      } else if (runIdOf(path, FINDINGS) != null) {
        if (!method.equals("POST")) {
          error(response, callback, 405, "use POST to record a run's end-of-run findings");
        } else {
          int n = findings.record(runIdOf(path, FINDINGS), readJson(request));
          send(response, callback, 200, json.createObjectNode().put("recorded", n));
        }
      } else if (path.startsWith("/v1/runs/") && path.indexOf('/', 9) < 0) {
        String id = path.substring(9);
        switch (method) {
          case "GET" -> getRun(id, response, callback);
          case "DELETE" -> deleteRun(id, response, callback);
          default -> error(response, callback, 405, "use GET or DELETE on a run");
        }
      } else if (path.equals("/v1/terminals")) {
        if (!method.equals("POST")) {
          error(response, callback, 405, "use POST to ask for a terminal");
        } else {
          TerminalApi.Answer answer = terminals.open(readJson(request));
          send(response, callback, answer.status(), answer.body());
        }
      } else if (path.equals("/v1/approvals/stream") && method.equals("GET")) {
        approvals.stream(response, callback);
      } else if (path.equals("/v1/approvals") && method.equals("GET")) {
        send(response, callback, 200, approvals.list(request));
      } else if (path.equals(SIGNIN_LINK_PATH) && method.equals("POST")) {
        signInLink(response, callback);
      } else if (path.startsWith("/v1/approvals/") && method.equals("POST")) {
        send(response, callback, 200,
            approvals.answer(path.substring("/v1/approvals/".length()), readJson(request)));
      } else if (path.equals("/v1/audit") && method.equals("GET")) {
        listAudit(request, response, callback);
      } else if (path.equals(AUDIT_SETTLED_PATH) && method.equals("GET")) {
        // For a reader of the database itself (pushgate audit --run): the pushes answered by now
        // have their outcomes written once this answers.
        audit.awaitOwedOutcomes();
        send(response, callback, 200, json.createObjectNode().put("settled", true));
      } else {
        error(response, callback, 404, "no such endpoint: " + method + " " + path);
      }
    } catch (RunRequestException e) {
      error(response, callback, e.status().http, e.getMessage());
    } catch (Exception e) {
      log.error("control API {} {} failed", method, path, e);
      error(response, callback, 500, "internal error; see the appliance log");
    }
    return true;
  }

  /**
   * Answers once every push outcome owed when it was asked is written (docs/audit.md): what a
   * reader of the database asks first, while the appliance runs.
   */
  public static final String AUDIT_SETTLED_PATH = "/v1/audit/settled";

  /** Where {@code pushgate approvals open} asks for a sign-in link to the approvals page. */
  public static final String SIGNIN_LINK_PATH = "/v1/approvals/signin-link";

  /** A one-time link; the token is in the answer to the appliance's own user, never in a log. */
  private void signInLink(Response response, Callback callback) {
    java.util.function.Supplier<ApprovalsPage.Link> links = signInLinks;
    if (links == null) {
      error(response, callback, 404, "this appliance does not serve the approvals page");
      return;
    }
    ApprovalsPage.Link link = links.get();
    ObjectNode out = json.createObjectNode();
    out.put("url", link.url());
    out.put("expiresAt", link.expiresAt().toString());
    send(response, callback, 201, out);
  }

  private void createRun(Request request, Response response, Callback callback) throws Exception {
    JsonNode body = readJson(request);
    Runs.StartedRun started;
    try {
      started = runs.create(parser.parse(body));
    } catch (RunNotLaunched e) {
      // The plan and its verdict, and nothing live: no run id, no token, no credential.
      ObjectNode out = json.createObjectNode();
      out.put("error", e.getMessage());
      out.set("sandbox", json.valueToTree(e.plan()));
      send(response, callback, 422, out);
      return;
    }
    launches.remember(started);
    ObjectNode out = json.createObjectNode();
    out.put("runId", started.runId());
    out.put("expiresAt", started.expiresAt().toString());
    ObjectNode gateway = out.putObject("gateway").put("url", gatewayUrl);
    if (gatewaySocket != null) {
      // The same server on a Unix socket a sandbox can be given (see docs/sandbox.md).
      gateway.put("socket", gatewaySocket.toString());
    }
    out.put("repositoryUrl", gitBaseUrl + "/" + started.repository() + ".git");
    out.put("gitConfigPath", started.gitConfigPath());
    ObjectNode env = out.putObject("env");
    started.env().forEach(env::put);
    if (started.sandbox() != null) {
      out.set("sandbox", json.valueToTree(started.sandbox()));
    } else {
      out.putNull("sandbox");
    }
    dev.pushgate.sandbox.ApiInterception api = runs.apiInterception(started.runId());
    if (api != null) {
      // Where a launcher's run proxy sends the GitHub API names (docs/github-api.md).
      ObjectNode githubApi = out.putObject("githubApi");
      api.hosts().forEach(githubApi.putArray("hosts")::add);
      githubApi.put("boundaryPort", api.boundary().getPort());
      // What the launcher's proxy names the run with on the shared listener: the caller's own.
      githubApi.put("boundaryHandle", api.handle());
      if (api.sharedProxy() != null) {
        // What a launch without an OS sandbox gives its process (docs/github-api.md).
        ObjectNode proxy = githubApi.putObject("sharedProxy");
        proxy.put("port", api.sharedProxy().port());
        proxy.put("user", api.sharedProxy().user());
        proxy.put("password", api.sharedProxy().password().reveal());
      }
    }
    ArrayNode rewrites = out.putArray("pushUrlRewrites");
    for (PushUrlRewrite r : started.pushUrlRewrites()) {
      rewrites.addObject().put("remote", r.remote()).put("from", r.from()).put("to", r.to());
    }
    send(response, callback, 201, out);
  }

  private void listRuns(Response response, Callback callback) throws Exception {
    ArrayNode list = json.createArrayNode();
    for (Ledger.RunRow row : runs.liveEverywhere()) {
      list.add(view(row));
    }
    ObjectNode out = json.createObjectNode();
    out.set("runs", list);
    send(response, callback, 200, out);
  }

  private void getRun(String id, Response response, Callback callback) throws Exception {
    Optional<Ledger.RunRow> row = runs.find(id);
    if (row.isEmpty()) {
      error(response, callback, 404, "no run " + id);
      return;
    }
    send(response, callback, 200, view(row.get()));
  }

  /** The run id of {@code /v1/runs/{id}SUFFIX}, or null when {@code path} is not that. */
  private static String runIdOf(String path, String suffix) {
    return path.startsWith("/v1/runs/") && path.endsWith(suffix)
        && path.indexOf('/', 9) == path.length() - suffix.length()
        ? path.substring(9, path.length() - suffix.length()) : null;
  }

  private void deleteRun(String id, Response response, Callback callback) throws Exception {
    Runs.Teardown t = runs.end(id, "torn down");
    ObjectNode out = json.createObjectNode();
    out.put("runId", t.runId());
    out.put("reason", t.reason());
    ArrayNode revoked = out.putArray("revoked");
    ArrayNode pending = out.putArray("pending");
    for (Runs.Revocation r : t.credentials()) {
      ObjectNode n = (r.revoked() ? revoked : pending).addObject();
      n.put("kind", r.kind());
      if (r.repository() != null) {
        n.put("repository", r.repository());
      }
      if (r.error() != null) {
        n.put("error", r.error());
      }
    }
    out.put("gitConfigRemoved", t.gitConfigRemoved());
    send(response, callback, 200, out);
  }

  private void listAudit(Request request, Response response, Callback callback) throws Exception {
    Fields q = Request.extractQueryParameters(request);
    String decision = q.getValue("decision");
    Boolean refused = null;
    if (decision != null) {
      refused = switch (decision) {
        case "denied", "refused" -> Boolean.TRUE;
        case "allowed" -> Boolean.FALSE;
        default -> throw new RunRequestException(RunRequestException.Status.BAD_REQUEST,
            "decision must be denied or allowed");
      };
    }
    Instant since = null;
    String sinceText = q.getValue("since");
    if (sinceText != null) {
      try {
        since = Instant.parse(sinceText);
      } catch (DateTimeParseException e) {
        throw new RunRequestException(RunRequestException.Status.BAD_REQUEST,
            "since must be an ISO-8601 instant such as 2026-12-01T10:00:00Z");
      }
    }
    int limit = AuditStore.Query.DEFAULT_LIMIT;
    String limitText = q.getValue("limit");
    if (limitText != null) {
      try {
        limit = Integer.parseInt(limitText);
      } catch (NumberFormatException e) {
        limit = -1;
      }
      if (limit < 1 || limit > AuditStore.Query.MAX_LIMIT) {
        throw new RunRequestException(RunRequestException.Status.BAD_REQUEST,
            "limit must be a whole number from 1 to " + AuditStore.Query.MAX_LIMIT);
      }
    }
    AuditStore.Query query;
    try {
      query = new AuditStore.Query(refused, q.getValue("runId"), q.getValue("repository"), since,
          limit);
    } catch (IllegalArgumentException e) {
      throw new RunRequestException(RunRequestException.Status.BAD_REQUEST, e.getMessage());
    }
    ArrayNode list = json.createArrayNode();
    for (AuditEntry r : audit.list(query)) {
      list.add(AuditJson.of(r));
    }
    ObjectNode out = json.createObjectNode();
    out.set("decisions", list);
    send(response, callback, 200, out);
  }

  private ObjectNode view(Ledger.RunRow row) throws JsonProcessingException {
    ObjectNode n = json.createObjectNode();
    n.put("runId", row.id());
    n.put("workspaceId", row.workspaceId());
    n.put("sessionId", row.sessionId());
    n.put("agentId", row.agentId());
    n.put("mode", row.mode());
    n.put("repository", row.repository());
    n.set("attachedRepositories", json.readTree(row.attachedJson()));
    n.set("rules", json.readTree(row.rulesJson()));
    n.put("createdAt", row.createdAt().toString());
    n.put("expiresAt", row.expiresAt().toString());
    n.put("backend", row.backend());
    n.put("state", row.endedAt() == null ? "live" : "ended");
    if (row.endedAt() != null) {
      n.put("endedAt", row.endedAt().toString());
      n.put("endReason", row.endReason());
    }
    return n;
  }

  private JsonNode readJson(Request request) throws Exception {
    // Bytes first, then a strict decode: Jetty's own string decoding failed part-way through a
    // body that was not UTF-8, and the request sometimes got no answer at all.
    String body;
    try (InputStream in = Content.Source.asInputStream(request)) {
      body = BoundedBody.utf8(BoundedBody.read(in, request.getLength(), MAX_BODY));
    } catch (BoundedBody.Refused e) {
      throw new RunRequestException(RunRequestException.Status.BAD_REQUEST,
          e.why() == BoundedBody.Refused.Why.TOO_LARGE
              ? "the request body is larger than " + MAX_BODY + " bytes"
              : "the request body is not valid UTF-8");
    }
    try {
      return json.readTree(body);
    } catch (JsonProcessingException e) {
      // A broken constraint (nesting depth, length) has no location.
      String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr()
          + ", column " + e.getLocation().getColumnNr();
      throw new RunRequestException(RunRequestException.Status.BAD_REQUEST,
          "malformed JSON" + where + ": " + e.getOriginalMessage());
    }
  }

  private void error(Response response, Callback callback, int status, String message) {
    ErrorAnswer.write(response, callback, status, ErrorAnswer.PUSHGATE, message);
  }

  private void send(Response response, Callback callback, int status, JsonNode body) {
    JsonAnswer.send(json, response, callback, status, body);
  }

}
