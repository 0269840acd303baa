package dev.pushgate.gateway;

import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collections;
import java.util.Enumeration;
import java.util.zip.GZIPInputStream;
import org.eclipse.jgit.transport.ServiceMayNotContinueException;

/**
 * Bounds a fetch request's body (its wants, haves and shallows) as decoded. JGit's upload-pack
 * keeps every line of it in memory and looks each one up, and JGit's servlet inflates a gzip body
 * without a bound: a few hundred KiB could stand for gigabytes. The body is inflated here instead,
 * counted, and past the bound the read fails with a message that git prints as {@code remote
 * error}; JGit sees a body without {@code Content-Encoding}.
 */
final class FetchRequestBound {
  private static final String CONTENT_ENCODING = "Content-Encoding";

  private FetchRequestBound() {}

  /** {@code req} whose body, inflated if it is gzip, fails past {@code maxBytes}. */
  static HttpServletRequest bound(HttpServletRequest req, long maxBytes) throws IOException {
    String encoding = req.getHeader(CONTENT_ENCODING);
    InputStream raw = req.getInputStream();
    InputStream decoded;
    if (encoding == null || encoding.isBlank()) {
      decoded = raw;
    } else if ("gzip".equalsIgnoreCase(encoding.strip())
        || "x-gzip".equalsIgnoreCase(encoding.strip())) {
      decoded = new GZIPInputStream(raw);
    } else {
      throw new ServiceMayNotContinueException(
          Refusals.render("the gateway takes a fetch request plain or gzip-compressed only"), 415);
    }
    ServletInputStream body = PackHeaderGuard.blocking(new Counted(decoded, maxBytes));
    return new HttpServletRequestWrapper(req) {
      @Override
      public ServletInputStream getInputStream() {
        return body;
      }

      @Override
      public String getHeader(String name) {
        return CONTENT_ENCODING.equalsIgnoreCase(name) ? null : super.getHeader(name);
      }

      @Override
      public Enumeration<String> getHeaders(String name) {
        return CONTENT_ENCODING.equalsIgnoreCase(name)
            ? Collections.emptyEnumeration() : super.getHeaders(name);
      }
    };
  }

  private static final class Counted extends FilterInputStream {
    private final long maxBytes;
    private long read;

    Counted(InputStream in, long maxBytes) {
      super(in);
      this.maxBytes = maxBytes;
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        count(1);
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = in.read(b, off, len);
      if (n > 0) {
        count(n);
      }
      return n;
    }

    private void count(long n) throws IOException {
      read += n;
      if (read > maxBytes) {
        throw new ServiceMayNotContinueException(Refusals.render("the fetch request is larger"
            + " than the gateway takes (" + (maxBytes >> 20) + " MiB as decoded)"), 413);
      }
    }
  }
}
