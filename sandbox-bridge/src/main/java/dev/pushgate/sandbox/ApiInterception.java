package dev.pushgate.sandbox;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;

/**
 * Which host names a run's egress proxy does not tunnel to the world but to the appliance's GitHub
 * API boundary, and where that boundary listens. Filled by the appliance (the boundary is the
 * gateway's, which this module may not depend on). A CONNECT to an intercepted name on port 443 is
 * admitted whatever the egress rules say (the boundary judges each request inside it) and never
 * reaches the real host.
 *
 * @param hosts the intercepted names, lower case (api.github.com, uploads.github.com, a GHES host)
 * @param boundary the boundary's TLS listener, on this host's loopback
 */
public record ApiInterception(List<String> hosts, InetSocketAddress boundary) {
  public ApiInterception {
    if (hosts == null || hosts.isEmpty()) {
      throw new IllegalArgumentException("an interception names at least one host");
    }
    hosts = hosts.stream().map(dev.pushgate.types.HostNames::normalised).toList();
    Objects.requireNonNull(boundary, "boundary");
  }

  /** Where a CONNECT to {@code host}:{@code port} goes instead, or null when it is not ours. */
  public InetSocketAddress target(String host, int port) {
    if (host == null || port != 443) {
      return null;
    }
    // The boundary compares with the same function: what is intercepted is answered there.
    return hosts.contains(dev.pushgate.types.HostNames.normalised(host)) ? boundary : null;
  }
}
