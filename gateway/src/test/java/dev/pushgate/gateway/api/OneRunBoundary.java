package dev.pushgate.gateway.api;

import dev.pushgate.types.BoundaryHandle;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/** The shared listener with one run open, and connections to it as that run's proxy makes them. */
final class OneRunBoundary implements AutoCloseable {
  final ApiBoundary listener;
  final BoundaryRun run;
  private final RunCa ca;

  private OneRunBoundary(ApiBoundary listener, BoundaryRun run, RunCa ca) {
    this.listener = listener;
    this.run = run;
    this.ca = ca;
  }

  static OneRunBoundary start(RunCa ca, ApiBoundary.RunApi run, ApiBoundary.Shared shared)
      throws IOException {
    ApiBoundary listener = ApiBoundary.start(shared);
    return new OneRunBoundary(listener, listener.open(ca, run), ca);
  }

  InetSocketAddress address() {
    return listener.address();
  }

  /** A connection that has named the run in its PROXY header, as the run's proxy opens one. */
  Socket connect() throws IOException {
    Socket s = new Socket(address().getAddress(), address().getPort());
    s.getOutputStream().write(BoundaryHandle.proxyHeader(run.handle()));
    s.getOutputStream().flush();
    return s;
  }

  /**
   * TLS over {@code plain} as a run's client speaks it: SNI {@code sni}, the host name checked,
   * trusting {@code ca} alone. Not yet handshaken.
   */
  static SSLSocket tlsOver(Socket plain, RunCa ca, String sni) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("run-ca", ca.certificate());
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, tmf.getTrustManagers(), null);
    SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket(plain, sni, plain.getPort(),
        true);
    SSLParameters p = s.getSSLParameters();
    p.setServerNames(List.of(new SNIHostName(sni)));
    p.setEndpointIdentificationAlgorithm("HTTPS");
    s.setSSLParameters(p);
    return s;
  }

  @Override
  public void close() {
    run.close();
    listener.close();
  }

  /** A call's answer as the run's client read it: status, head, body (dechunked), and all bytes. */
  record Answer(int status, String headers, String body, String raw) {}

  /** One HTTP/1.1 request over TLS, trusting the run CA alone and checking the host name. */
  Answer call(String method, String host, String target, String authorization, String body)
      throws Exception {
    return call(method, host, target, authorization, body, List.of());
  }

  /** {@link #call}, with {@code extraHeaders} ({@code "Name: value"}) among the request's. */
  Answer call(String method, String host, String target, String authorization, String body,
      List<String> extraHeaders) throws Exception {
    try (SSLSocket s = tlsOver(connect(), ca, host)) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      StringBuilder head = new StringBuilder(method + " " + target + " HTTP/1.1\r\nHost: " + host
          + "\r\nConnection: close\r\nContent-Length: " + bytes.length + "\r\n");
      for (String h : extraHeaders) {
        head.append(h).append("\r\n");
      }
      if (!authorization.isEmpty()) {
        head.append("Authorization: ").append(authorization).append("\r\n");
      }
      head.append("\r\n");
      OutputStream out = s.getOutputStream();
      out.write(head.toString().getBytes(StandardCharsets.UTF_8));
      try {
        out.write(bytes);
        out.flush();
      } catch (IOException e) {
        // the boundary may answer 413 and close before reading it all
      }
      InputStream in = s.getInputStream();
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      try {
        in.transferTo(all);
      } catch (IOException e) {
        // a reset after the answer
      }
      String raw = all.toString(StandardCharsets.UTF_8);
      int split = raw.indexOf("\r\n\r\n");
      String headers = raw.substring(0, split);
      String rest = raw.substring(split + 4);
      if (headers.toLowerCase().contains("transfer-encoding: chunked")) {
        rest = dechunk(rest);
      }
      int status = Integer.parseInt(headers.substring(9, 12));
      return new Answer(status, headers, rest, raw);
    }
  }

  private static String dechunk(String s) {
    StringBuilder b = new StringBuilder();
    int i = 0;
    while (true) {
      int eol = s.indexOf("\r\n", i);
      int n = Integer.parseInt(s.substring(i, eol).trim(), 16);
      if (n == 0) {
        return b.toString();
      }
      b.append(s, eol + 2, eol + 2 + n);
      i = eol + 2 + n + 2;
    }
  }
}
