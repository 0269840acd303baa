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
  /**
   * {@code inner}, at most {@code atOnce} lookups at a time; one more fails at once with {@link
   * Busy}. A lookup blocks the thread that asks (the JDK's resolver), for as long as the name's
   * server takes to answer: on a proxy shared by every run, whose threads are the API
   * boundary's, a run asking for names that never resolve would otherwise hold every thread.
   */
  static HostResolver bounded(HostResolver inner, int atOnce) {
    java.util.concurrent.Semaphore lookups = new java.util.concurrent.Semaphore(atOnce);
    return host -> {
      if (!lookups.tryAcquire()) {
        throw new Busy(atOnce);
      }
      try {
        return inner.resolve(host);
      } finally {
        lookups.release();
      }
    };
  }

  /** {@link #bounded}'s refusal: every lookup it allows is under way. */
  final class Busy extends UnknownHostException {
    private static final long serialVersionUID = 1L;

    Busy(int atOnce) {
      super("the proxy is looking up " + atOnce + " host names at once already; try again in a"
          + " moment");
    }
  }

  static HostResolver mapping(Map<String, InetAddress> fixed, HostResolver fallback) {
    Map<String, InetAddress> copy = new HashMap<>();
    fixed.forEach((k, v) -> copy.put(k.toLowerCase(Locale.ROOT), v));
    return host -> {
      InetAddress a = copy.get(host.toLowerCase(Locale.ROOT));
      return a != null ? List.of(a) : fallback.resolve(host);
    };
  }
}
