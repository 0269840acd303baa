package dev.pushgate.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's fallback error page, as one fixed line per status. Jetty's own page writes the
 * exception's message, the servlet's name and the request's URI into its HTML, JSON or text
 * answer: a message can carry what the appliance read (a path, a token), and a URI is the
 * caller's own text, a token in it or terminal escapes for whoever prints the answer. This one
 * writes only the status ({@code pushgate: HTTP 500 Server Error; the appliance's log
 * says why}), and for a request Jetty refuses, the name of its violation when Jetty names it in
 * its own fixed words; what went wrong stays in the log. Only the fallback: where pushgate answers an
 * error itself (git's {@code ERR} lines, the APIs' JSON bodies) it writes its own words.
 */
public final class FixedErrorPages extends ErrorHandler {
  private static final HttpField TEXT =
      new HttpField(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");

  /**
   * What Jetty may say of a request it refuses: the descriptions of its own compliance
   * violations ({@code Ambiguous URI path separator}), fixed words that name what to change.
   * Any other reason, its parser's included, may quote the request, and is left out.
   */
  private static final Set<String> JETTYS_WORDS = Stream.concat(
      Arrays.stream(UriCompliance.Violation.values()).map(UriCompliance.Violation::getDescription),
      Arrays.stream(HttpCompliance.Violation.values()).map(HttpCompliance.Violation::getDescription))
      .collect(Collectors.toUnmodifiableSet());

  /**
   * A request refused while the server stops: a stopping server refuses what arrives on a
   * connection it still holds (Jetty's {@code GracefulHandler}), and no log line says why.
   */
  static final String STOPPING = "pushgate: HTTP 503 Service Unavailable: the appliance is"
      + " shutting down; nothing was done, retry once it is back\n";

  /** The whole answer for {@code status}: nothing of the request or the failure in it. */
  public static String text(int status) {
    String line = "pushgate: HTTP " + status + " " + HttpStatus.getMessage(status);
    return (status >= 500 ? line + "; the appliance's log says why" : line) + "\n";
  }

  /** {@link #text(int)}, naming the violation when {@code reason} is one of Jetty's own. */
  static String text(int status, String reason) {
    return reason != null && JETTYS_WORDS.contains(reason)
        ? "pushgate: HTTP " + status + " " + HttpStatus.getMessage(status) + ": " + reason + "\n"
        : text(status);
  }

  @Override
  public boolean errorPageForMethod(String method) {
    return true; // the same line for every method, not Jetty's choice of GET, POST and HEAD
  }

  @Override
  protected void generateResponse(Request request, Response response, int code, String message,
      Throwable cause, Callback callback) {
    String reason = cause instanceof HttpException ? message : null;
    boolean stopping = code == HttpStatus.SERVICE_UNAVAILABLE_503
        && request.getConnectionMetaData().getConnector().getServer().isStopping();
    byte[] body = (stopping ? STOPPING : text(code, reason)).getBytes(StandardCharsets.UTF_8);
    response.getHeaders().put(TEXT);
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
    response.write(true, ByteBuffer.wrap(body), callback);
  }

  /** A request Jetty could not parse: its reason only when it is one of Jetty's fixed words. */
  @Override
  public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
    fields.put(TEXT);
    return BufferUtil.toBuffer(text(status, reason), StandardCharsets.UTF_8);
  }
}
