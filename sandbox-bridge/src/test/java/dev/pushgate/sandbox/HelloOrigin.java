package dev.pushgate.sandbox;

import com.sun.net.httpserver.HttpServer;
import dev.pushgate.testkit.RawHttp;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A host on loopback the proxies' tests forward to: it answers every request "hello". */
final class HelloOrigin {
  private HelloOrigin() {}

  /** Started on an ephemeral loopback port; the caller stops it. */
  static HttpServer start() throws IOException {
    HttpServer origin =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
    origin.createContext("/", exchange -> {
      byte[] body = "hello\n".getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    origin.start();
    return origin;
  }

  /** One answer read off {@code in}: its head, and as many body bytes as its length says. */
  static String answer(InputStream in) throws IOException {
    String head = RawHttp.head(in);
    Matcher length = Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
    int body = length.find() ? Integer.parseInt(length.group(1)) : 0;
    return head + new String(in.readNBytes(body), StandardCharsets.UTF_8);
  }
}
