package dev.pushgate.gateway;

import dev.pushgate.broker.RepoSlug;
import jakarta.servlet.http.HttpServletRequest;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.transport.ReceivePack;
import org.eclipse.jgit.transport.resolver.ReceivePackFactory;
import org.eclipse.jgit.transport.resolver.ServiceNotAuthorizedException;

/** Sets up a receive-pack on a repository's cache whose every command goes through the rule. */
final class GatewayReceivePackFactory implements ReceivePackFactory<HttpServletRequest> {
  private final GatewayConfig config;
  private final UpstreamAccess upstream;
  private final AuditLog audit;
  private final Approvals approvals;
  private final Forwarder forwarder;
  private final PushMetrics metrics;

  GatewayReceivePackFactory(GatewayConfig config, UpstreamAccess upstream, AuditLog audit,
      Approvals approvals, PushMetrics metrics) {
    this.config = config;
    this.upstream = upstream;
    this.audit = audit;
    this.approvals = approvals;
    this.metrics = metrics;
    this.forwarder = new Forwarder(seconds(config.upstreamTimeout().toSeconds()));
  }

  @Override
  public ReceivePack create(HttpServletRequest req, Repository db)
      throws ServiceNotAuthorizedException {
    RunContext run = (RunContext) req.getAttribute(GatewayFilter.RUN_ATTRIBUTE);
    if (run == null) {
      throw new ServiceNotAuthorizedException();
    }
    RepoSlug repo = (RepoSlug) req.getAttribute(GatewayFilter.REPO_ATTRIBUTE);
    if (repo == null) {
      throw new ServiceNotAuthorizedException();
    }
    ReceivePack rp = new ReceivePack(db);
    // The rule decides about creates, deletes and force-pushes, not receive-pack's defaults.
    rp.setAllowCreates(true);
    rp.setAllowDeletes(true);
    rp.setAllowNonFastForwards(true);
    rp.setAtomic(true);
    rp.setAllowPushOptions(true);
    rp.setCheckReferencedObjectsAreReachable(true);
    rp.setMaxPackSizeLimit(config.maxPackBytes());
    rp.setTimeout(seconds(config.clientTimeout().toSeconds()));
    rp.setRefFilter(GatewayReceivePackFactory::branchesAndTags);
    rp.setPreReceiveHook(new PushHook(run, repo, config, upstream, audit, approvals, forwarder,
        metrics));
    return rp;
  }

  private static Map<String, Ref> branchesAndTags(Map<String, Ref> refs) {
    Map<String, Ref> shown = new LinkedHashMap<>();
    refs.forEach((name, ref) -> {
      if (name.startsWith(Constants.R_HEADS) || name.startsWith(Constants.R_TAGS)) {
        shown.put(name, ref);
      }
    });
    return shown;
  }

  private static int seconds(long s) {
    return (int) Math.min(Integer.MAX_VALUE, Math.max(1, s));
  }
}
