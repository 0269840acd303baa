package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import dev.pushgate.types.Secret;

/** How the gateway reaches a repository upstream. Port owned by the gateway. */
public interface UpstreamAccess {
  /** The smart-HTTP URL of {@code repo} upstream, without credentials. */
  String remoteUrl(RepoSlug repo);

  /** A token that can read {@code repo}, to sync the gateway's cache before advertising. */
  Secret readToken(RunContext run, RepoSlug repo) throws UpstreamException;

  /**
   * Mints a write token scoped to {@code repo} alone, for one push; {@code workflows} when the
   * pushed commits change {@code .github/workflows/}.
   */
  WriteTokenLease mintWriteToken(RunContext run, RepoSlug repo, boolean workflows)
      throws UpstreamException;
}
