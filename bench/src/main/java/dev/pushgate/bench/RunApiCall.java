package dev.pushgate.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * One GitHub API call as a run's program makes it without an OS sandbox: {@code CONNECT
 * api.github.com:443} to the run's loopback proxy ({@code HTTPS_PROXY}), TLS trusting the run's
 * bundle ({@code SSL_CERT_FILE}), the run's sentinel as its token; the run's boundary judges it
 * and forwards it with the real token. Blocking, one connection, so that a crowd of calls costs
 * the bench a thread each and nothing more. The proxy URL's login (the run's, on the shared
 * proxy of the runs without an OS sandbox) goes on the {@code CONNECT}.
 */
record RunApiCall(InetSocketAddress proxy, String proxyLogin, SSLContext tls, String token) {
  /** From a run's environment as {@code POST /v1/runs} answers it. */
  static RunApiCall of(Map<String, String> env) throws Exception {
    String proxyUrl = env.getOrDefault("HTTPS_PROXY", env.get("https_proxy"));
    if (proxyUrl == null) {
      throw new IllegalStateException("the run has no HTTPS_PROXY: is the API boundary on?");
    }
    URI u = URI.create(proxyUrl);
    SSLContext tls = ApiBoundaryClient.trusting(Path.of(env.get("SSL_CERT_FILE")));
    return new RunApiCall(new InetSocketAddress(u.getHost(), u.getPort()),
        ApiBoundaryClient.login(u), tls, env.get("GH_TOKEN"));
  }

  /** {@code GET path} on api.github.com; the status, or -1 with no answer within {@code ms}. */
  int get(String path, int ms) {
    try (Socket raw = new Socket()) {
      raw.connect(proxy, ms);
      raw.setSoTimeout(ms);
      OutputStream out = raw.getOutputStream();
      out.write(("CONNECT api.github.com:443 HTTP/1.1\r\nHost: api.github.com:443\r\n"
          + (proxyLogin == null ? "" : "Proxy-Authorization: " + proxyLogin + "\r\n") + "\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String connected = headLine(raw.getInputStream());
      if (connected == null || !connected.matches("HTTP/1\\.[01] 200.*")) {
        return -1;
      }
      try (SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket(raw, "api.github.com",
          443, false)) {
        s.startHandshake();
        OutputStream o = s.getOutputStream();
        o.write(("GET " + path + " HTTP/1.1\r\nHost: api.github.com\r\nAuthorization: Bearer "
            + token + "\r\nUser-Agent: pushgate-crowd-bench\r\nAccept: application/json\r\n"
            + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        o.flush();
        BufferedReader r = new BufferedReader(
            new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
        String status = r.readLine();
        while (r.read() >= 0) {
          // the body, read to its end so that the boundary's answer completes
        }
        return status == null ? -1 : Integer.parseInt(status.split(" ")[1]);
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** The proxy's status line and headers, up to the blank line; the status line. */
  private static String headLine(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    int c;
    while ((c = in.read()) >= 0) {
      head.append((char) c);
      if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
        break;
      }
    }
    int end = head.indexOf("\r\n");
    return end < 0 ? null : head.substring(0, end);
  }
}
