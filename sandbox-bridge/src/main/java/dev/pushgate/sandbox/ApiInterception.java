package dev.pushgate.sandbox;

import dev.pushgate.types.BoundaryHandle;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;

/**
 * Which host names a run's egress proxy does not tunnel to the world but to the appliance's GitHub
 * API boundary, and where that boundary listens. Filled by the appliance (the boundary is the
 * gateway's, which this module may not depend on). A CONNECT to an intercepted name on port 443 is
 * admitted whatever the egress rules say (the boundary judges each request inside it) and never
 * reaches the real host. The boundary is one listener for every run: each tunnel to it starts
 * with a PROXY protocol header naming the run's {@code handle} ({@link BoundaryHandle}), which
 * picks the run's certificate and rules there.
 *
 * @param hosts the intercepted names, lower case (api.github.com, uploads.github.com, a GHES host)
 * @param boundary the boundary's TLS listener, on this host's loopback
 * @param handle the run's handle on that listener: a secret, never in {@link #toString()}
 */
public record ApiInterception(List<String> hosts, InetSocketAddress boundary, String handle) {
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
