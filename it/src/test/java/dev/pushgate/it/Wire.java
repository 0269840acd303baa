package dev.pushgate.it;

import dev.pushgate.testkit.RunningAppliance;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 written by hand, one request per connection, for requests a well-behaved client
 * refuses to send: raw backslashes and NULs in paths, bytes that are not UTF-8, bodies that lie.
 */
final class Wire {
  /** What came back: the status and the body as ISO-8859-1 (every byte one char). */
  record Answer(int status, Map<String, String> headers, String body) {
    @Override
    public String toString() {
      return status + " " + body;
    }
  }

  static final String RECEIVE_PACK_REQUEST = "application/x-git-receive-pack-request";

  private Wire() {}

  /** A request to the appliance's loopback port with the run credential as Bearer. */
  static Answer tcp(int port, String method, String path, String credential, String contentType,
      byte[] body) throws IOException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(180_000);
      return exchange(s.getInputStream(), s.getOutputStream(), method, path, bearer(credential),
          contentType, body);
    }
  }

  /** A request to the appliance's loopback port with {@code token} as Basic, as git sends it. */
  static Answer basic(int port, String method, String path, String token, String contentType,
      byte[] body) throws IOException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(180_000);
      return exchange(s.getInputStream(), s.getOutputStream(), method, path,
          basicAuthorization(token), contentType, body);
    }
  }

  /** A request over a Unix socket with {@code token} as Basic, as git sends it. */
  static Answer unixBasic(Path socket, String method, String path, String token,
      String contentType, byte[] body) throws IOException {
    return overUnixSocket(socket, ch -> exchange(Channels.newInputStream(ch),
        Channels.newOutputStream(ch), method, path, basicAuthorization(token), contentType, body));
  }

  private static String basicAuthorization(String token) {
    return token == null ? null : "Basic " + java.util.Base64.getEncoder().encodeToString(
        ("x-access-token:" + token).getBytes(StandardCharsets.UTF_8));
  }

  static Answer post(RunningAppliance app, String path, String credential, byte[] body)
      throws IOException {
    return tcp(app.port(), "POST", path, credential, RECEIVE_PACK_REQUEST, body);
  }

  static Answer get(RunningAppliance app, String path, String credential) throws IOException {
    return tcp(app.port(), "GET", path, credential, null, null);
  }

  /** A request to the control API over its Unix socket. */
  static Answer unix(Path socket, String method, String path, byte[] body) throws IOException {
    return unix(socket, method, path, null, body);
  }

  /** A request over a Unix socket, with {@code credential} as Bearer when not null. */
  static Answer unix(Path socket, String method, String path, String credential, byte[] body)
      throws IOException {
    return overUnixSocket(socket, ch -> exchangeOn(ch, method, path, credential, body));
  }

  /** One exchange on an open channel. */
  private interface ChannelExchange {
    Answer on(SocketChannel ch) throws IOException;
  }

  /** Runs {@code exchange} on a new connection to {@code socket}. */
  private static Answer overUnixSocket(Path socket, ChannelExchange exchange) throws IOException {
    try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
      // A Unix socket channel has no read timeout: close it if the answer never comes.
      java.util.concurrent.ScheduledFuture<?> watchdog = WATCHDOG.schedule(() -> {
        try {
          ch.close();
        } catch (IOException ignored) {
          // closing is all we wanted
        }
      }, 60, java.util.concurrent.TimeUnit.SECONDS);
      try {
        return exchange.on(ch);
      } finally {
        watchdog.cancel(false);
      }
    }
  }

  private static final java.util.concurrent.ScheduledExecutorService WATCHDOG =
      java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "wire-watchdog");
        t.setDaemon(true);
        return t;
      });

  private static Answer exchangeOn(SocketChannel ch, String method, String path,
      String credential, byte[] body) throws IOException {
    {
      return exchange(Channels.newInputStream(ch), new OutputStream() {
        @Override
        public void write(int b) throws IOException {
          write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          ByteBuffer buf = ByteBuffer.wrap(b, off, len);
          while (buf.hasRemaining()) {
            ch.write(buf);
          }
        }
      }, method, path, bearer(credential), body == null ? null : "application/json", body);
    }
  }

  private static String bearer(String credential) {
    return credential == null ? null : "Bearer " + credential;
  }

  private static Answer exchange(InputStream in, OutputStream out, String method, String path,
      String authorization, String contentType, byte[] body) throws IOException {
    StringBuilder head = new StringBuilder()
        .append(method).append(' ').append(path).append(" HTTP/1.1\r\n")
        .append("Host: 127.0.0.1\r\nConnection: close\r\n");
    if (authorization != null) {
      head.append("Authorization: ").append(authorization).append("\r\n");
    }
    if (contentType != null) {
      head.append("Content-Type: ").append(contentType).append("\r\n");
    }
    if (body != null) {
      head.append("Content-Length: ").append(body.length).append("\r\n");
    }
    head.append("\r\n");
    out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
    try {
      if (body != null) {
        out.write(body);
      }
      out.flush();
    } catch (IOException e) {
      // The server may answer and close before it read everything (a body too large): read
      // what it said.
    }
    return parse(readAll(in));
  }

  private static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    byte[] buf = new byte[65536];
    try {
      for (int n; (n = in.read(buf)) > 0; ) {
        all.write(buf, 0, n);
        if (complete(all.toByteArray())) {
          break; // framed by Content-Length or chunks: no need to wait for the close
        }
      }
    } catch (IOException e) {
      if (all.size() == 0) {
        throw e;
      }
    }
    return all.toByteArray();
  }

  /** A whole HTTP answer: headers, and the body its Content-Length or last chunk ends. */
  private static boolean complete(byte[] raw) {
    String text = new String(raw, StandardCharsets.ISO_8859_1);
    int end = text.indexOf("\r\n\r\n");
    if (end < 0) {
      return false;
    }
    String head = text.substring(0, end).toLowerCase(Locale.ROOT);
    java.util.regex.Matcher length =
        java.util.regex.Pattern.compile("\r\ncontent-length: *(\\d+)").matcher(head);
    if (length.find()) {
      return text.length() - end - 4 >= Integer.parseInt(length.group(1));
    }
    if (head.contains("\r\ntransfer-encoding: chunked")) {
      return text.endsWith("\r\n0\r\n\r\n") || text.endsWith("\r\n\r\n0\r\n\r\n");
    }
    return false;
  }

  static Answer parse(byte[] raw) throws IOException {
    String text = new String(raw, StandardCharsets.ISO_8859_1);
    int end = text.indexOf("\r\n\r\n");
    if (!text.startsWith("HTTP/1.1 ") || end < 0) {
      throw new IOException("not an HTTP answer: " + text);
    }
    String[] lines = text.substring(0, end).split("\r\n");
    int status = Integer.parseInt(lines[0].substring(9, 12));
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      headers.put(lines[i].substring(0, colon).toLowerCase(Locale.ROOT),
          lines[i].substring(colon + 1).strip());
    }
    String body = text.substring(end + 4);
    if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      body = dechunk(body);
    }
    return new Answer(status, headers, body);
  }

  private static String dechunk(String chunked) {
    StringBuilder out = new StringBuilder();
    int at = 0;
    while (at < chunked.length()) {
      int eol = chunked.indexOf("\r\n", at);
      int size = Integer.parseInt(chunked.substring(at, eol).split(";")[0].strip(), 16);
      if (size == 0) {
        break;
      }
      out.append(chunked, eol + 2, eol + 2 + size);
      at = eol + 2 + size + 2;
    }
    return out.toString();
  }
}
