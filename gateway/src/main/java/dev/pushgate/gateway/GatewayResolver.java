package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import org.eclipse.jgit.errors.RepositoryNotFoundException;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.transport.resolver.RepositoryResolver;
import org.eclipse.jgit.transport.resolver.ServiceNotAuthorizedException;

/** Opens the cache of the repository of the {@link Push} {@link GatewayFilter} let through. */
final class GatewayResolver implements RepositoryResolver<HttpServletRequest> {
  private final UpstreamCache cache;

  GatewayResolver(UpstreamCache cache) {
    this.cache = cache;
  }

  @Override
  public Repository open(HttpServletRequest req, String name)
      throws RepositoryNotFoundException, ServiceNotAuthorizedException {
    Push push = Push.of(req).orElseThrow(ServiceNotAuthorizedException::new);
    RepoSlug repo = push.repo();
    if (!push.run().mayReach(repo)) {
      throw new ServiceNotAuthorizedException();
    }
    try {
      return cache.open(repo);
    } catch (IOException e) {
      throw new RepositoryNotFoundException(repo.toString(), e);
    }
  }
}
