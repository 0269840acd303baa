package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.Optional;
import org.eclipse.jgit.errors.RepositoryNotFoundException;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.transport.resolver.RepositoryResolver;
import org.eclipse.jgit.transport.resolver.ServiceNotAuthorizedException;

/** Opens the cache of the repository of the {@link Push} or {@link Fetch} on the request. */
final class GatewayResolver implements RepositoryResolver<HttpServletRequest> {
  private final UpstreamCache cache;

  GatewayResolver(UpstreamCache cache) {
    this.cache = cache;
  }

  /**
   * The run's reach of the repository was checked, and a push's wait for the cache's fetch done,
   * where the {@link Push} or {@link Fetch} was made: nothing else puts one on a request.
   */
  @Override
  public Repository open(HttpServletRequest req, String name)
      throws RepositoryNotFoundException, ServiceNotAuthorizedException {
    Optional<RepoSlug> repo =
        Fetch.of(req).map(Fetch::repo).or(() -> Push.of(req).map(Push::repo));
    return open(repo.orElseThrow(ServiceNotAuthorizedException::new));
  }

  private Repository open(RepoSlug repo) throws RepositoryNotFoundException {
    try {
      return cache.open(repo);
    } catch (IOException e) {
      throw new RepositoryNotFoundException(repo.toString(), e);
    }
  }
}
