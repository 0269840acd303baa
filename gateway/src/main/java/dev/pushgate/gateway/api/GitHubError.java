package dev.pushgate.gateway.api;

import dev.pushgate.gateway.ErrorAnswer;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** A refusal as GitHub writes its errors, so that gh and the SDKs print {@code message}. */
final class GitHubError {
  /** GitHub's shape, pointing at the boundary's documentation. */
  static final ErrorAnswer.Shape SHAPE = ErrorAnswer.github(ApiBoundary.DOCS);

  private GitHubError() {}

  static void write(Response response, Callback callback, int status, String message) {
    ErrorAnswer.write(response, callback, status, SHAPE, message);
  }
}
