package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import dev.pushgate.types.Secret;

/**
 * The upstream as the gateway's push path uses it: every write token is taken from the run's
 * {@link MintBudget} first, and every mint is counted, whichever code path asks for it.
 */
final class BudgetedUpstream implements UpstreamAccess {
  private final UpstreamAccess upstream;
  private final MintBudget budget;
  private final PushMetrics metrics;

  BudgetedUpstream(UpstreamAccess upstream, MintBudget budget, PushMetrics metrics) {
    this.upstream = upstream;
    this.budget = budget;
    this.metrics = metrics;
  }

  @Override
  public String remoteUrl(RepoSlug repo) {
    return upstream.remoteUrl(repo);
  }

  @Override
  public Secret readToken(RunContext run, RepoSlug repo) throws UpstreamException {
    return upstream.readToken(run, repo);
  }

  @Override
  public WriteTokenLease mintWriteToken(RunContext run, RepoSlug repo, boolean workflows)
      throws UpstreamException {
    try {
      budget.spend(run.runId());
    } catch (UpstreamException e) {
      metrics.onWriteTokenMint("rate-limited");
      throw e;
    }
    try {
      WriteTokenLease lease = upstream.mintWriteToken(run, repo, workflows);
      metrics.onWriteTokenMint(workflows ? "minted-with-workflows" : "minted");
      return lease;
    } catch (UpstreamException | RuntimeException e) {
      metrics.onWriteTokenMint("failed");
      throw e;
    }
  }
}
