package dev.pushgate.gateway.api;

import java.io.IOException;
import java.util.Optional;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.http.HttpHeader;

/**
 * An answer that ends at its head (RFC 9112 §6.3): a {@code 204}, a {@code 304}, or any answer to
 * a {@code HEAD}. The HTTP client reads no body after such a head, so bytes GitHub sends after it
 * would be read as the next answer on that connection, another call's (another run's, as the
 * connections are shared). Its connection is therefore closed once its head is in ({@link
 * AnswerOnArrival}). A {@code 304}'s or a {@code HEAD} answer's {@code Content-Length} and
 * {@code Transfer-Encoding} describe the body a {@code GET} would get, and pass on; a {@code
 * 204} that announces a body (RFC 9110 §8.6, RFC 9112 §6.1 forbid both) is no answer a client
 * can read, and the run gets a {@code 502} in GitHub's shape, not a Jetty {@code 500}.
 */
final class BodilessAnswer {
  private BodilessAnswer() {}

  /** Whether GitHub's answer of {@code status} to a {@code method} call ends at its head. */
  static boolean endsAtItsHead(String method, int status) {
    return status == 204 || status == 304 || method.equals("HEAD");
  }

  /**
   * What is wrong with a bodiless {@code answer}, in words for the run; empty when it is an
   * answer to pass on.
   */
  static Optional<String> announcedBody(Response answer) {
    if (answer.getStatus() != 204) {
      return Optional.empty();
    }
    long length = answer.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH);
    boolean chunked = answer.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
    if (length <= 0 && !chunked) {
      return Optional.empty();
    }
    return Optional.of("GitHub answered 204 with a body ("
        + (chunked ? "Transfer-Encoding" : "Content-Length " + length)
        + "), which a 204 cannot carry; pushgate passes on no answer a client cannot read");
  }

  /** Why the answer's connection was closed at its head; also what the log names. */
  static final class EndedAtItsHead extends IOException {
    private static final long serialVersionUID = 1L;

    EndedAtItsHead() {
      super("an answer that ends at its head", null);
    }
  }

  /** A 204 that announced a body: the appliance log's warning names this. */
  static final class BodyItsStatusForbids extends IOException {
    private static final long serialVersionUID = 1L;

    BodyItsStatusForbids() {
      super("a body its status forbids", null);
    }
  }
}
