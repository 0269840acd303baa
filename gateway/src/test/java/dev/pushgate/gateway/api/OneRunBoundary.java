package dev.pushgate.gateway.api;

import dev.pushgate.types.BoundaryHandle;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

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

  @Override
  public void close() {
    run.close();
    listener.close();
  }
}
