package dev.pushgate.gateway;

import jakarta.servlet.ReadListener;
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
 * A git request handed on to JGit with a body the gateway reads first (bounded, recorded, timed):
 * how its body is decoded, and the request JGit then sees. One reading for fetches and pushes,
 * so that the body the gateway checks is the body JGit runs.
 */
final class HandedOn {
  private static final String CONTENT_ENCODING = "Content-Encoding";

  private HandedOn() {}

  /**
   * {@code req}'s body as decoded: plain, or inflated when it is gzip ({@code gzip} or {@code
   * x-gzip}, which JGit's servlet inflates too); any other encoding is refused (415) in words
   * that name {@code what} ({@code a push request}), since no reader here could see what it
   * says.
   */
  static InputStream decoded(HttpServletRequest req, String what) throws IOException {
    String encoding = req.getHeader(CONTENT_ENCODING);
    InputStream raw = req.getInputStream();
    if (encoding == null || encoding.isBlank()) {
      return raw;
    }
    String name = encoding.strip();
    if ("gzip".equalsIgnoreCase(name) || "x-gzip".equalsIgnoreCase(name)) {
      return new GZIPInputStream(raw);
    }
    throw new ServiceMayNotContinueException(
        Refusals.render("the gateway takes " + what + " plain or gzip-compressed only"), 415);
  }

  /** {@code req} with {@code body} in place of its own; its headers as sent. */
  static HttpServletRequest withBody(HttpServletRequest req, InputStream body) {
    ServletInputStream replaced = blocking(body);
    return new HttpServletRequestWrapper(req) {
      @Override
      public ServletInputStream getInputStream() {
        return replaced;
      }
    };
  }

  /**
   * {@code req} with {@code body}, already {@link #decoded}, in place of its own, and without
   * {@code Content-Encoding}: JGit must not inflate it again.
   */
  static HttpServletRequest withDecodedBody(HttpServletRequest req, InputStream body) {
    return without(withBody(req, body), CONTENT_ENCODING);
  }

  /**
   * A push's requests as JGit reads them: without {@code Accept-Encoding}. JGit buffers its
   * answer (the advertisement; git's report and the progress lines) and sends it at the close;
   * one over 256 bytes, to a client that accepts gzip (git always says it does), it first
   * gzips in a new {@code Deflater}, on the push's path, and git inflates it again, to save a
   * few hundred bytes on what is most often loopback (DESIGN §9). Sent as is, the answer is
   * what git reads.
   */
  static HttpServletRequest answeredAsIs(HttpServletRequest req) {
    return without(req, ACCEPT_ENCODING);
  }

  private static final String ACCEPT_ENCODING = "Accept-Encoding";

  /** {@code req} as if it had no {@code header}. */
  private static HttpServletRequest without(HttpServletRequest req, String header) {
    return new HttpServletRequestWrapper(req) {
      @Override
      public String getHeader(String name) {
        return header.equalsIgnoreCase(name) ? null : super.getHeader(name);
      }

      @Override
      public Enumeration<String> getHeaders(String name) {
        return header.equalsIgnoreCase(name)
            ? Collections.emptyEnumeration() : super.getHeaders(name);
      }
    };
  }

  /** {@code in} as a servlet body for blocking reads, as JGit reads it. */
  static ServletInputStream blocking(InputStream in) {
    return new ServletInputStream() {
      @Override
      public int read() throws IOException {
        return in.read();
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return in.read(b, off, len);
      }

      @Override
      public int available() throws IOException {
        return in.available();
      }

      @Override
      public boolean isFinished() {
        return false;
      }

      @Override
      public boolean isReady() {
        return true;
      }

      @Override
      public void setReadListener(ReadListener listener) {
        throw new UnsupportedOperationException("blocking reads only");
      }
    };
  }

  /** A body that shows each run of bytes read through it to {@link #onRead}. */
  abstract static class Tapped extends FilterInputStream {
    Tapped(InputStream in) {
      super(in);
    }

    /** {@code n} bytes, at {@code off} in {@code b}, were just read. */
    abstract void onRead(byte[] b, int off, int n) throws IOException;

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        onRead(new byte[] {(byte) b}, 0, 1);
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = in.read(b, off, len);
      if (n > 0) {
        onRead(b, off, n);
      }
      return n;
    }
  }
}
