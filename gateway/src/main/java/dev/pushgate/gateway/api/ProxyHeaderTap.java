package dev.pushgate.gateway.api;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.ProxyConnectionFactory;

/**
 * A boundary connection as accepted, keeping its first {@link #MAX} bytes as Jetty's PROXY
 * parser reads them, so that {@link dev.pushgate.types.BoundaryHandle#fromProxyHeader} judges
 * the header as it was sent: Jetty's parser keeps one value per TLV type and drops the rest
 * unseen. Everything else passes through (Jetty's own delegating end point, with no addresses
 * of its own).
 */
final class ProxyHeaderTap extends ProxyConnectionFactory.ProxyEndPoint {
  /** A run's proxy writes 74 bytes; a header longer than this names no run. */
  static final int MAX = 512;

  /** Null once read: a connection holds no copy of its header for its life. */
  private byte[] head = new byte[MAX];
  private int kept;

  ProxyHeaderTap(EndPoint accepted) {
    super(accepted, accepted.getRemoteSocketAddress(), accepted.getLocalSocketAddress());
  }

  @Override
  public synchronized int fill(ByteBuffer buffer) throws IOException {
    int from = buffer.limit(); // fill appends after the limit
    int n = super.fill(buffer);
    byte[] h = head;
    if (n > 0 && h != null && kept < MAX) {
      int take = Math.min(n, MAX - kept);
      buffer.duplicate().position(from).get(h, kept, take);
      kept += take;
    }
    return n;
  }

  /**
   * The connection's first bytes, as many as were kept, once: Jetty hands the connection on (on
   * the thread that read its header) once the header is parsed, and nothing is kept after.
   */
  synchronized byte[] head() {
    byte[] h = head;
    head = null;
    return h == null ? new byte[0] : java.util.Arrays.copyOf(h, kept);
  }
}
