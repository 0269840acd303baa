package dev.pushgate.appliance.web;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * HTTP/1.1 written by hand, so that a test says exactly which Host, Origin and Cookie headers go
 * out (Java's and Jetty's clients set some of them themselves).
 */
final class RawHttp {
  private RawHttp() {}

  record Reply(int status, List<String[]> headers, String body) {
    String header(String name) {
      return headers.stream().filter(h -> h[0].equalsIgnoreCase(name)).map(h -> h[1])
          .findFirst().orElse(null);
    }

    List<String> all(String name) {
      return headers.stream().filter(h -> h[0].equalsIgnoreCase(name)).map(h -> h[1]).toList();
    }
  }

  /** {@code head}: the request line and headers, one a line, without Connection or length. */
  static Reply tcp(int port, String head, String body) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
      s.setSoTimeout(20_000);
      return exchange(s.getInputStream(), s.getOutputStream(), head, body);
    }
  }

  static Reply unix(Path socket, String head, String body) throws IOException {
    try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
      return exchange(Channels.newInputStream(ch), Channels.newOutputStream(ch), head, body);
    }
  }

  private static Reply exchange(InputStream in, OutputStream out, String head, String body)
      throws IOException {
    byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    String request = head.strip().replace("\n", "\r\n") + "\r\nConnection: close\r\n"
        + (body == null ? "" : "Content-Length: " + b.length + "\r\n") + "\r\n";
    // one write: a server that answers on the head alone may close before a second one
    ByteArrayOutputStream whole = new ByteArrayOutputStream();
    whole.write(request.getBytes(StandardCharsets.UTF_8));
    whole.write(b);
    out.write(whole.toByteArray());
    out.flush();
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    in.transferTo(all);
    String text = all.toString(StandardCharsets.UTF_8);
    int end = text.indexOf("\r\n\r\n");
    String[] lines = text.substring(0, end).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    List<String[]> headers = new ArrayList<>();
    boolean chunked = false;
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      String name = lines[i].substring(0, colon).strip();
      String value = lines[i].substring(colon + 1).strip();
      headers.add(new String[] {name, value});
      chunked |= name.equalsIgnoreCase("Transfer-Encoding")
          && value.toLowerCase(Locale.ROOT).contains("chunked");
    }
    String rest = text.substring(end + 4);
    return new Reply(status, headers, chunked ? unchunk(rest) : rest);
  }

  private static String unchunk(String s) {
    StringBuilder out = new StringBuilder();
    int i = 0;
    while (i < s.length()) {
      int eol = s.indexOf("\r\n", i);
      if (eol < 0) {
        break;
      }
      int n = Integer.parseInt(s.substring(i, eol).split(";")[0].strip(), 16);
      if (n == 0) {
        break;
      }
      // sizes count bytes; the bodies here are ASCII or close to it, good enough for a test
      byte[] rest = s.substring(eol + 2).getBytes(StandardCharsets.UTF_8);
      String chunk = new String(rest, 0, Math.min(n, rest.length), StandardCharsets.UTF_8);
      out.append(chunk);
      i = eol + 2 + chunk.length() + 2;
    }
    return out.toString();
  }

}
