package dev.pushgate.sandbox;

import dev.pushgate.types.BoundaryHandle;
import dev.pushgate.types.Secret;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;

/**
 * Which host names a run's egress proxy does not tunnel to the world but to the appliance's GitHub
 * API boundary, and where that boundary listens. Filled by the appliance (the boundary is the
 * gateway's, which this module may not depend on). A CONNECT to an intercepted name on port 443 is
 * admitted whatever the egress rules say (the boundary judges each request inside it) and never
 * reaches the real host. The boundary is one listener for every run: each tunnel to it starts
 * with a PROXY protocol header naming the run's {@code handle} ({@link BoundaryHandle}), which
 * picks the run's certificate and rules there.
 *
 * <p>The shared proxy of the runs used by hand is in the boundary's own process: there the
 * boundary takes the CONNECT's connection over ({@code takeOver}) rather than being tunnelled to.
 *
 * @param hosts the intercepted names, lower case (api.github.com, uploads.github.com, a GHES host)
 * @param boundary the boundary's TLS listener, on this host's loopback
 * @param handle the run's handle on that listener: a secret, never in {@link #toString()}
 * @param takeOver the boundary in this process, for the shared proxy; null when there is none
 * @param sharedProxy the run's login on the appliance's shared loopback proxy, which a launch
 *     without an OS sandbox gives its process rather than starting a proxy of its own; null when
 *     there is none
 */
public record ApiInterception(List<String> hosts, InetSocketAddress boundary, String handle,
    TakeOver takeOver, ProxyLogin sharedProxy) {
  /**
   * A run's login on the appliance's shared loopback proxy: {@code
   * http://<user>:<password>@127.0.0.1:<port>}. The password never in {@link #toString()}.
   */
  public record ProxyLogin(int port, String user, Secret password) {
    public ProxyLogin {
      if (port <= 0 || port > 65535 || user == null || user.isEmpty() || password == null) {
        throw new IllegalArgumentException("a proxy login has a port, a user and a password");
      }
    }
  }

  /**
   * The run's place on a boundary in the proxy's own process, which takes a connection over once
   * the proxy has answered its CONNECT: the run's TLS starts on the proxy's connection, with no
   * second socket and no relay between them.
   */
  @FunctionalInterface
  public interface TakeOver {
    /**
     * The run's TLS connection on {@code endPoint}, for the proxy to upgrade to after its 200;
     * null when the run takes no more connections now (it has ended, or holds its most).
     */
    Connection connection(EndPoint endPoint);
  }

  /** An interception through a tunnel to {@code boundary}, for a proxy in another process. */
  public ApiInterception(List<String> hosts, InetSocketAddress boundary, String handle) {
    this(hosts, boundary, handle, null, null);
  }

  public ApiInterception {
    if (hosts == null || hosts.isEmpty()) {
      throw new IllegalArgumentException("an interception names at least one host");
    }
    hosts = hosts.stream().map(dev.pushgate.types.HostNames::normalised).toList();
    Objects.requireNonNull(boundary, "boundary");
    if (handle == null || handle.isEmpty()) {
      throw new IllegalArgumentException("an interception names the run's handle on the boundary");
    }
  }

  /** What a tunnel to the boundary starts with: the PROXY header naming the run. */
  public byte[] proxyHeader() {
    return BoundaryHandle.proxyHeader(handle);
  }

  /** Where a CONNECT to {@code host}:{@code port} goes instead, or null when it is not ours. */
  public InetSocketAddress target(String host, int port) {
    if (host == null || port != 443) {
      return null;
    }
    // The boundary compares with the same function: what is intercepted is answered there.
    return hosts.contains(dev.pushgate.types.HostNames.normalised(host)) ? boundary : null;
  }

  /** Never the handle. */
  @Override
  public String toString() {
    return "ApiInterception[hosts=" + hosts + ", boundary=" + boundary + "]";
  }
}
