package dev.pushgate.gateway.api;

import java.util.List;
import java.util.concurrent.Semaphore;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Every call of one run, each on its own thread, as one {@link ApiExchange} through the steps in
 * the order docs/github-api.md lists them: what pushgate will read ({@link InterceptedHost},
 * {@link RunSentinel}, {@link MethodOverrides}, {@link IdentityEncoding}, {@link RequestBody}),
 * the judgement ({@link JudgeCall}, {@link AskApprovers}), then for an allowed call what it is
 * sent with ({@link UpstreamToken}, {@link UpstreamRequest}), its audit and its forward. The
 * decision ({@link CallDecision}) is answered in one place.
 */
final class ApiCalls extends Handler.Abstract {
  private final String runId;
  private final List<CallStep> decide;
  private final List<CallStep> makeReady;
  private final CallAudit audit;
  private final Forward forward;
  /** Body bytes this run's calls may still buffer (see {@link ApiBoundary#BUFFERED_BYTES}). */
  private final Semaphore bodyBudget = new Semaphore(ApiBoundary.BUFFERED_BYTES);

  ApiCalls(ApiBoundary.RunApi run, ApiBoundary.Shared shared) {
    this.runId = run.runId();
    this.decide = List.of(new InterceptedHost(shared.upstream()),
        new RunSentinel(run.sentinel()), MethodOverrides::take, IdentityEncoding::take,
        RequestBody::take, new JudgeCall(run.runId(), run.judge()),
        new AskApprovers(run.runId(), run.workspaceId(), shared.approvals()));
    this.makeReady = List.of(new UpstreamToken(run.tokens()),
        new UpstreamRequest(shared.upstream(), shared.client()));
    this.audit = new CallAudit(run.runId(), run.workspaceId(), shared.audit(), shared.clock());
    this.forward = new Forward(run.runId(), shared.client().answerTimeout());
  }

  String runId() {
    return runId;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    try (ApiExchange call = new ApiExchange(request, response, callback, bodyBudget)) {
      CallDecision decision = CallStep.first(call, decide);
      if (decision instanceof CallDecision.Allowed allowed) {
        CallDecision ready = CallStep.first(call, makeReady);
        decision = ready == CallDecision.NEXT ? allowed : ready;
      }
      answer(call, decision);
    } catch (RuntimeException e) {
      // Never the exception's text to the run: it could quote a header.
      ApiBoundary.LOG.warn("run {}: GitHub API call failed: {}", runId, e.getClass().getName());
      if (!response.isCommitted()) {
        GitHubError.write(response, callback, 502, "pushgate could not complete the call");
      } else {
        callback.failed(e);
      }
    }
    return true;
  }

  /** The one place a decision is answered: refused, denied (audited first), or sent. */
  private void answer(ApiExchange call, CallDecision decision) {
    if (decision instanceof CallDecision.Refused refused) {
      GitHubError.write(call.response, call.callback, refused.status(), refused.message());
    } else if (decision instanceof CallDecision.Denied denied) {
      if (!audit.record(call, denied.audited(), denied.reason(), CallAudit.NOT_SENT)) {
        unaudited(call);
      } else {
        GitHubError.write(call.response, call.callback, denied.status(), denied.status() == 403
            ? ApiBoundary.POLICY_PREFIX + denied.reason() : denied.reason());
      }
    } else if (decision instanceof CallDecision.Allowed allowed) {
      // Everything that can still stop the call has happened before its record says "sent".
      if (!audit.record(call, allowed.audited(), allowed.reason(), CallAudit.SENT)) {
        unaudited(call);
      } else {
        forward.send(call, allowed);
      }
    } else {
      throw new IllegalStateException("no step decided the call");
    }
  }

  private static void unaudited(ApiExchange call) {
    GitHubError.write(call.response, call.callback, 503, "pushgate cannot write its audit log;"
        + " nothing was sent to GitHub");
  }
}
