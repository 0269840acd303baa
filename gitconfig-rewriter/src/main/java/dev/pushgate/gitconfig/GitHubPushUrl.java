package dev.pushgate.gitconfig;

import dev.pushgate.types.UntrustedText;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Recognises a push URL that points at the git host as git and the network would resolve it: the
 * host in any case, with or without the trailing dot of a fully qualified name; {@code
 * http(s)://[user@]host[:port]/<path>/o/r} with the default port implied, {@code
 * ssh://[user@]host[:22]/o/r} (also {@code git+ssh://}, {@code ssh+git://}) and the scp-like
 * {@code [user@]host:o/r} or {@code [user@][host]:o/r}, each with or without {@code .git} and a
 * trailing slash. Such a
 * URL either names a repository safely or is refused; every other URL is left alone.
 */
final class GitHubPushUrl {
  // as GitHub names owners and repositories; also what makes a safe path on the gateway
  private static final Pattern OWNER = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})");
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,100}");

  sealed interface Match permits Elsewhere, Repository, Unsafe {}

  /** Not a URL of the git host. */
  record Elsewhere() implements Match {}

  record Repository(String owner, String name) implements Match {}

  /** A URL of the git host that does not name a repository safely; {@code why} says what. */
  record Unsafe(String why) implements Match {}

  private GitHubPushUrl() {}

  static Match match(String url, GitHost gitHost) {
    String path;
    int schemeEnd = url.indexOf("://");
    if (schemeEnd >= 0) {
      String scheme = url.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
      String rest = url.substring(schemeEnd + 3);
      int slash = rest.indexOf('/');
      String authority = slash < 0 ? rest : rest.substring(0, slash);
      String hostPort = authority.substring(authority.lastIndexOf('@') + 1);
      path = slash < 0 ? "" : rest.substring(slash);
      switch (scheme) {
        case "https", "http" -> {
          if (!sameHttpHost(scheme, hostPort, gitHost)) {
            return new Elsewhere();
          }
          if (!path.startsWith(gitHost.path() + "/")) {
            return gitHost.path().isEmpty() ? repository(path) : new Elsewhere();
          }
          path = path.substring(gitHost.path().length() + 1);
        }
        case "ssh", "git+ssh", "ssh+git" -> {
          if (!sameSshHost(hostPort, gitHost)) {
            return new Elsewhere();
          }
          path = path.isEmpty() ? "" : path.substring(1);
        }
        default -> {
          return new Elsewhere();
        }
      }
    } else {
      // git reads [user@]host:path as scp-like ssh when the colon comes before any slash; a
      // bracketed host may hold colons of its own
      int close = url.indexOf("]:");
      int colon = close >= 0 && url.lastIndexOf('/', close) < 0 ? close + 1 : url.indexOf(':');
      if (colon < 0 || url.lastIndexOf('/', colon) >= 0) {
        return new Elsewhere();
      }
      String userHost = url.substring(0, colon);
      if (!sameHost(userHost.substring(userHost.lastIndexOf('@') + 1), gitHost)) {
        return new Elsewhere();
      }
      path = url.substring(colon + 1);
      if (path.startsWith("/")) {
        path = path.substring(1);
      }
    }
    return repository(path);
  }

  /** As curl connects: host without regard to case or a trailing dot, the default port implied. */
  private static boolean sameHttpHost(String scheme, String hostPort, GitHost gitHost) {
    int colon = hostPort.lastIndexOf(':');
    String host = colon < 0 ? hostPort : hostPort.substring(0, colon);
    int port = GitHost.defaultPort(scheme);
    if (colon >= 0) {
      try {
        port = Integer.parseInt(hostPort.substring(colon + 1));
      } catch (NumberFormatException e) {
        return false;
      }
    }
    int wanted = gitHost.port() == -1 ? GitHost.defaultPort(scheme) : gitHost.port();
    if (gitHost.port() != -1 && !scheme.equals(gitHost.scheme())) {
      return false;
    }
    return sameHost(host, gitHost) && port == wanted;
  }

  /** As ssh connects: port 22, the host in brackets or not. */
  private static boolean sameSshHost(String hostPort, GitHost gitHost) {
    String host = hostPort;
    if (hostPort.startsWith("[") && hostPort.contains("]")) {
      String after = hostPort.substring(hostPort.indexOf(']') + 1);
      host = hostPort.substring(0, hostPort.indexOf(']') + 1);
      if (!after.isEmpty() && !after.equals(":22")) {
        return false;
      }
    } else if (hostPort.endsWith(":22")) {
      host = hostPort.substring(0, hostPort.length() - 3);
    }
    return sameHost(host, gitHost);
  }

  private static boolean sameHost(String host, GitHost gitHost) {
    String h = host.startsWith("[") && host.endsWith("]")
        ? host.substring(1, host.length() - 1) : host;
    if (h.endsWith(".")) {
      h = h.substring(0, h.length() - 1);
    }
    return h.equalsIgnoreCase(gitHost.host());
  }

  private static Match repository(String path) {
    String p = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    String[] parts = p.split("/", -1);
    if (parts.length != 2) {
      return new Unsafe("expected <owner>/<repository>, got " + UntrustedText.quoted(path));
    }
    String owner = parts[0];
    String name = parts[1].endsWith(".git")
        ? parts[1].substring(0, parts[1].length() - 4) : parts[1];
    if (!OWNER.matcher(owner).matches()) {
      return new Unsafe("not a valid owner: " + UntrustedText.quoted(owner));
    }
    if (!NAME.matcher(name).matches() || name.equals(".") || name.equals("..")) {
      return new Unsafe("not a valid repository name: " + UntrustedText.quoted(name));
    }
    return new Repository(owner, name);
  }

  /**
   * The URL for messages and reports: user info other than the conventional SSH user {@code git}
   * becomes {@code ***}, since it may be a token.
   */
  static String redacted(String url) {
    int schemeEnd = url.indexOf("://");
    int start = schemeEnd < 0 ? 0 : schemeEnd + 3;
    int end = url.indexOf('/', start);
    if (schemeEnd < 0) {
      end = url.indexOf(':');
      if (end < 0 || url.lastIndexOf('/', end) >= 0) {
        return UntrustedText.printable(url);
      }
    } else if (end < 0) {
      end = url.length();
    }
    int at = url.lastIndexOf('@', end - 1);
    if (at < start || url.substring(start, at).equals("git")) {
      return UntrustedText.printable(url);
    }
    return UntrustedText.printable(url.substring(0, start) + "***" + url.substring(at));
  }
}
