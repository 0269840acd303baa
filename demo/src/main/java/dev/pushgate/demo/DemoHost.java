package dev.pushgate.demo;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * The demo's port: what it needs of the appliance it tells about. The demo knows nothing of the
 * appliance's classes; the appliance's {@code pushgate demo} command fills this.
 */
public interface DemoHost {
  /**
   * Starts an appliance with its local forge on {@code dataDir}, on {@code port} of 127.0.0.1
   * (0: a free one), printing its startup lines to {@code startup}.
   */
  Running start(Path dataDir, int port, PrintStream startup) throws Exception;

  /** Whether runs get their GitHub API boundary (a sentinel {@code GH_TOKEN}, no real token). */
  boolean githubApiBoundary();

  /** A failure as an operator reads it: plain words, redacted, no class name or stack trace. */
  String failure(Throwable e);

  /** A started appliance: its port and its control API. */
  interface Running extends AutoCloseable {
    int port();

    /** The control API on the data directory's socket, as the CLI reaches it. */
    ControlApi control();
  }

  /** The control API's requests the demo makes. */
  interface ControlApi {
    Answer get(String path) throws Exception;

    Answer post(String path, String body) throws Exception;

    Answer delete(String path) throws Exception;
  }

  /** An answer of the control API (the CLI's {@code ControlSocket.Answer} is one). */
  interface Answer {
    int status();

    /** The answer's JSON, or null when it had none. */
    JsonNode body();

    /** The answer's body, or an exception carrying the API's own error message. */
    default JsonNode orThrow() {
      if (status() / 100 != 2) {
        String error = body() != null && body().hasNonNull("error") ? body().get("error").asText()
            : "the control API answered " + status();
        throw new IllegalStateException(error);
      }
      return body();
    }
  }
}
