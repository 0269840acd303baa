package dev.pushgate.gateway;

import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import org.eclipse.jgit.transport.ServiceMayNotContinueException;

/**
 * Bounds a fetch request's body (its wants, haves and shallows) as decoded. JGit's upload-pack
 * keeps every line of it in memory and looks each one up, and JGit's servlet inflates a gzip body
 * without a bound: a few hundred KiB could stand for gigabytes. The body is inflated here instead
 * ({@link HandedOn#decoded}), counted, and past the bound the read fails with a message that git
 * prints as {@code remote error}; JGit sees a body without {@code Content-Encoding}.
 */
final class FetchRequestBound {
  private FetchRequestBound() {}

  /** {@code req} whose body, inflated if it is gzip, fails past {@code maxBytes}. */
  static HttpServletRequest bound(HttpServletRequest req, long maxBytes) throws IOException {
    InputStream decoded = HandedOn.decoded(req, "a fetch request");
    return HandedOn.withDecodedBody(req, new Counted(decoded, maxBytes));
  }

  private static final class Counted extends HandedOn.Tapped {
    private final long maxBytes;
    private long read;

    Counted(InputStream in, long maxBytes) {
      super(in);
      this.maxBytes = maxBytes;
    }

    @Override
    void onRead(byte[] b, int off, int n) throws IOException {
      read += n;
      if (read > maxBytes) {
        throw new ServiceMayNotContinueException(Refusals.render("the fetch request is larger"
            + " than the gateway takes (" + (maxBytes >> 20) + " MiB as decoded)"), 413);
      }
    }
  }
}
