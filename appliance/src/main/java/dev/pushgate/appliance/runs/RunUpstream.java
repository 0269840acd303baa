package dev.pushgate.appliance.runs;

import dev.pushgate.broker.BrokerException;
import dev.pushgate.gateway.RunContext;
import dev.pushgate.gateway.UpstreamAccess;
import dev.pushgate.gateway.UpstreamException;
import dev.pushgate.gateway.WriteTokenLease;
import dev.pushgate.types.RepoSlug;
import dev.pushgate.types.Secret;

/** The gateway's way upstream: URLs under the git host, tokens from the run lifecycle. */
public final class RunUpstream implements UpstreamAccess {
  private final Runs runs;
  private final String gitBaseUrl;

  /** {@code gitBaseUrl}: {@code https://github.com} or the local forge's URL. */
  public RunUpstream(Runs runs, String gitBaseUrl) {
    this.runs = runs;
    this.gitBaseUrl = gitBaseUrl.endsWith("/")
        ? gitBaseUrl.substring(0, gitBaseUrl.length() - 1) : gitBaseUrl;
  }

  @Override
  public String remoteUrl(RepoSlug repo) {
    return gitBaseUrl + "/" + repo.owner() + "/" + repo.name() + ".git";
  }

  @Override
  public Secret readToken(RunContext run, RepoSlug repo) throws UpstreamException {
    try {
      return runs.readToken(run, repo);
    } catch (BrokerException | RunRequestException e) {
      throw new UpstreamException(e.getMessage(), e);
    }
  }

  @Override
  public WriteTokenLease mintWriteToken(RunContext run, RepoSlug repo, boolean workflows)
      throws UpstreamException {
    try {
      return runs.mintWriteToken(run, repo, workflows);
    } catch (BrokerException | RunRequestException e) {
      throw new UpstreamException(e.getMessage(), e);
    }
  }
}
