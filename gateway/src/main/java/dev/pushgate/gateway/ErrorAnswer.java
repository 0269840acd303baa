package dev.pushgate.gateway;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The one way pushgate's HTTP surfaces answer an error: a status and one line of JSON in the
 * {@link Shape} the surface's clients read. The control API and the approvals page answer {@link
 * #PUSHGATE}, {@code {"error":"…"}}; the GitHub API boundary and the local forge answer as GitHub
 * does ({@link #github}), so that gh and the SDKs print the message. The message is words meant
 * for the client, never an exception's text (which can quote a header or a path).
 */
public final class ErrorAnswer {
  private static final String JSON = "application/json; charset=utf-8";

  /** The body of an error answer, as one JSON object. */
  @FunctionalInterface
  public interface Shape {
    String body(int status, String message);
  }

  /** pushgate's own: {@code {"error":"…"}}. */
  public static final Shape PUSHGATE = (status, message) -> "{\"error\":" + quote(message) + "}";

  private ErrorAnswer() {}

  /** GitHub's: {@code {"message":"…","documentation_url":"…"}}. */
  public static Shape github(String documentationUrl) {
    return (status, message) -> "{\"message\":" + quote(message) + ",\"documentation_url\":"
        + quote(documentationUrl) + "}";
  }

  /** Answers a Jetty request with the error, completing {@code callback}. */
  public static void write(Response response, Callback callback, int status, Shape shape,
      String message) {
    response.write(true, begin(response, status, shape, message), callback);
  }

  /**
   * Sets the error's status and content type on a Jetty {@code response} and returns its body,
   * for a caller that decides how the write completes (what it holds until the client reads it).
   */
  public static ByteBuffer begin(Response response, int status, Shape shape, String message) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, JSON);
    return ByteBuffer.wrap((shape.body(status, message) + "\n").getBytes(StandardCharsets.UTF_8));
  }

  /** Answers a servlet request with the error. */
  public static void write(HttpServletResponse response, int status, Shape shape, String message)
      throws IOException {
    response.setStatus(status);
    response.setContentType(JSON);
    response.getOutputStream().write((shape.body(status, message) + "\n")
        .getBytes(StandardCharsets.UTF_8));
  }

  /** {@code s} as a JSON string: quotes, backslashes and every control character escaped. */
  public static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
