package dev.pushgate.gateway;

import dev.pushgate.broker.RepoSlug;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import org.eclipse.jgit.errors.RepositoryNotFoundException;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.transport.resolver.RepositoryResolver;
import org.eclipse.jgit.transport.resolver.ServiceNotAuthorizedException;

/** Opens the cache of the repository {@link GatewayFilter} checked for this request. */
final class GatewayResolver implements RepositoryResolver<HttpServletRequest> {
  private final UpstreamCache cache;

  GatewayResolver(UpstreamCache cache) {
    this.cache = cache;
  }

  @Override
  public Repository open(HttpServletRequest req, String name)
      throws RepositoryNotFoundException, ServiceNotAuthorizedException {
    RunContext run = (RunContext) req.getAttribute(GatewayFilter.RUN_ATTRIBUTE);
    RepoSlug repo = (RepoSlug) req.getAttribute(GatewayFilter.REPO_ATTRIBUTE);
    if (run == null || repo == null || !run.mayReach(repo)) {
      throw new ServiceNotAuthorizedException();
    }
    try {
      return cache.open(repo);
    } catch (IOException e) {
      throw new RepositoryNotFoundException(repo.toString(), e);
    }
  }
}
