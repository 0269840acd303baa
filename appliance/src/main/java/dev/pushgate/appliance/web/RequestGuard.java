package dev.pushgate.appliance.web;

import dev.pushgate.types.UntrustedText;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;

/**
 * The checks a browser request passes before the approvals page looks at it: a Host the appliance
 * answers to (a DNS-rebinding page arrives with its own name), and for a change, an Origin (or,
 * without one, {@code Sec-Fetch-Site}) that is this very page. Each check answers why it refused,
 * in words for the log and the person, or empty.
 */
final class RequestGuard {
  private final Set<String> hosts;

  /** {@code bindHost}: the configured listening address, answered to besides the loopback names. */
  RequestGuard(String bindHost, int port) {
    this.hosts = Stream.of("127.0.0.1", "localhost", "[::1]", forUrl(bindHost))
        .map(h -> h.toLowerCase(Locale.ROOT) + ":" + port).collect(Collectors.toUnmodifiableSet());
  }

  /** Why the Host header is not one of ours; empty when it is. */
  Optional<String> badHost(Request request) {
    List<String> values = request.getHeaders().getValuesList(HttpHeader.HOST);
    if (values.size() != 1) {
      return Optional.of("exactly one Host header is needed");
    }
    if (!hosts.contains(values.get(0).toLowerCase(Locale.ROOT))) {
      return Optional.of("the approvals page answers only to " + String.join(", ", sorted()));
    }
    return Optional.empty();
  }

  /**
   * Why a request that changes something is not from this page; empty when it is. Needs the
   * Origin of this page, or, when a browser sent none, {@code Sec-Fetch-Site: same-origin}. A
   * request with neither is refused: browsers send one of them, and other clients have the CLI.
   */
  Optional<String> crossSite(Request request) {
    List<String> origins = request.getHeaders().getValuesList(HttpHeader.ORIGIN);
    List<String> sites = request.getHeaders().getValuesList("Sec-Fetch-Site");
    if (origins.size() > 1 || sites.size() > 1) {
      return Optional.of("more than one Origin or Sec-Fetch-Site header");
    }
    if (sites.size() == 1 && !sites.get(0).equals("same-origin")) {
      return Optional.of("the request came from another site (Sec-Fetch-Site: "
          + printable(sites.get(0)) + ")");
    }
    if (origins.size() == 1) {
      String origin = origins.get(0).toLowerCase(Locale.ROOT);
      String host = request.getHeaders().get(HttpHeader.HOST);
      if (host == null || !origin.equals("http://" + host.toLowerCase(Locale.ROOT))) {
        return Optional.of("the request came from another origin (" + printable(origin) + ")");
      }
      return Optional.empty();
    }
    if (sites.isEmpty()) {
      return Optional.of("the request carries neither Origin nor Sec-Fetch-Site");
    }
    return Optional.empty();
  }

  private List<String> sorted() {
    return hosts.stream().sorted().toList();
  }

  private static String forUrl(String host) {
    return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
  }

  private static String printable(String s) {
    String t = s.length() > 100 ? s.substring(0, 100) + "…" : s;
    return UntrustedText.visible(t);
  }
}
