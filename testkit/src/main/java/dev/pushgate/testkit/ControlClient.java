package dev.pushgate.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.Transport;

/** Talks to the appliance's control API over its Unix socket, as a launcher does. */
public final class ControlClient implements AutoCloseable {
  /** An answer: status and JSON body (null when the body is empty or not JSON). */
  public record Answer(int status, JsonNode body, String raw) {}

  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient client;
  private final Transport.TCPUnix transport;

  public ControlClient(Path socket) throws Exception {
    client = new HttpClient();
    client.start();
    transport = new Transport.TCPUnix(socket);
  }

  public Answer post(String path, String json) throws Exception {
    return send(HttpMethod.POST, path, json);
  }

  public Answer get(String path) throws Exception {
    return send(HttpMethod.GET, path, null);
  }

  public Answer delete(String path) throws Exception {
    return send(HttpMethod.DELETE, path, null);
  }

  private Answer send(HttpMethod method, String path, String body) throws Exception {
    var req = client.newRequest("http://localhost" + path).method(method)
        .transport(transport).timeout(120, TimeUnit.SECONDS);
    if (body != null) {
      req.body(new StringRequestContent("application/json", body));
    }
    ContentResponse r = req.send();
    String raw = r.getContentAsString();
    JsonNode json;
    try {
      json = raw.isBlank() ? null : JSON.readTree(raw);
    } catch (Exception e) {
      json = null;
    }
    return new Answer(r.getStatus(), json, raw);
  }

  @Override
  public void close() throws Exception {
    client.stop();
  }
}
