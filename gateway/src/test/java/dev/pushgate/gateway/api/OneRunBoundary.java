package dev.pushgate.gateway.api;

import dev.pushgate.types.BoundaryHandle;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
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

  private OneRunBoundary(ApiBoundary listener, BoundaryRun run) {
    this.listener = listener;
    this.run = run;
  }

  static OneRunBoundary start(RunCa ca, ApiBoundary.RunApi run, ApiBoundary.Shared shared)
      throws IOException {
    ApiBoundary listener = ApiBoundary.start(shared);
    return new OneRunBoundary(listener, listener.open(ca, run));
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
}
