package dev.pushgate.appliance.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.appliance.DataDirectory;
import dev.pushgate.demo.DemoHost;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.Transport;

/** The CLI's way to a running appliance: its control API on {@code DIR/control.sock}. */
final class ControlSocket implements DemoHost.ControlApi, AutoCloseable {
  /** An answer of the control API; {@code orThrow} is {@link DemoHost.Answer}'s. */
  record Answer(int status, JsonNode body) implements DemoHost.Answer {}

  private static final ObjectMapper JSON = new ObjectMapper();
  /**
   * The largest answer read: the audit's 10,000 rows at most take a few MiB; beyond this bound
   * the command says so instead of holding whatever the socket sends.
   */
  static final int MAX_ANSWER_BYTES = 64 << 20;

  private final HttpClient client = new HttpClient();
  private final Transport.TCPUnix transport;

  private final Path socket;

  private ControlSocket(Path socket) throws Exception {
    this.socket = socket;
    this.transport = new Transport.TCPUnix(socket);
    client.start();
  }

  /**
   * Connects to the appliance of {@code dataDir}, or says how to start one. Refuses a data
   * directory or socket another user could have put there ({@link DataDirectory}).
   */
  static ControlSocket open(Path dataDir) throws Exception {
    Path dir = DataDirectory.existing(dataDir);
    Path socket = dir.resolve(DataDirectory.CONTROL_SOCKET);
    if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
      throw new IllegalStateException("no appliance is running on " + dataDir
          + " (no control.sock); start one with: pushgate serve --data-dir " + dataDir);
    }
    notSomeoneElses(socket);
    return new ControlSocket(DataDirectory.socket(dir));
  }

  /**
   * A socket that is there but not this user's, or no socket at all, is not an appliance that
   * stopped: say whose it is and what to do, rather than "is it running?".
   */
  private static void notSomeoneElses(Path socket) throws java.io.IOException {
    PosixFileAttributes a = Files.readAttributes(socket, PosixFileAttributes.class,
        LinkOption.NOFOLLOW_LINKS);
    int owner = (Integer) Files.getAttribute(socket, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    int self = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    if (owner != self) {
      String name = a.owner().getName();
      throw new IllegalStateException(socket + " belongs to user " + name + ", not to you (uid "
          + self + "): run as " + name + " (sudo -u " + name + " pushgate …) or pass --data-dir"
          + " with a data directory of your own");
    }
    if (!a.isOther() || a.isSymbolicLink()) {
      throw new IllegalStateException(socket + " is not a socket but a "
          + (a.isSymbolicLink() ? "symbolic link" : a.isDirectory() ? "directory" : "file")
          + ", so no appliance's: remove it and start the appliance, or pass --data-dir");
    }
  }

  @Override
  public Answer get(String path) throws Exception {
    return send(HttpMethod.GET, path, null, 60);
  }

  @Override
  public Answer post(String path, String json) throws Exception {
    return send(HttpMethod.POST, path, json, 120);
  }

  @Override
  public Answer delete(String path) throws Exception {
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
      String why = String.valueOf(e.getCause().getMessage());
      if (why.contains("Permission denied")) {
        throw new IllegalStateException("permission denied on the control socket " + socket
            + ": run as the user the appliance runs as, or pass --data-dir");
      }
      throw new IllegalStateException("the appliance does not answer on its control socket "
          + socket + " (" + Failure.message(e.getCause()) + "); is it running? A socket left by"
          + " one that stopped is replaced when it starts again");
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
