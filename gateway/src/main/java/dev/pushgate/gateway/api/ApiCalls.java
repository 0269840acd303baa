package dev.pushgate.gateway.api;

import java.time.Duration;
import java.util.List;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Every call of one run as one {@link ApiExchange} through the steps in the order
 * docs/api-boundary.md lists them: what pushgate will read ({@link InterceptedHost}, {@link
 * RunSentinel}, {@link MethodOverrides}, {@link IdentityEncoding}), the body, read as it arrives
 * on no thread and within a deadline ({@link RequestBody}), then on the thread its last bytes
 * came on, the call's slot ({@link CallSlots}), the judgement ({@link JudgeCall}, {@link
 * AskApprovers}), for an allowed call what it is sent with ({@link UpstreamToken}, {@link
 * UpstreamRequest}), its audit and its forward. The decision ({@link CallDecision}) is answered
 * in one place.
 */
final class ApiCalls extends Handler.Abstract {
  private final String runId;
  private final List<CallStep> receive;
  private final Duration bodyDeadline;
  private final List<CallStep> decide;
  private final List<CallStep> makeReady;
  private final CallAudit audit;
  private final Forward forward;
  /** The slots and bytes every run's calls share, of which this run's ({@link BufferedBytes}). */
  private final ApiBoundary.Admission admission;

  ApiCalls(ApiBoundary.RunApi run, ApiBoundary.Shared shared, ApiBoundary.Admission admission) {
    this.runId = run.runId();
    this.receive = List.of(new InterceptedHost(shared.upstream()),
        new RunSentinel(run.sentinel()), MethodOverrides::take, IdentityEncoding::take);
    this.bodyDeadline = admission.bodyDeadline();
    this.admission = admission;
    this.decide = List.of(new CallSlots(run.runId(), admission.slots()),
        new JudgeCall(run.runId(), run.judge()),
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
    ApiExchange call = new ApiExchange(request, response, callback, runId, admission);
    // The listener's idle timeout is for a connection that says nothing: while its call is
    // handled the run waits for an answer (an approver's, until the question's timeout; GitHub's,
    // until the answer timeout), and that is not the client gone. Jetty asks this only when no
    // read or write is pending, so a body that stops arriving (the body deadline answers it
    // first) and an answer the client does not take are still cut; a client that closes is seen
    // by the call's ClientGone; between calls the connection still closes when idle.
    request.addIdleTimeoutListener(timeout -> false);
    CallDecision head;
    try {
      head = CallStep.first(call, receive);
    } catch (RuntimeException e) {
      failed(call, e);
      return true;
    }
    if (head != CallDecision.NEXT) {
      finish(call, head);
      return true;
    }
    RequestBody.read(call, bodyDeadline).whenComplete((afterBody, failure) -> {
      if (failure != null) {
        failed(call, failure);
        return;
      }
      if (afterBody instanceof CallDecision.Refused r && r.status() == 408) {
        ApiBoundary.LOG.info("run {}: a GitHub API call's body had not all arrived within {} s;"
            + " answered 408", runId, bodyDeadline.toSeconds());
      }
      finish(call, afterBody);
    });
    return true;
  }

  /**
   * Decides the call (unless {@code decided} already does: anything but {@link
   * CallDecision#NEXT}) and answers it, then ends it: its slot, body bytes and token given back
   * however it went.
   */
  private void finish(ApiExchange call, CallDecision decided) {
    try (call) {
      CallDecision decision = decided != CallDecision.NEXT ? decided
          : CallStep.first(call, decide);
      if (decision instanceof CallDecision.Allowed allowed) {
        CallDecision ready = CallStep.first(call, makeReady);
        decision = ready == CallDecision.NEXT ? allowed : ready;
      }
      answer(call, decision);
    } catch (RuntimeException e) {
      failed(call, e);
    }
  }

  private void failed(ApiExchange call, Throwable e) {
    try (call) {
      // Never the exception's text to the run: it could quote a header.
      ApiBoundary.LOG.warn("run {}: GitHub API call failed: {}", runId, e.getClass().getName());
      if (!call.response.isCommitted()) {
        GitHubError.write(call, 502,
            "pushgate could not complete the call");
      } else {
        call.callback.failed(e);
      }
    }
  }

  /** The one place a decision is answered: refused, denied (audited first), or sent. */
  private void answer(ApiExchange call, CallDecision decision) {
    if (decision instanceof CallDecision.Refused refused) {
      GitHubError.write(call, refused.status(), refused.message());
    } else if (decision instanceof CallDecision.Denied denied) {
      if (!audit.record(call, denied.audited(), denied.reason(), CallAudit.NOT_SENT)) {
        unaudited(call);
      } else {
        GitHubError.write(call, denied.status(), denied.status() == 403
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
    GitHubError.write(call, 503, "pushgate cannot write its audit log;"
        + " nothing was sent to GitHub");
  }
}
