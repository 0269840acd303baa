package dev.pushgate.sandbox;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.regex.Pattern;

/** {@link HostResolver#bounded}: lookups bounded for all askers together and for each. */
final class BoundedLookups implements HostResolver {
  private static final String OCTET = "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
  /**
   * An IPv4 address as usually written, which {@link InetAddress#getAllByName} reads without
   * asking a name server. Nothing looser: a name that only looks like an address ({@code
   * 999.1.1.1}, {@code a:b}, an IPv6 form the JDK cannot parse) goes to the name server, so it
   * must hold a lookup like any name. An IPv6 literal holds one too, for the moment it takes.
   */
  private static final Pattern LITERAL = Pattern.compile("(" + OCTET + "\\.){3}" + OCTET);

  private final HostResolver inner;
  private final int atOnce;
  private final int perAsker;
  private final Semaphore all;
  private final Map<Object, Integer> byAsker = new ConcurrentHashMap<>();

  BoundedLookups(HostResolver inner, int atOnce, int perAsker) {
    this.inner = inner;
    this.atOnce = atOnce;
    this.perAsker = perAsker;
    this.all = new Semaphore(atOnce);
  }

  @Override
  public List<InetAddress> resolve(String host) throws UnknownHostException {
    return resolve(host, null);
  }

  @Override
  public List<InetAddress> resolve(String host, Object asker) throws UnknownHostException {
    if (LITERAL.matcher(host).matches()) {
      return inner.resolve(host);
    }
    if (asker != null && !claim(asker)) {
      throw new HostResolver.Busy("this run has as many host names looked up at once as it"
          + " may (" + perAsker + ", fewer while the proxy's lookups are nearly all under way);"
          + " try again once one has answered");
    }
    try {
      if (!all.tryAcquire()) {
        throw new HostResolver.Busy("the proxy is looking up " + atOnce + " host names at once"
            + " already; try again in a moment");
      }
      try {
        return inner.resolve(host);
      } finally {
        all.release();
      }
    } finally {
      if (asker != null) {
        byAsker.computeIfPresent(asker, (a, n) -> n == 1 ? null : n - 1);
      }
    }
  }

  /**
   * One more lookup of {@code asker}'s, unless it has its share under way, or has one and only
   * the reserve is left: the last {@code perAsker} of all lookups go to askers that have none
   * under way, so that a few runs asking for names that never answer (a lookup cannot be called
   * off; the system's resolver gives up after its own timeout) leave every other run a lookup
   * (attack of 2026-12-07: four runs' slow names kept the others' at 503 for 10 s at a time).
   */
  private boolean claim(Object asker) {
    boolean[] claimed = {false};
    byAsker.compute(asker, (a, n) -> {
      int under = n == null ? 0 : n;
      if (under >= perAsker || under > 0 && all.availablePermits() <= perAsker) {
        return n;
      }
      claimed[0] = true;
      return under + 1;
    });
    return claimed[0];
  }
}
