package dev.pushgate.gateway.api;

import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.eclipse.jetty.io.EndPoint;

/**
 * One run's place on the shared {@link ApiBoundary} listener: its handle, the TLS its
 * connections are shown (its own CA's leaf), its calls ({@link ApiCalls}: its rules, sentinel,
 * tokens and body budget) and its connections, at most {@link ApiBoundary#MAX_CONNECTIONS}.
 * Costs no thread and no descriptor while the run is idle; its TLS context is made at its first
 * connection.
 */
public final class BoundaryRun implements AutoCloseable {
  private final String handle;
  private final InetSocketAddress address;
  private final RunCa ca;
  private final ApiCalls calls;
  private final Consumer<String> onClose;
  private final Set<EndPoint> connections = new HashSet<>();
  private volatile SSLContext tls;
  private boolean closed;

  BoundaryRun(String handle, InetSocketAddress address, RunCa ca, ApiCalls calls,
      Consumer<String> onClose) {
    this.handle = handle;
    this.address = address;
    this.ca = ca;
    this.calls = calls;
    this.onClose = onClose;
  }

  /**
   * What the run's proxies write in each connection's PROXY header; as secret as the run's
   * sentinel: it is never logged, and a run's process never needs it.
   */
  public String handle() {
    return handle;
  }

  /** Where the run's proxies connect: the listener every run shares. */
  public InetSocketAddress address() {
    return address;
  }

  String runId() {
    return calls.runId();
  }

  ApiCalls calls() {
    return calls;
  }

  /** Counts a connection of the run; false when the run has ended or holds its most already. */
  synchronized boolean admit(EndPoint connection) {
    if (!admits()) {
      return false;
    }
    connections.add(connection);
    return true;
  }

  /** Whether {@link #admit} would count a connection now. */
  synchronized boolean admits() {
    return !closed && connections.size() < ApiBoundary.MAX_CONNECTIONS;
  }

  synchronized void release(EndPoint connection) {
    connections.remove(connection);
  }

  /** The run's connections open now. */
  synchronized int connections() {
    return connections.size();
  }

  synchronized boolean isOpen() {
    return !closed;
  }

  /** A server-side TLS engine showing the run CA's leaf, for one connection. */
  SSLEngine newEngine() {
    SSLContext context = tls;
    if (context == null) {
      context = ca.serverContext();
      tls = context;
    }
    SSLEngine engine = context.createSSLEngine();
    engine.setUseClientMode(false);
    return engine;
  }

  /** The run ended: the listener takes none of its connections from now on, and drops those open. */
  @Override
  public void close() {
    onClose.accept(handle);
    List<EndPoint> open;
    synchronized (this) {
      closed = true;
      open = List.copyOf(connections);
      connections.clear();
    }
    for (EndPoint e : open) {
      e.close();
    }
  }

  /** Never the handle. */
  @Override
  public String toString() {
    return "BoundaryRun[" + runId() + "]";
  }
}
