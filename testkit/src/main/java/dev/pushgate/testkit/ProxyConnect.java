package dev.pushgate.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** A raw {@code CONNECT} through a loopback proxy, with or without a login, as clients send it. */
public final class ProxyConnect {
  private ProxyConnect() {}

  /**
   * Sends {@code CONNECT api.github.com:443} to the proxy on {@code port}, with a Basic
   * {@code Proxy-Authorization} for {@code login} ({@code user:password}; none when null), and
   * returns the start of the proxy's answer: its status line and headers, and for a refusal its
   * body.
   */
  public static String toApi(int port, String login) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      return connect(s, login);
    }
  }

  /**
   * A connection through the proxy on {@code port} that {@code CONNECT api.github.com:443} was
   * answered 200 on, for the caller's TLS; fails with the proxy's answer otherwise.
   */
  public static Socket openToApi(int port, String login) throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
    String answer = connect(s, login);
    if (!answer.startsWith("HTTP/1.1 200") || !answer.endsWith("\r\n\r\n")) {
      s.close();
      throw new IOException("the proxy did not open the tunnel: " + answer);
    }
    return s;
  }

  private static String connect(Socket s, String login) throws IOException {
    s.setSoTimeout(30_000);
    String auth = login == null ? "" : "Proxy-Authorization: Basic " + Base64.getEncoder()
        .encodeToString(login.getBytes(StandardCharsets.UTF_8)) + "\r\n";
    s.getOutputStream().write(("CONNECT api.github.com:443 HTTP/1.1\r\n"
        + "Host: api.github.com:443\r\n" + auth + "\r\n").getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    // One answer, read to its end when it is a 200 (nothing may follow it but TLS), else its start.
    StringBuilder head = new StringBuilder();
    byte[] b = new byte[2048];
    int n = s.getInputStream().read(b);
    while (n > 0) {
      head.append(new String(b, 0, n, StandardCharsets.ISO_8859_1));
      if (!head.toString().startsWith("HTTP/1.1 200") || head.indexOf("\r\n\r\n") >= 0) {
        break;
      }
      n = s.getInputStream().read(b);
    }
    return head.toString();
  }
}
