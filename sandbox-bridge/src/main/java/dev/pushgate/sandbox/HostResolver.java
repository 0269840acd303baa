package dev.pushgate.sandbox;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Port: the addresses the egress proxy connects to for a host name. */
@FunctionalInterface
public interface HostResolver {
  /** The host's resolver. */
  HostResolver SYSTEM = host -> List.of(InetAddress.getAllByName(host));

  /**
   * The addresses of a host, best first.
   *
   * @throws UnknownHostException when it has none
   */
  List<InetAddress> resolve(String host) throws UnknownHostException;

  /**
   * Fixed addresses for some names (compared without regard to case), the rest from {@code
   * fallback}. Tests map their own host names to 127.0.0.1 this way, so that traffic stays on the
   * machine.
   */
  static HostResolver mapping(Map<String, InetAddress> fixed, HostResolver fallback) {
    Map<String, InetAddress> copy = new HashMap<>();
    fixed.forEach((k, v) -> copy.put(k.toLowerCase(Locale.ROOT), v));
    return host -> {
      InetAddress a = copy.get(host.toLowerCase(Locale.ROOT));
      return a != null ? List.of(a) : fallback.resolve(host);
    };
  }
}
