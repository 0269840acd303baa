package dev.pushgate.gitconfig;

import dev.pushgate.types.UntrustedText;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Validation and normalisation of the base URLs that go into a run's config. */
final class Urls {
  private static final Pattern HOST_PORT = Pattern.compile(
      "(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::([0-9]{1,5}))?");

  private Urls() {}

  /**
   * An {@code http} or {@code https} base URL, returned with scheme and host lower-cased and no
   * trailing slash. Refused: user info (it could be a credential, so it is never echoed), a query
   * or fragment, and anything but visible ASCII.
   */
  static String base(String url, String what) {
    if (url == null || url.isEmpty()) {
      throw new IllegalArgumentException(what + " is missing");
    }
    String scheme;
    if (url.regionMatches(true, 0, "http://", 0, 7)) {
      scheme = "http";
    } else if (url.regionMatches(true, 0, "https://", 0, 8)) {
      scheme = "https";
    } else {
      throw new IllegalArgumentException(
          what + " must start with http:// or https://: " + UntrustedText.printable(url));
    }
    String rest = url.substring(scheme.length() + 3);
    int slash = rest.indexOf('/');
    String authority = slash < 0 ? rest : rest.substring(0, slash);
    if (authority.indexOf('@') >= 0) {
      throw new IllegalArgumentException(what + " must not carry user info");
    }
    for (int i = 0; i < url.length(); i++) {
      char c = url.charAt(i);
      if (c <= 0x20 || c >= 0x7f || c == '?' || c == '#') {
        throw new IllegalArgumentException(String.format(
            "%s has a forbidden character %#04x at %d: %s", what, (int) c, i, UntrustedText.printable(url)));
      }
    }
    Matcher m = HOST_PORT.matcher(authority);
    if (!m.matches()) {
      throw new IllegalArgumentException(what + " has no valid host: " + UntrustedText.printable(url));
    }
    if (m.group(2) != null) {
      int port = Integer.parseInt(m.group(2));
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException(what + " has an invalid port: " + UntrustedText.printable(url));
      }
    }
    String path = slash < 0 ? "" : rest.substring(slash);
    int end = path.length();
    while (end > 0 && path.charAt(end - 1) == '/') {
      end--;
    }
    return scheme + "://" + authority.toLowerCase(Locale.ROOT) + path.substring(0, end);
  }

  /** Where the gateway serves a host's repositories: {@code <base>/git/<host>/}. */
  static String gatewayHostBase(String gatewayBase, String gitHost) {
    return gatewayBase + "/git/" + gitHost + "/";
  }
}
