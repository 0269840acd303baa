package dev.pushgate.gateway;

import jakarta.servlet.http.HttpServletRequest;
import java.util.Optional;

/**
 * Git paths are taken literally. The servlet container decodes {@code %}-escapes and drops
 * {@code ;parameters} before it routes a request, while anything that reads the raw URI sees
 * another path: {@code git-receive-pac%6b} or {@code git-receive-pack;x} is a push to JGit and
 * not one to a check on the URI. git never sends either in a repository path (owner and name are
 * letters, digits, {@code .}, {@code _} and {@code -}), so a path holding them is refused instead
 * of being read two ways.
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
    return Optional.empty();
  }
}
