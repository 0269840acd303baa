package dev.pushgate.gateway.api;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Hands each call on the shared listener to its connection's run ({@link ApiCalls}); a
 * connection whose run has closed is answered 421. How many calls of a run, and of every run,
 * are worked on at once is the calls' own step ({@link CallSlots}), once their bodies are in.
 */
final class CallsByRun extends Handler.Abstract {
  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    BoundaryRun run = RunTlsConnections.runOf(request);
    if (run == null || !run.isOpen()) {
      GitHubError.writeForNoRun(response, callback, 421,
          "pushgate: this connection belongs to no live run; open a new one through the run's"
              + " proxy");
      return true;
    }
    return run.calls().handle(request, response, callback);
  }
}
