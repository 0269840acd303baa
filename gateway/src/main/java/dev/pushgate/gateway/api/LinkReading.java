package dev.pushgate.gateway.api;

import java.util.Locale;
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
    int end = at;
    while (end < cleaned.length() && "/\\?#".indexOf(cleaned.charAt(end)) < 0) {
      end++;
    }
    return new int[] {at, end};
  }

  /**
   * Whether every client reads {@code cleaned} as a link to {@code host} or relative to the page
   * it came from; false when its host is another, or one the parser would not decide (empty, a
   * bad port, an escape or a character the parser would map: judged by its spelling alone).
   */
  static boolean staysOn(String cleaned, String host) {
    Matcher scheme = SCHEME.matcher(cleaned);
    if (scheme.find() && !SPECIAL.contains(scheme.group(1).toLowerCase(Locale.ROOT))) {
      return false; // no HTTP client follows it to the call's host
    }
    int[] authority = authority(cleaned);
    if (authority == null) {
      return true; // a path, a query or a fragment: the call's own host
    }
    String named = cleaned.substring(authority[0], authority[1]);
    named = named.substring(named.lastIndexOf('@') + 1);
    int portAt = named.startsWith("[") ? named.indexOf("]:") + 1 : named.lastIndexOf(':');
    if (portAt > 0) {
      if (!PORT.matcher(named.substring(portAt + 1)).matches()
          || named.length() > portAt + 1 && Integer.parseInt(named.substring(portAt + 1)) > 65535) {
        return false;
      }
      named = named.substring(0, portAt);
    }
    return !named.isEmpty() && named.equalsIgnoreCase(host);
  }

  private static int skipSlashes(String s, int from) {
    int at = from;
    while (at < s.length() && (s.charAt(at) == '/' || s.charAt(at) == '\\')) {
      at++;
    }
    return at;
  }
}
