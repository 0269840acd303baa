package dev.pushgate.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A request written byte for byte, as no HTTP client library would send it (a header Jetty's
 * parser refuses, an absolute URI), and the whole raw answer.
 */
public final class RawHttp {
  private RawHttp() {}

  /**
   * Sends {@code request} (ISO-8859-1, CRLFs included) to the loopback {@code port} and returns
   * everything the server answers until it closes the connection: ask for {@code Connection:
   * close}, or send a request the server answers by closing.
   */
  public static String exchange(int port, String request) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(30_000);
      s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      s.getOutputStream().flush();
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }

  /**
   * Reads a message's head off {@code in}, up to and with the blank line that ends it (what was
   * read, when the stream ends first), and not a byte more: the body, or the next message, stays
   * to be read.
   */
  public static String head(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        break;
      }
      head.append((char) b);
    }
    return head.toString();
  }
}
