package dev.pushgate.sandbox;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.io.EndPoint;

/**
 * The tunnels a shared proxy holds open for each run, by both ends of each: a tunnel to a
 * host other than the API names is never judged again once it is open, so it must not outlive
 * the run whose login opened it. A tunnel to the boundary ends anyway (the boundary closes an
 * ended run's connections); it is closed here too.
 */
final class RunTunnels {
  private final Map<ApiInterception, Set<EndPoint>> byRun = new ConcurrentHashMap<>();

  /** {@code end} is one end of a tunnel {@code run}'s login opened. */
  void opened(ApiInterception run, EndPoint end) {
    byRun.compute(run, (r, open) -> {
      Set<EndPoint> tunnels = open == null ? ConcurrentHashMap.newKeySet() : open;
      tunnels.removeIf(e -> !e.isOpen());
      tunnels.add(end);
      return tunnels;
    });
  }

  /** {@code run} ended: every tunnel its login opened is closed. */
  void close(ApiInterception run) {
    Set<EndPoint> tunnels = byRun.remove(run);
    if (tunnels != null) {
      tunnels.forEach(EndPoint::close);
    }
  }

  /** Tunnel ends of {@code run} still open. */
  int open(ApiInterception run) {
    Set<EndPoint> tunnels = byRun.get(run);
    return tunnels == null ? 0 : (int) tunnels.stream().filter(EndPoint::isOpen).count();
  }
}
