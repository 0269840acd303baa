package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import jakarta.servlet.ServletRequest;
import java.util.Objects;
import java.util.Optional;

/**
 * One read of a repository (clone, fetch, ls-remote) that {@link GatewayFilter} let through: the
 * run and the repository. It crosses into JGit as the request attribute {@link #ATTRIBUTE}, where
 * {@link GatewayUploadPackFactory} sets up an upload-pack for it and for nothing else.
 */
record Fetch(RunContext run, RepoSlug repo) {
  static final String ATTRIBUTE = Fetch.class.getName();

  Fetch {
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(repo, "repo");
  }

  /** The fetch the filter left on {@code req}, if it did. */
  static Optional<Fetch> of(ServletRequest req) {
    return req.getAttribute(ATTRIBUTE) instanceof Fetch f ? Optional.of(f) : Optional.empty();
  }

  void attachTo(ServletRequest req) {
    req.setAttribute(ATTRIBUTE, this);
  }
}
