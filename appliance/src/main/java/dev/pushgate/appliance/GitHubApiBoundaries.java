package dev.pushgate.appliance;

import dev.pushgate.appliance.api.ApiBoundaries;
import dev.pushgate.appliance.api.AuditedApiCalls;
import dev.pushgate.approvals.ApprovalDesk;
import dev.pushgate.approvals.GatewayApprovals;
import dev.pushgate.appliance.runs.Runs;
import dev.pushgate.appliance.store.AuditStore;
import dev.pushgate.broker.GitHubAppConfig;
import dev.pushgate.gateway.Gateway;
import dev.pushgate.gateway.api.ApiBoundary;
import dev.pushgate.gateway.api.ApiHosts;
import dev.pushgate.gateway.api.ApiUpstream;
import java.time.Clock;

/**
 * The runs' GitHub API boundaries, wired: judged by the runs' rules, asking at the approval desk,
 * audited, with the runs' read and write tokens (docs/github-api.md).
 */
final class GitHubApiBoundaries {
  private GitHubApiBoundaries() {}

  static ApiBoundaries wire(GitHubAppConfig brokerConfig, Runs runs, ApprovalDesk desk,
      AuditStore audit, Gateway gateway, int writeTokensPerMinute, Clock clock) {
    ApiUpstream apiUpstream = ApiUpstream.of(brokerConfig.apiBaseUrl());
    ApiHosts apiHosts = apiUpstream.enterpriseHost() == null ? ApiHosts.GITHUB_COM
        : ApiHosts.withEnterprise(apiUpstream.enterpriseHost());
    return new ApiBoundaries(new ApiBoundary.Shared(
        apiUpstream, new GatewayApprovals(desk),
        new AuditedApiCalls(audit), clock),
        context -> runs.apiJudgeOf(context, apiHosts, gateway.unseenCommits(context)),
        new ApiBoundaries.RunTokens() {
          @Override
          public dev.pushgate.types.Secret readToken(dev.pushgate.gateway.RunContext run)
              throws Exception {
            return runs.currentReadToken(run);
          }

          @Override
          public dev.pushgate.gateway.WriteTokenLease mintWriteToken(
              dev.pushgate.gateway.RunContext run, dev.pushgate.types.RepoSlug repo)
              throws Exception {
            return runs.mintWriteToken(run, repo, false);
          }
        }, writeTokensPerMinute, clock);
  }
}
