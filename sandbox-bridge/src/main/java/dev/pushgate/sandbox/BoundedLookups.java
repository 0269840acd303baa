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
  /** What {@link InetAddress#getAllByName} reads as an address without asking a name server. */
  private static final Pattern LITERAL = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}|.*:.*");

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
      throw new HostResolver.Busy("this run has " + perAsker + " host names looked up at once"
          + " already; try again once one has answered");
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

  /** One more lookup of {@code asker}'s, unless it has its share under way. */
  private boolean claim(Object asker) {
    boolean[] claimed = {false};
    byAsker.compute(asker, (a, n) -> {
      int under = n == null ? 0 : n;
      if (under >= perAsker) {
        return n;
      }
      claimed[0] = true;
      return under + 1;
    });
    return claimed[0];
  }
}
