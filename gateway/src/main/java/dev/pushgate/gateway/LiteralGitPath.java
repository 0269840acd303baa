package dev.pushgate.gateway;

import jakarta.servlet.http.HttpServletRequest;
import java.util.Optional;

/**
 * Git paths are taken literally. The servlet container decodes {@code %}-escapes and drops
 * {@code ;parameters} before it routes a request, while anything that reads the raw URI sees
 * another path: {@code git-receive-pac%6b} or {@code git-receive-pack;x} is a push to JGit and
 * not one to a check on the URI. git never sends either in a repository path (owner and name are
 * letters, digits, {@code .}, {@code _} and {@code -}), so a path holding them is refused instead
 * of being read two ways. Likewise a dot segment: Jetty resolves {@code acme/../acme/widget.git}
 * to {@code acme/widget.git} before it routes, and the raw URI says another path; git and curl
 * resolve them before sending (libcurl, RFC 3986), so only a client that sends them as written
 * does ({@code curl --path-as-is}). Encoded dots and separators, empty segments and backslashes
 * are Jetty's own 400 ({@code Ambiguous URI …}) before any filter.
 */
public final class LiteralGitPath {
  private LiteralGitPath() {}

  /** Why the request's raw path is not literal; empty when it is. */
  public static Optional<String> problem(HttpServletRequest req) {
    String raw = req.getRequestURI();
    if (raw == null) {
      return Optional.of("the request has no path");
    }
    if (raw.indexOf(';') >= 0) {
      return Optional.of("git paths take no path parameters (';')");
    }
    if (raw.indexOf('%') >= 0) {
      return Optional.of("git paths take no percent-encoding ('%'); write the path as git does");
    }
    for (String segment : raw.split("/", -1)) {
      if (segment.equals(".") || segment.equals("..")) {
        return Optional.of("git paths take no dot segments ('.' or '..'), which the server would"
            + " resolve before routing; write the path as git sends it");
      }
    }
    return Optional.empty();
  }
}
