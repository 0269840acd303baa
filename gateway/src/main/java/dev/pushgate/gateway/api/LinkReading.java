package dev.pushgate.gateway.api;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A link as a client reads it: a browser, Node's {@code fetch}, {@code curl}, following the
 * WHATWG URL parser for the special schemes ({@code http}, {@code https}, {@code ws}, {@code
 * wss}, {@code ftp}). That parser drops leading and trailing controls and spaces and every tab,
 * LF and CR; reads the scheme in any case; and, with no base URL or one of another scheme, takes
 * the authority after any number of {@code /} or {@code \} ({@code https:/h/x}, {@code
 * https:h/x} and {@code https:\\h\x} all name host {@code h}). Relative to a base of the same
 * scheme, {@code https:/h/x} is a path on the base's host; the reading without a base is the one
 * that names another host, so it is the one a link is judged by.
 */
final class LinkReading {
  private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*):");
  private static final Set<String> SPECIAL = Set.of("http", "https", "ws", "wss", "ftp");
  private static final Pattern PORT = Pattern.compile("[0-9]{0,5}");
  private static final Map<String, Integer> DEFAULT_PORTS = Map.of("http", 80, "https", 443,
      "ws", 80, "wss", 443, "ftp", 21);

  private LinkReading() {}

  /** {@code link} as the parser reads its characters: trimmed of controls and spaces, no tab, LF, CR. */
  static String cleaned(String link) {
    int from = 0;
    int to = link.length();
    while (from < to && link.charAt(from) <= ' ') {
      from++;
    }
    while (to > from && link.charAt(to - 1) <= ' ') {
      to--;
    }
    StringBuilder out = new StringBuilder(to - from);
    for (int i = from; i < to; i++) {
      char c = link.charAt(i);
      if (c != '\t' && c != '\n' && c != '\r') {
        out.append(c);
      }
    }
    return out.toString();
  }

  /**
   * Where the authority of {@code cleaned} starts and ends ({@code [start, end)}), as read
   * without a base: after a special scheme and any number of slashes, after another scheme's or
   * a scheme-relative link's two; null if it has none (a path, a query, {@code mailto:}).
   */
  static int[] authority(String cleaned) {
    Matcher scheme = SCHEME.matcher(cleaned);
    int at;
    if (!scheme.find()) {
      at = skipSlashes(cleaned, 0); // relative to a special scheme's page: \\h is //h
      if (at < 2) {
        return null;
      }
    } else if (SPECIAL.contains(scheme.group(1).toLowerCase(Locale.ROOT))) {
      at = skipSlashes(cleaned, scheme.end());
    } else if (cleaned.startsWith("//", scheme.end())) {
      at = scheme.end() + 2;
    } else {
      return null;
    }
    return new int[] {at, endOf(cleaned, at, "/\\?#")};
  }

  /**
   * A host and port a call's answer may send the run back to with its query: the call's own
   * (the run reached it over {@code https}) and the upstream's it was sent on to. A link's port
   * is its own or its scheme's default.
   */
  record Origin(String host, int port) {
    Origin {
      host = bare(host.toLowerCase(Locale.ROOT));
    }

    /**
     * The host the run called, as it named it ({@code host} or {@code host:port}), over https;
     * empty if it names none (then no link is taken to lead back to it).
     */
    static Optional<Origin> ofCall(String hostAndPort) {
      return Optional.ofNullable(hostAndPort == null ? null : origin(hostAndPort, "https"));
    }
  }

  /**
   * Whether every client reads {@code cleaned} as a link back to one of {@code backTo} (host and
   * port) or relative to the page it came from; false when it names another host or port, or one
   * the parser would not decide (empty, a bad port, an escape or a character the parser would
   * map: judged by its spelling alone), or when the WHATWG reading and an RFC 3986 one (curl's,
   * Python's, {@code java.net.URI}'s) name different hosts: {@code https://h\@evil/} is {@code
   * h} to a browser and Node, {@code evil} to curl and Python's requests.
   */
  static boolean staysOn(String cleaned, Set<Origin> backTo) {
    Matcher scheme = SCHEME.matcher(cleaned);
    String schemeName = scheme.find() ? scheme.group(1).toLowerCase(Locale.ROOT) : null;
    if (schemeName != null && !SPECIAL.contains(schemeName)) {
      return false; // no HTTP client follows it to the call's host
    }
    int[] authority = authority(cleaned);
    if (authority == null) {
      return true; // a path, a query or a fragment: the call's own host
    }
    Origin named = origin(cleaned.substring(authority[0], authority[1]), schemeName);
    if (named == null || !backTo.contains(named)) {
      return false;
    }
    int rfcAt = (schemeName == null ? 0 : scheme.end());
    if (cleaned.startsWith("//", rfcAt)) {
      // RFC 3986: the authority runs to the first /, ? or #; a \ is in it.
      return named.equals(origin(cleaned.substring(rfcAt + 2, endOf(cleaned, rfcAt + 2, "/?#")),
          schemeName));
    }
    return true;
  }

  /**
   * The host and port an authority names (its userinfo dropped, the scheme's default port when
   * none is given; a scheme-relative link is read as {@code https}, the run's call's scheme), or
   * null when it names none a client would decide alike.
   */
  private static Origin origin(String authority, String schemeName) {
    String named = authority.substring(authority.lastIndexOf('@') + 1);
    int port = DEFAULT_PORTS.getOrDefault(schemeName == null ? "https" : schemeName, -1);
    int portAt = portAt(named);
    if (portAt >= 0) {
      String digits = named.substring(portAt + 1);
      if (!PORT.matcher(digits).matches()
          || !digits.isEmpty() && Integer.parseInt(digits) > 65535) {
        return null;
      }
      port = digits.isEmpty() ? port : Integer.parseInt(digits);
      named = named.substring(0, portAt);
    }
    return named.isEmpty() || port < 0 ? null : new Origin(named, port);
  }

  /** Where the {@code :} before a port is in {@code host[:port]} or {@code [v6][:port]}, or -1. */
  private static int portAt(String named) {
    return named.startsWith("[") ? named.indexOf("]:") + (named.contains("]:") ? 1 : 0)
        : named.lastIndexOf(':');
  }

  /** An IPv6 literal without its brackets, as an HTTP client's request reports its host. */
  private static String bare(String host) {
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1)
        : host;
  }

  /** Where the authority starting at {@code from} ends: at the first of {@code delimiters}. */
  private static int endOf(String s, int from, String delimiters) {
    int end = from;
    while (end < s.length() && delimiters.indexOf(s.charAt(end)) < 0) {
      end++;
    }
    return end;
  }

  private static int skipSlashes(String s, int from) {
    int at = from;
    while (at < s.length() && (s.charAt(at) == '/' || s.charAt(at) == '\\')) {
      at++;
    }
    return at;
  }
}
