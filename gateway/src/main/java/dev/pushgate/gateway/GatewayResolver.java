package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Optional;
import org.eclipse.jgit.errors.RepositoryNotFoundException;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.transport.ServiceMayNotContinueException;
import org.eclipse.jgit.transport.resolver.RepositoryResolver;
import org.eclipse.jgit.transport.resolver.ServiceNotAuthorizedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the cache of the repository of the {@link Push} or {@link Fetch} {@link GatewayFilter}
 * let through; for a push, once the cache holds what its advertisement showed.
 */
final class GatewayResolver implements RepositoryResolver<HttpServletRequest> {
  private static final Logger log = LoggerFactory.getLogger(GatewayResolver.class);

  private final UpstreamCache cache;

  GatewayResolver(UpstreamCache cache) {
    this.cache = cache;
  }

  @Override
  public Repository open(HttpServletRequest req, String name)
      throws RepositoryNotFoundException, ServiceNotAuthorizedException,
      ServiceMayNotContinueException {
    Optional<Fetch> fetch = Fetch.of(req);
    if (fetch.isPresent()) {
      // GatewayFilter synced the cache for the fetch's advertisement
      if (!fetch.get().run().mayReach(fetch.get().repo())) {
        throw new ServiceNotAuthorizedException();
      }
      return open(fetch.get().repo());
    }
    Push push = Push.of(req).orElseThrow(ServiceNotAuthorizedException::new);
    RepoSlug repo = push.repo();
    if (!push.run().mayReach(repo)) {
      throw new ServiceNotAuthorizedException();
    }
    if ("POST".equals(req.getMethod())) {
      // Before JGit reads the cache's refs or completes a thin pack against its objects.
      try {
        cache.awaitFetch(repo);
      } catch (UpstreamException e) {
        log.warn("run {}: sync of {} failed: {}", push.run().runId(), repo, e.getMessage());
        throw new ServiceMayNotContinueException(GatewayFilter.upstreamUnreadable(repo),
            HttpServletResponse.SC_BAD_GATEWAY);
      }
    }
    return open(repo);
  }

  private Repository open(RepoSlug repo) throws RepositoryNotFoundException {
    try {
      return cache.open(repo);
    } catch (IOException e) {
      throw new RepositoryNotFoundException(repo.toString(), e);
    }
  }
}
