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
      s.setSoTimeout(30_000);
      String auth = login == null ? "" : "Proxy-Authorization: Basic " + Base64.getEncoder()
          .encodeToString(login.getBytes(StandardCharsets.UTF_8)) + "\r\n";
      s.getOutputStream().write(("CONNECT api.github.com:443 HTTP/1.1\r\n"
          + "Host: api.github.com:443\r\n" + auth + "\r\n").getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      byte[] b = new byte[2048];
      int n = s.getInputStream().read(b);
      return n <= 0 ? "" : new String(b, 0, n, StandardCharsets.ISO_8859_1);
    }
  }
}
