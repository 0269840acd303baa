package dev.pushgate.gateway.api;

import dev.pushgate.gateway.RunSlots;
import java.util.Optional;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Hands each call on the shared listener to its connection's run ({@link ApiCalls}), at most
 * {@link ApiBoundary#MAX_CALLS} of one run at once and {@link ApiBoundary#MAX_BUSY_CALLS} of every
 * run together, {@link ApiBoundary#BUSY_SHARE} of one run once half of those are taken: the
 * listener's threads are every run's. A call over it is answered 429 with {@code Retry-After}.
 */
final class CallsByRun extends Handler.Abstract {
  private final RunSlots calls;

  CallsByRun(RunSlots calls) {
    this.calls = calls;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    BoundaryRun run = RunTlsConnections.runOf(request);
    if (run == null || !run.isOpen()) {
      GitHubError.write(response, callback, 421,
          "pushgate: this connection belongs to no live run; open a new one through the run's"
              + " proxy");
      return true;
    }
    Optional<RunSlots.Slot> slot = calls.tryTake(run.runId());
    if (slot.isEmpty()) {
      response.getHeaders().put(HttpHeader.RETRY_AFTER, ApiBoundary.RETRY_AFTER_SECONDS);
      GitHubError.write(response, callback, 429, calls.busy(run.runId())
          ? "pushgate is busy with other runs' GitHub API calls (this run has "
              + calls.inFlight(run.runId()) + " in progress); retry after "
              + ApiBoundary.RETRY_AFTER_SECONDS + " s"
          : "pushgate: this run already has " + ApiBoundary.MAX_CALLS
              + " GitHub API calls in progress; retry when one has finished");
      return true;
    }
    try (RunSlots.Slot taken = slot.get()) {
      return run.calls().handle(request, response, callback);
    }
  }
}
