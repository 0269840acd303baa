package dev.pushgate.appliance.control;

import dev.pushgate.appliance.runs.RunRequestException;
import dev.pushgate.appliance.runs.Runs;
import dev.pushgate.broker.BrokerException;
import dev.pushgate.gateway.RunContext;
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

  private final Runs runs;

  public RunApi(Runs runs) {
    this.runs = runs;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    Optional<RunContext> run = bearer(request).flatMap(runs::authenticate);
    if (run.isEmpty()) {
      return text(response, callback, 401,
          "Authentication failed: the run credential is unknown, expired or revoked.\n");
    }
    String path = request.getHttpURI().getPath();
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
