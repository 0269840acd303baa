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
   * The addresses of a host looked up for {@code asker} (a run; null for none): a resolver that
   * bounds its lookups holds each asker to its share ({@link #bounded}).
   *
   * @throws UnknownHostException when it has none
   */
  default List<InetAddress> resolve(String host, Object asker) throws UnknownHostException {
    return resolve(host);
  }

  /**
   * {@code inner}, at most {@code atOnce} lookups at a time, and at most {@code perAsker} of
   * them for one asker ({@link #resolve(String, Object)}); one more fails at once with {@link
   * Busy}. A lookup blocks the thread that asks (the JDK's resolver), for as long as the name's
   * server takes to answer, up to the system resolver's own time limit (resolv.conf's {@code
   * timeout} and {@code attempts}): on a proxy shared by every run, whose threads are the API
   * boundary's, a run asking for names that never resolve would otherwise hold every thread,
   * and with one bound for all, keep every other run's names from being looked up. An address
   * literal (IPv4, as usually written) needs no lookup and is never refused.
   */
  static HostResolver bounded(HostResolver inner, int atOnce, int perAsker) {
    return new BoundedLookups(inner, atOnce, perAsker);
  }

  /** {@link #bounded}'s refusal: every lookup it allows (all askers' or this one's) is taken. */
  final class Busy extends UnknownHostException {
    private static final long serialVersionUID = 1L;

    Busy(String message) {
      super(message);
    }
  }

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
