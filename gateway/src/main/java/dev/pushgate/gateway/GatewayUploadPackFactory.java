package dev.pushgate.gateway;

import jakarta.servlet.http.HttpServletRequest;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.jgit.lib.Config;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.transport.TransferConfig;
import org.eclipse.jgit.transport.UploadPack;
import org.eclipse.jgit.transport.resolver.ServiceNotAuthorizedException;
import org.eclipse.jgit.transport.resolver.UploadPackFactory;

/**
 * Sets up an upload-pack on a repository's cache for the {@link Fetch} the filter let through
 * (which synced the cache with upstream first); none for any other request.
 *
 * <p>Protocol v0 and v2: git 2.39 asks for v2 with the {@code Git-Protocol: version=2} header,
 * which JGit's servlet does not read itself. Shallow clones, {@code --filter} (partial clones) and
 * the later fetch of a partial clone's missing objects are served; wants must be reachable from
 * the branches and tags ({@link ReachableWants}).
 */
final class GatewayUploadPackFactory implements UploadPackFactory<HttpServletRequest> {
  /** The header git sends its protocol version in over HTTP, {@code version=2}. */
  static final String PROTOCOL_HEADER = "Git-Protocol";

  private final UpstreamCache cache;

  /** @param cache whose compaction a want past its bound asks for ({@link ReachableWants}) */
  GatewayUploadPackFactory(UpstreamCache cache) {
    this.cache = cache;
  }

  @Override
  public UploadPack create(HttpServletRequest req, Repository db)
      throws ServiceNotAuthorizedException {
    Fetch fetch = Fetch.of(req).orElseThrow(ServiceNotAuthorizedException::new);
    UploadPack up = new UploadPack(db);
    up.setTransferConfig(new TransferConfig(servingConfig(db)));
    String protocol = req.getHeader(PROTOCOL_HEADER);
    if (protocol != null) {
      up.setExtraParameters(Arrays.asList(protocol.split(":")));
    }
    up.setRefFilter(GatewayUploadPackFactory::headBranchesAndTags);
    fetch.advertised().ifPresent(up::setAdvertisedRefs); // the filter applies to these too
    up.setRequestValidator(new ReachableWants(() -> ReachBound.forFetch(System::nanoTime),
        () -> cache.compactWithBitmaps(fetch.repo())));
    // No up.setTimeout: it starts threads for every fetch. Jetty's idle timeout ends a client
    // that stopped reading; GatewayFilter bounds its reads.
    return up;
  }

  /** Whether {@code req} asks for protocol v2, as {@link #create} hands it to JGit. */
  static boolean asksForV2(HttpServletRequest req) {
    String protocol = req.getHeader(PROTOCOL_HEADER);
    return protocol != null && Arrays.asList(protocol.split(":")).contains("version=2");
  }

  /**
   * The cache's config as the server side reads it. The cache's own says {@code protocol.version
   * = 0} for its fetches from upstream (see {@link UpstreamCache#open}); that must not keep a
   * client from v2. Filters are off in JGit unless allowed.
   */
  private static Config servingConfig(Repository db) {
    Config c = new Config(db.getConfig());
    c.setString("protocol", null, "version", "2");
    c.setBoolean("uploadpack", null, "allowfilter", true);
    return c;
  }

  /** What the cache mirrors of upstream, and HEAD, so that a clone checks out the default branch. */
  static Map<String, Ref> headBranchesAndTags(Map<String, Ref> refs) {
    Map<String, Ref> shown = new LinkedHashMap<>();
    refs.forEach((name, ref) -> {
      if (name.equals(Constants.HEAD) || name.startsWith(Constants.R_HEADS)
          || name.startsWith(Constants.R_TAGS)) {
        shown.put(name, ref);
      }
    });
    return shown;
  }
}
