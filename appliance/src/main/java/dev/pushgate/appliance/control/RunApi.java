package dev.pushgate.appliance.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.approvals.Answer;
import dev.pushgate.approvals.ApprovalDesk;
import dev.pushgate.approvals.Question;
import dev.pushgate.appliance.runs.Runs;
import dev.pushgate.gateway.RunContext;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Mode;
import dev.pushgate.policy.PreToolUseHook;
import dev.pushgate.sandbox.FilesystemPolicy;
import dev.pushgate.sandbox.ToolOutputRefusals;
import dev.pushgate.gateway.RunSlots;
import dev.pushgate.http.ArrivingBody;
import java.nio.charset.StandardCharsets;
import dev.pushgate.gateway.AuditLog;
import dev.pushgate.types.BearerCredential;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * gateway credential: the Claude Code hook. It serves no GitHub token: a run holds none (its
 * git reads go through the gateway, its GitHub API calls through its API boundary), and an
 * endpoint handing one to the holder of the run credential would give the run one.
 */
public final class RunApi extends Handler.Abstract {
  private static final Logger log = LoggerFactory.getLogger(RunApi.class);
  public static final String HOOK_PATH = "/v1/hooks/pre-tool-use";

  /** The run's {@code PostToolUse} hook posts its input here (see {@link #postToolUse}). */
  public static final String POST_HOOK_PATH = "/v1/hooks/post-tool-use";
  private static final int MAX_HOOK_BODY = 1 << 20;

  /** What the hook does with an "ask": hold it for pushgate's approvers, or leave it to Claude Code. */
  public enum HookAsk {
    APPROVERS,
    PASSTHROUGH
  }

  /** Hook calls one run may have in flight at once, held questions included. */
  public static final int DEFAULT_HOOK_CALLS_PER_RUN = 16;
  /** How long a hook call's body may take to arrive, whole. */
  public static final Duration DEFAULT_BODY_TIMEOUT = Duration.ofSeconds(10);

  private final Runs runs;
  private final ApprovalDesk desk;
  private final HookAsk hookAsk;
  private final HookDecisions decisions;
  private final RunSlots hookSlots;
  private final Duration bodyTimeout;
  private final ObjectMapper json = new ObjectMapper();

  public RunApi(Runs runs, ApprovalDesk desk, HookAsk hookAsk, AuditLog audit, Clock clock) {
    this(runs, desk, hookAsk, audit, clock, DEFAULT_HOOK_CALLS_PER_RUN, DEFAULT_BODY_TIMEOUT);
  }

  public RunApi(Runs runs, ApprovalDesk desk, HookAsk hookAsk, AuditLog audit, Clock clock,
      int hookCallsPerRun, Duration bodyTimeout) {
    this.runs = runs;
    this.desk = desk;
    this.hookAsk = hookAsk;
    this.decisions = new HookDecisions(audit, clock);
    this.hookSlots = new RunSlots(hookCallsPerRun);
    this.bodyTimeout = bodyTimeout;
  }

  /** Tells {@code counter} every hook decision recorded: allow, ask or deny. */
  public RunApi countingHookDecisions(java.util.function.Consumer<String> counter) {
    decisions.countingWith(counter);
    return this;
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
    if (path.equals(POST_HOOK_PATH) && request.getMethod().equals("POST")) {
      return postToolUse(request, response, callback, bearer(request).orElseThrow());
    }
    return text(response, callback, 404, "no such endpoint\n");
  }

  /**
   * Claude Code's {@code PostToolUse} hook: the refusals the tool's own output shows ({@code
   * tool_response}'s {@code stderr} and {@code stdout}), read by the launcher's parser against the
   * run's sandbox, one reason a line as text. The launcher never reads that output (the Bash tool
   * captures it), so this is the only reader of it. Bounded like the {@code PreToolUse} call;
   * anything that fails answers nothing, since this hook never blocks.
   */
  private boolean postToolUse(Request request, Response response, Callback callback,
      String credential) {
    Optional<FilesystemPolicy> fs = runs.filesystemOf(credential);
    Optional<RunSlots.Slot> slot = fs.isEmpty() ? Optional.empty()
        : hookSlots.tryTake(runs.authenticate(credential).orElseThrow().runId());
    if (slot.isEmpty() || request.getLength() > MAX_HOOK_BODY) {
      slot.ifPresent(RunSlots.Slot::close);
      response.getHeaders().put(HttpHeader.CONNECTION, "close");
      return text(response, callback, 200, "");
    }
    Callback done = releasing(callback, slot.get());
    ArrivingBody.read(request, MAX_HOOK_BODY)
        .orTimeout(bodyTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete((bytes, failure) -> {
          String found = "";
          try {
            found = failure != null ? "" : refusalsIn(bytes, fs.get());
          } catch (RuntimeException e) {
            log.debug("a PostToolUse hook input could not be read: {}", e.toString());
          }
          text(response, done, 200, found);
        });
    return true;
  }

  private String refusalsIn(byte[] bytes, FilesystemPolicy fs) {
    JsonNode input;
    try {
      input = json.readTree(new String(bytes, StandardCharsets.UTF_8));
    } catch (Exception e) {
      return "";
    }
    JsonNode tool = input.path("tool_response");
    String output = tool.path("stderr").asText("") + "\n" + tool.path("stdout").asText("");
    StringBuilder out = new StringBuilder();
    for (String line : ToolOutputRefusals.in(output, fs, input.path("cwd").asText(""))) {
      out.append(line).append('\n');
    }
    return out.toString();
  }

  /**
   * Claude Code's {@code PreToolUse} hook. Always answers 200 with a decision: Claude Code reads
   * a failed hook call as "no objection", so bad input must be a deny in the body, never an error.
   *
   * <p>Nothing here holds a request thread while it waits: the body is read as it arrives, up to
   * {@value #MAX_HOOK_BODY} bytes and within the body timeout, and an "ask" waits at the approval
   * desk as a future. A run gets a bounded number of hook calls at once; past it, a deny.
   */
  private boolean preToolUse(Request request, Response response, Callback callback,
      String credential) {
    Optional<Runs.RunPolicy> policy = runs.policyOf(credential);
    if (policy.isEmpty()) {
      return text(response, callback, 401, "Authentication failed\n");
    }
    String runId = policy.get().context().runId();
    Optional<RunSlots.Slot> slot = hookSlots.tryTake(runId);
    if (slot.isEmpty()) {
      log.info("run {}: hook call denied, {} already in flight", runId, hookSlots.perRun());
      return decide(response, callback, decisions.record(policy.get().context(), null,
          PreToolUseHook.render(Decision.DENY, "this run already has " + hookSlots.perRun()
              + " hook calls waiting; denied without looking, retry once they end"), null));
    }
    Callback done = releasing(callback, slot.get());
    if (request.getLength() > MAX_HOOK_BODY) {
      response.getHeaders().put(HttpHeader.CONNECTION, "close");
      return decide(response, done,
          decisions.record(policy.get().context(), null, tooLarge(), null));
    }
    // A body that stops coming is answered at the deadline; the connection is then closed
    // with what is left of it unread.
    ArrivingBody.read(request, MAX_HOOK_BODY)
        .orTimeout(bodyTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete((bytes, failure) -> onBody(policy.get(), bytes, failure, response, done));
    return true;
  }

  private void onBody(Runs.RunPolicy policy, byte[] bytes, Throwable failure, Response response,
      Callback done) {
    try {
      if (failure != null) {
        response.getHeaders().put(HttpHeader.CONNECTION, "close");
        decide(response, done,
            decisions.record(policy.context(), null, unreadable(failure), null));
        return;
      }
      answer(policy, bytes, response, done);
    } catch (RuntimeException e) {
      log.warn("run {}: hook call failed: {}", policy.context().runId(), e.toString());
      decide(response, done, PreToolUseHook.render(Decision.DENY,
          "the hook call failed inside the appliance"));
    }
  }

  private void answer(Runs.RunPolicy policy, byte[] bytes, Response response, Callback done) {
    JsonNode input;
    try {
      input = json.readTree(new String(bytes, StandardCharsets.UTF_8));
    } catch (Exception e) {
      input = null;
    }
    ObjectNode answer = PreToolUseHook.answer(input, Mode.fromId(policy.mode()), policy.rules(),
        policy.boundaries());
    JsonNode specific = answer.path("hookSpecificOutput");
    if (hookAsk != HookAsk.APPROVERS
        || !"ask".equals(specific.path("permissionDecision").asText())) {
      decide(response, done, decisions.record(policy.context(), input, answer, null));
      return;
    }
    JsonNode asked = input;
    String why = why(specific);
    askApprovers(policy, input, why).whenComplete((a, failure) -> {
      ObjectNode settled = failure != null
          ? PreToolUseHook.render(Decision.DENY, "the question failed")
          : PreToolUseHook.render(a.allowed() ? Decision.ALLOW : Decision.DENY,
              a.allowed() ? why + " (" + a.reason() + ")" : a.reason());
      decide(response, done,
          decisions.record(policy.context(), asked, settled, failure == null ? a : null));
    });
  }

  /** The policy's reason of a hook answer, without the prefix every reason carries. */
  private static String why(JsonNode specific) {
    String reason = specific.path("permissionDecisionReason").asText();
    return reason.startsWith(PreToolUseHook.REASON_PREFIX)
        ? reason.substring(PreToolUseHook.REASON_PREFIX.length()) : reason;
  }

  private ObjectNode tooLarge() {
    return PreToolUseHook.render(Decision.DENY,
        "the hook's input is larger than " + MAX_HOOK_BODY + " bytes; denied unread");
  }

  private ObjectNode unreadable(Throwable failure) {
    Throwable cause = failure instanceof java.util.concurrent.CompletionException
        && failure.getCause() != null ? failure.getCause() : failure;
    if (cause instanceof TimeoutException) {
      return PreToolUseHook.render(Decision.DENY, "the hook's input did not arrive within "
          + bodyTimeout.toSeconds() + " s; denied unread");
    }
    if (cause instanceof dev.pushgate.types.BoundedBody.Refused) {
      return tooLarge();
    }
    return PreToolUseHook.render(Decision.DENY, "the hook's input could not be read; denied");
  }

  private CompletableFuture<Answer> askApprovers(Runs.RunPolicy policy, JsonNode input,
      String why) {
    String command = input.path("tool_input").path("command").asText();
    RunContext c = policy.context();
    return desk.askAsync(new Question("-", null, null, "command", c.runId(), c.workspaceId(),
        c.repository().toString(), null, null, null, null, command, "command policy", why,
        null));
  }

  private static boolean decide(Response response, Callback callback, ObjectNode answer) {
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    Content.Sink.write(response, true, answer.toString(), callback);
    return true;
  }

  /** The callback, which gives the run's slot back however the call ends. */
  private static Callback releasing(Callback callback, RunSlots.Slot slot) {
    return new Callback() {
      @Override
      public void succeeded() {
        slot.close();
        callback.succeeded();
      }

      @Override
      public void failed(Throwable x) {
        slot.close();
        callback.failed(x);
      }
    };
  }

  static Optional<String> bearer(Request request) {
    return BearerCredential.of(request.getHeaders().get(HttpHeader.AUTHORIZATION));
  }

  private static boolean text(Response response, Callback callback, int status, String body) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
    Content.Sink.write(response, true, body, callback);
    return true;
  }

}
