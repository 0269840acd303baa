package dev.pushgate.sandbox;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Callback;

/**
 * The connections a proxy holds for each run, by their ends, and how many it may hold: each end
 * is one of its process's descriptors, which in the appliance every run's calls, fetches and
 * pushes need too. A run holds at most {@link #MAX_PER_RUN} connections at once, its tunnels
 * (both ends of each: a tunnel's client and its far end) and the client connections of its
 * forwarded plain-HTTP requests counted alike (attacks of 2026-12-07: one run's 10,600 tunnels,
 * then its 20,000 keep-alive {@code GET http://…} connections, took every descriptor). On a
 * proxy shared by every run ({@link #shared}), where a request's login names its run, all runs
 * together, and the connections the forward holds to the hosts it forwards to (pooled, every
 * run's), hold at most {@code maxEnds}; a launch's own proxy serves one run ({@link #ONE_RUN}).
 *
 * <p>A connection that is not a tunnel to another host ends anyway with its run (the login stops
 * working, the boundary closes the run's connections); each is closed here too ({@link #close}),
 * since a tunnel is judged once, at its CONNECT, and must not outlive the run whose login opened
 * it.
 */
final class RunConnections {
  /**
   * The most connections one run holds through a proxy at once: tunnels (its API connections
   * among them, which the boundary bounds besides) and connections that carry forwarded
   * requests.
   */
  static final int MAX_PER_RUN = 256;

  /** Whether a connection was counted, and if not, whose bound it met. */
  enum Admission {
    COUNTED(200, null),
    RUN_FULL(429, "pushgate: this run holds " + MAX_PER_RUN + " connections through the proxy"
        + " already (tunnels, and connections that carry its plain-HTTP requests), the most one"
        + " run may; close some and try again"),
    PROXY_FULL(503, "pushgate: the proxy holds the most connections it may for all runs"
        + " together; try again in a moment");

    /** The status a refusal is answered with. */
    final int status;
    /** The refusal's line; null for {@link #COUNTED}. */
    final String refusal;

    Admission(int status, String refusal) {
      this.status = status;
      this.refusal = refusal;
    }
  }

  private final Map<Object, Held> byRun = new ConcurrentHashMap<>();
  private final int maxEnds;
  /** Ends held in {@link #byRun}, closed ones among them until they are pruned. */
  private final AtomicInteger counted = new AtomicInteger();
  /** The forward's connections to the hosts it forwards to, open now. */
  private final AtomicInteger forwarded = new AtomicInteger();

  /**
   * The run of a proxy that serves one run only (a launch's own, on its Unix socket): every
   * connection on it is that run's.
   */
  static final Object ONE_RUN = new Object();

  /** @param maxEnds the most ends all runs and the forward hold together */
  RunConnections(int maxEnds) {
    this.maxEnds = maxEnds;
  }

  /**
   * For a proxy shared by every run: a quarter of this process's descriptors, at most 32,768
   * ends, for all runs together. The rest is left to the gateway's git work, the database, the
   * boundary's own listener and its calls upstream, and the sandboxed launches' own proxies
   * (each bounded to one run's share, {@link #ofOneRun}).
   */
  static RunConnections shared() {
    long limit = 4096;
    if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
      limit = unix.getMaxFileDescriptorCount();
    }
    return new RunConnections((int) Math.min(32_768, Math.max(4 * MAX_PER_RUN, limit / 4)));
  }

  /** For a proxy of one run ({@link #ONE_RUN}): that run's share alone bounds it. */
  static RunConnections ofOneRun() {
    return new RunConnections(Integer.MAX_VALUE);
  }

  /**
   * Counts {@code client}, a connection on which {@code run}'s login asks for a tunnel or a
   * forward, unless a bound is met; a connection counted already (a keep-alive connection's next
   * request) is counted once. Room is left for a tunnel's far end ({@link #farEnd}) and a
   * forwarded request's connection onward. The last quarter of {@code maxEnds} goes only to runs
   * that hold no connection yet, so that a few runs holding their 256 each cannot keep every
   * other run out (attack of 2026-12-07: two runs' 512 tunnels filled a bound of 1,024 ends, and
   * every other run's calls were answered 503).
   */
  Admission admit(Object run, EndPoint client) {
    Admission admission = count(run, client);
    if (admission != Admission.PROXY_FULL) {
      return admission;
    }
    pruneAll(); // closed ends of other runs may make room; not inside count's compute
    return count(run, client);
  }

  private Admission count(Object run, EndPoint client) {
    Admission[] admission = {Admission.COUNTED};
    byRun.compute(run, (r, open) -> {
      Held held = open == null ? new Held() : open;
      if (held.clients.contains(client)) {
        return held;
      }
      held.prune();
      if (held.clients.size() >= MAX_PER_RUN) {
        admission[0] = Admission.RUN_FULL;
      } else if (held() + 2 > (held.clients.isEmpty() ? maxEnds : maxEnds - maxEnds / 4)) {
        admission[0] = Admission.PROXY_FULL;
      } else {
        held.add(held.clients, client);
      }
      return held;
    });
    return admission[0];
  }

  /** {@code end} is the far end of a tunnel {@code run}'s login opened ({@link #admit}ted). */
  void farEnd(Object run, EndPoint end) {
    byRun.compute(run, (r, open) -> {
      Held held = open == null ? new Held() : open;
      held.add(held.farEnds, end);
      return held;
    });
  }

  /** {@code run} ended: every connection its login opened is closed. */
  void close(Object run) {
    Held held = byRun.remove(run);
    if (held != null) {
      counted.addAndGet(-held.clients.size() - held.farEnds.size());
      held.clients.forEach(EndPoint::close);
      held.farEnds.forEach(EndPoint::close);
    }
  }

  /** Ends of {@code run}'s connections (clients' and far) still open. */
  int open(Object run) {
    Held held = byRun.get(run);
    return held == null ? 0 : (int) java.util.stream.Stream.concat(
        held.clients.stream(), held.farEnds.stream()).filter(EndPoint::isOpen).count();
  }

  /**
   * {@code callback} for the answer that refuses a connection {@link #admit} did not count: once
   * the answer is written the connection is closed outright. Jetty only half-closes a connection
   * it answered with {@code Connection: close}, and waits for the client to close its side, so a
   * client that never did held it, uncounted, until the idle timeout (attack of 2026-12-07: one
   * run's 3,900 refused connections took the descriptors its 256 were bounded to spare).
   */
  static Callback closingAfter(Request request, Callback callback) {
    EndPoint end = request.getConnectionMetaData().getConnection().getEndPoint();
    return new Callback() {
      @Override
      public void succeeded() {
        try {
          callback.succeeded();
        } finally {
          end.close();
        }
      }

      @Override
      public void failed(Throwable failure) {
        try {
          callback.failed(failure);
        } finally {
          end.close();
        }
      }

      @Override
      public InvocationType getInvocationType() {
        return callback.getInvocationType();
      }
    };
  }

  /** Counts the forward's connections to the hosts it forwards to (a bean of its client). */
  Connection.Listener forwardedConnections() {
    return new Connection.Listener() {
      @Override
      public void onOpened(Connection connection) {
        forwarded.incrementAndGet();
      }

      @Override
      public void onClosed(Connection connection) {
        forwarded.decrementAndGet();
      }
    };
  }

  private int held() {
    return counted.get() + forwarded.get();
  }

  /** Drops the closed ends of every run. */
  private void pruneAll() {
    for (Object run : byRun.keySet()) {
      byRun.computeIfPresent(run, (r, held) -> {
        held.prune();
        return held;
      });
    }
  }

  /** One run's ends; changed only inside {@link #byRun}'s compute for the run. */
  private final class Held {
    final Set<EndPoint> clients = ConcurrentHashMap.newKeySet();
    final Set<EndPoint> farEnds = ConcurrentHashMap.newKeySet();

    void add(Set<EndPoint> ends, EndPoint end) {
      if (ends.add(end)) {
        counted.incrementAndGet();
      }
    }

    void prune() {
      prune(clients);
      prune(farEnds);
    }

    private void prune(Set<EndPoint> ends) {
      ends.removeIf(e -> {
        if (e.isOpen()) {
          return false;
        }
        counted.decrementAndGet();
        return true;
      });
    }
  }
}
