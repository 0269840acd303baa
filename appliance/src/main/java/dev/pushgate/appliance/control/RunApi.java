package dev.pushgate.appliance.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.appliance.approvals.Answer;
import dev.pushgate.appliance.approvals.ApprovalDesk;
import dev.pushgate.appliance.approvals.Question;
import dev.pushgate.appliance.runs.RunRequestException;
import dev.pushgate.appliance.runs.Runs;
import dev.pushgate.broker.BrokerException;
import dev.pushgate.gateway.AuditLog;
import dev.pushgate.gateway.RunContext;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Mode;
import dev.pushgate.policy.PreToolUseHook;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Optional;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a run itself may ask of the appliance on the loopback port, authenticated with its
 * gateway credential: its current read token, in git's credential-helper format, so that a run
 * longer than a token's hour keeps fetching.
 */
public final class RunApi extends Handler.Abstract {
  private static final Logger log = LoggerFactory.getLogger(RunApi.class);
  public static final String CREDENTIAL_PATH = "/v1/run/credential";
  public static final String HOOK_PATH = "/v1/hooks/pre-tool-use";
  private static final int MAX_HOOK_BODY = 1 << 20;

  /** What the hook does with an "ask": hold it for pushgate's approvers, or leave it to Claude Code. */
  public enum HookAsk {
    APPROVERS,
    PASSTHROUGH
  }

  private final Runs runs;
  private final ApprovalDesk desk;
  private final HookAsk hookAsk;
  private final HookDecisions decisions;
  private final ObjectMapper json = new ObjectMapper();

  public RunApi(Runs runs, ApprovalDesk desk, HookAsk hookAsk, AuditLog audit, Clock clock) {
    this.runs = runs;
    this.desk = desk;
    this.hookAsk = hookAsk;
    this.decisions = new HookDecisions(audit, clock);
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    Optional<RunContext> run = bearer(request).flatMap(runs::authenticate);
    if (run.isEmpty()) {
      return text(response, callback, 401,
          "Authentication failed: the run credential is unknown, expired or revoked.\n");
    }
    String path = request.getHttpURI().getPath();
    if (path.equals(HOOK_PATH) && request.getMethod().equals("POST")) {
      return preToolUse(request, response, callback, bearer(request).orElseThrow());
    }
    if (path.equals(CREDENTIAL_PATH) && request.getMethod().equals("GET")) {
      try {
        String token = runs.currentReadToken(run.get()).reveal();
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        return text(response, callback, 200,
            "username=x-access-token\npassword=" + token + "\n");
      } catch (BrokerException | RunRequestException e) {
        log.warn("run {}: no read token to serve: {}", run.get().runId(), e.getMessage());
        return text(response, callback, 503, "no read token right now; try again\n");
      }
    }
    return text(response, callback, 404, "no such endpoint\n");
  }

  /**
   * Claude Code's {@code PreToolUse} hook. Always answers 200 with a decision: Claude Code reads
   * a failed hook call as "no objection", so bad input must be a deny in the body, never an error.
   */
  private boolean preToolUse(Request request, Response response, Callback callback,
      String credential) {
    Optional<Runs.RunPolicy> policy = runs.policyOf(credential);
    ObjectNode answer;
    if (policy.isEmpty()) {
      return text(response, callback, 401, "Authentication failed\n");
    }
    JsonNode input;
    try {
      String body = Content.Source.asString(request, StandardCharsets.UTF_8);
      input = body.length() > MAX_HOOK_BODY ? null : json.readTree(body);
    } catch (Exception e) {
      input = null;
    }
    Mode mode = Mode.fromId(policy.get().mode());
    answer = PreToolUseHook.answer(input, mode, policy.get().rules());
    JsonNode specific = answer.path("hookSpecificOutput");
    Answer approval = null;
    if (hookAsk == HookAsk.APPROVERS && "ask".equals(specific.path("permissionDecision").asText())) {
      approval = askApprovers(policy.get(), input, why(specific));
      answer = PreToolUseHook.render(approval.allowed() ? Decision.ALLOW : Decision.DENY,
          approval.allowed() ? why(specific) + " (" + approval.reason() + ")" : approval.reason());
    }
    answer = decisions.record(policy.get().context(), input, answer, approval);
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    Content.Sink.write(response, true, answer.toString(), callback);
    return true;
  }

  private Answer askApprovers(Runs.RunPolicy policy, JsonNode input, String why) {
    String command = input.path("tool_input").path("command").asText();
    RunContext c = policy.context();
    return desk.ask(new Question("-", null, null, "command", c.runId(), c.workspaceId(),
        c.repository().toString(), null, null, null, null, command, "command policy", why,
        null), line -> { });
  }

  /** The policy's reason of a hook answer, without the prefix every reason carries. */
  private static String why(JsonNode specific) {
    String reason = specific.path("permissionDecisionReason").asText();
    return reason.startsWith(PreToolUseHook.REASON_PREFIX)
        ? reason.substring(PreToolUseHook.REASON_PREFIX.length()) : reason;
  }

  static Optional<String> bearer(Request request) {
    String header = request.getHeaders().get(HttpHeader.AUTHORIZATION);
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Optional.empty();
    }
    String credential = header.substring(7).strip();
    return credential.isEmpty() ? Optional.empty() : Optional.of(credential);
  }

  private static boolean text(Response response, Callback callback, int status, String body) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
    Content.Sink.write(response, true, body, callback);
    return true;
  }

}
