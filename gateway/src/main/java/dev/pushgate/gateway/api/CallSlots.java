package dev.pushgate.gateway.api;

import dev.pushgate.gateway.RunSlots;
import java.util.Optional;
import org.eclipse.jetty.http.HttpHeader;

/**
 * A {@link CallStep}: the listener's slot a call holds while it is judged, held for an approver
 * and forwarded ({@link RunSlots}, one bound for every run: {@link ApiBoundary#MAX_CALLS} of one
 * run, {@link ApiBoundary#BUSY_SHARE} of one run once half of {@link ApiBoundary#MAX_BUSY_CALLS}
 * are taken, only a run's first call in the last {@link ApiBoundary#FIRST_CALLS_ONLY}). It is
 * taken once the call's body is in (a body still arriving holds no slot). A call over the bound
 * is answered 429 with {@code Retry-After}; the exchange gives the slot back when the call ends.
 */
final class CallSlots implements CallStep {
  private final String runId;
  private final RunSlots slots;

  CallSlots(String runId, RunSlots slots) {
    this.runId = runId;
    this.slots = slots;
  }

  @Override
  public CallDecision take(ApiExchange call) {
    Optional<RunSlots.Slot> slot = slots.tryTake(runId);
    if (slot.isPresent()) {
      call.slot(slot.get());
      return CallDecision.NEXT;
    }
    call.response.getHeaders().put(HttpHeader.RETRY_AFTER, ApiBoundary.RETRY_AFTER_SECONDS);
    return new CallDecision.Refused(429, slots.busy(runId)
        ? "pushgate is busy with other runs' GitHub API calls (this run has "
            + slots.inFlight(runId) + " in progress); retry after "
            + ApiBoundary.RETRY_AFTER_SECONDS + " s"
        : "pushgate: this run already has " + ApiBoundary.MAX_CALLS
            + " GitHub API calls in progress; retry when one has finished");
  }
}
