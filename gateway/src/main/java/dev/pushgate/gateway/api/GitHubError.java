package dev.pushgate.gateway.api;

import dev.pushgate.gateway.ErrorAnswer;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** A refusal as GitHub writes its errors, so that gh and the SDKs print {@code message}. */
final class GitHubError {
  /** GitHub's shape, pointing at the boundary's documentation. */
  static final ErrorAnswer.Shape SHAPE = ErrorAnswer.github(ApiBoundary.DOCS);

  private GitHubError() {}

  /**
   * Answers {@code call} with the boundary's own error, held while the run has not read it as
   * any whole answer is ({@link ApiExchange#writeWhole}).
   */
  static void write(ApiExchange call, int status, String message) {
    call.writeWhole(ErrorAnswer.begin(call.response, status, SHAPE, message));
  }

  /**
   * Answers a request that belongs to no open run: nothing to count it against. Only a
   * connection whose run has just closed gets one ({@link CallsByRun}), and the run's close
   * closes its connections.
   */
  static void writeForNoRun(Response response, Callback callback, int status, String message) {
    ErrorAnswer.write(response, callback, status, SHAPE, message);
  }
}
