package dev.pushgate.gateway.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * GitHub's download links carry a credential of their own: a private repository's
 * tarball or zipball redirect ({@code Location: https://codeload.github.com/…?token=…}, good for
 * five minutes), a contents answer's {@code download_url} ({@code
 * https://raw.githubusercontent.com/…?token=…}), the signed redirects of artifacts, logs and
 * release assets. Whoever holds such a link downloads with it, from anywhere, without the
 * sentinel: a credential leaving the boundary. The boundary strips them from what the run reads,
 * so the run's only GitHub credential stays its sentinel; the same bytes are read through the
 * boundary (the contents API with {@code Accept: application/vnd.github.raw}) or the gateway
 * ({@code git clone}, {@code git archive} of a clone).
 */
final class DownloadLinks {
  private DownloadLinks() {}

  /**
   * A redirect's {@code Location} as the run may see it: a link off the host the call went to
   * loses its whole query (where the signature or token is); a {@code token} parameter is removed
   * from any link.
   */
  static String location(String value, String callHost) {
    try {
      URI u = new URI(value);
      if (u.getHost() != null && !u.getHost().equalsIgnoreCase(callHost)
          && u.getRawQuery() != null) {
        return u.getScheme() + "://" + u.getRawAuthority()
            + (u.getRawPath() == null ? "" : u.getRawPath())
            + (u.getRawFragment() == null ? "" : "#" + u.getRawFragment());
      }
    } catch (URISyntaxException e) {
      // not a URI: stripped as text below
    }
    return new String(strip(value.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
        java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * The body of an answer as the run may read it: a JSON answer of a contents or readme route,
   * where GitHub puts {@code download_url}, without any {@code token} parameter of its links;
   * any other answer as it came (a file's raw bytes are never rewritten).
   */
  static InputStream body(String path, String contentType, InputStream in) {
    return rewrites(path, contentType) ? new TokenParameters(in) : in;
  }

  /** Whether {@link #body} rewrites such an answer: its length is then not upstream's. */
  static boolean rewrites(String path, String contentType) {
    return carriesLinks(path) && contentType != null
        && contentType.toLowerCase(Locale.ROOT).contains("json");
  }

  /**
   * Whether answers of {@code path} may carry download links in their body (contents and readme
   * routes). Such a call is sent upstream without the client's {@code Accept-Encoding}: a
   * compressed answer could not be read for its links.
   */
  static boolean carriesLinks(String path) {
    String p = path == null ? "" : path;
    return p.contains("/contents/") || p.endsWith("/contents") || p.contains("/readme");
  }

  private static byte[] strip(byte[] text) {
    try (InputStream in = new TokenParameters(new java.io.ByteArrayInputStream(text))) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * A stream without the {@code token=…} parameters of the links in it: {@code ?token=X} and
   * {@code &token=X} go, up to the end of the value ({@code "}, {@code &}, {@code #}, a quote, a
   * backslash or white space); {@code ?token=X&a=b} becomes {@code ?a=b}.
   */
  private static final class TokenParameters extends InputStream {
    private static final byte[] NAME = "token=".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private final PushbackInputStream in;

    TokenParameters(InputStream in) {
      this.in = new PushbackInputStream(new java.io.BufferedInputStream(in), NAME.length + 1);
    }

    @Override
    public int read() throws IOException {
      for (;;) {
        int b = in.read();
        if (b != '?' && b != '&') {
          return b;
        }
        byte[] ahead = new byte[NAME.length];
        int n = in.readNBytes(ahead, 0, ahead.length);
        if (n < NAME.length || !java.util.Arrays.equals(ahead, NAME)) {
          in.unread(ahead, 0, n);
          return b;
        }
        int end;
        do {
          end = in.read();
        } while (end != -1 && !endsValue(end));
        if (end == '&') {
          return b; // the next parameter follows the separator this one had
        }
        if (end != -1) {
          in.unread(end);
        }
        // the parameter and its separator are gone; read on
      }
    }

    @Override
    public int read(byte[] buf, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      int i = 0;
      while (i < len) {
        int b = read();
        if (b == -1) {
          return i == 0 ? -1 : i;
        }
        buf[off + i++] = (byte) b;
        if (in.available() == 0) {
          break; // hand over what is here rather than wait for more
        }
      }
      return i;
    }

    private static boolean endsValue(int b) {
      return b == '"' || b == '&' || b == '#' || b == '\'' || b == '\\' || b == '<'
          || b == ' ' || b == '\t' || b == '\r' || b == '\n';
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
