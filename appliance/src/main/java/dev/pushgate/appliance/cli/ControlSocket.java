package dev.pushgate.appliance.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.appliance.DataDirectory;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.Transport;

/** The CLI's way to a running appliance: its control API on {@code DIR/control.sock}. */
final class ControlSocket implements AutoCloseable {
  /** An answer of the control API. */
  record Answer(int status, JsonNode body) {
    /** The answer's body, or an exception carrying the API's own error message. */
    JsonNode orThrow() {
      if (status / 100 != 2) {
        String error = body != null && body.hasNonNull("error") ? body.get("error").asText()
            : "the control API answered " + status;
        throw new IllegalStateException(error);
      }
      return body;
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  /**
   * The largest answer read: the audit's 10,000 rows at most take a few MiB; beyond this bound
   * the command says so instead of holding whatever the socket sends.
   */
  static final int MAX_ANSWER_BYTES = 64 << 20;

  private final HttpClient client = new HttpClient();
  private final Transport.TCPUnix transport;

  private ControlSocket(Path socket) throws Exception {
    this.transport = new Transport.TCPUnix(socket);
    client.start();
  }

  /**
   * Connects to the appliance of {@code dataDir}, or says how to start one. Refuses a data
   * directory or socket another user could have put there ({@link DataDirectory}).
   */
  static ControlSocket open(Path dataDir) throws Exception {
    Path dir = DataDirectory.existing(dataDir);
    if (!Files.exists(dir.resolve("control.sock"), LinkOption.NOFOLLOW_LINKS)) {
      throw new IllegalStateException("no appliance is running on " + dataDir
          + " (no control.sock); start one with: pushgate serve --data-dir " + dataDir);
    }
    return new ControlSocket(DataDirectory.socket(dir));
  }

  Answer get(String path) throws Exception {
    return send(HttpMethod.GET, path, null, 60);
  }

  Answer post(String path, String json) throws Exception {
    return send(HttpMethod.POST, path, json, 120);
  }

  Answer delete(String path) throws Exception {
    return send(HttpMethod.DELETE, path, null, 120);
  }

  /** A request for streaming answers (server-sent events). */
  Request stream(String path) {
    return client.newRequest("http://localhost" + path).transport(transport)
        .idleTimeout(0, TimeUnit.SECONDS);
  }

  private Answer send(HttpMethod method, String path, String body, long timeoutSeconds)
      throws Exception {
    Request req = client.newRequest("http://localhost" + path).method(method)
        .transport(transport).timeout(timeoutSeconds, TimeUnit.SECONDS);
    if (body != null) {
      req.body(new StringRequestContent("application/json", body));
    }
    ContentResponse r;
    try {
      r = new CompletableResponseListener(req, MAX_ANSWER_BYTES).send().get();
    } catch (java.util.concurrent.ExecutionException e) {
      // Jetty's words when the answer outgrows the listener's buffer.
      if (String.valueOf(e.getCause().getMessage()).startsWith("Buffering capacity")) {
        throw new IllegalStateException("the appliance's answer is larger than "
            + (MAX_ANSWER_BYTES >> 20) + " MiB; ask for less (for the audit: a smaller --limit)");
      }
      throw new IllegalStateException("the appliance does not answer on its control socket ("
          + e.getCause().getMessage() + "); is it running?");
    }
    String raw = r.getContentAsString();
    JsonNode json = null;
    if (!raw.isBlank()) {
      try {
        json = JSON.readTree(raw);
      } catch (Exception e) {
        json = null;
      }
    }
    return new Answer(r.getStatus(), json);
  }

  @Override
  public void close() throws Exception {
    client.stop();
  }
}
