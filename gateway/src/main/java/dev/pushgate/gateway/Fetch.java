package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import jakarta.servlet.ServletRequest;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.eclipse.jgit.lib.Ref;

/**
 * One read of a repository (clone, fetch, ls-remote) that {@link GatewayFilter} let through: the
 * run and the repository. It crosses into JGit as the request attribute {@link #ATTRIBUTE}, where
 * {@link GatewayUploadPackFactory} sets up an upload-pack for it and for nothing else. While the
 * cache still fetches what upstream's refs need ({@link FetchStream}), the refs to advertise are
 * upstream's as listed, not the cache's.
 */
record Fetch(RunContext run, RepoSlug repo, Optional<Map<String, Ref>> advertised) {
  static final String ATTRIBUTE = Fetch.class.getName();

  Fetch {
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(repo, "repo");
    Objects.requireNonNull(advertised, "advertised");
  }

  /** The fetch the filter left on {@code req}, if it did. */
  static Optional<Fetch> of(ServletRequest req) {
    return req.getAttribute(ATTRIBUTE) instanceof Fetch f ? Optional.of(f) : Optional.empty();
  }

  void attachTo(ServletRequest req) {
    req.setAttribute(ATTRIBUTE, this);
  }
}
