package dev.pushgate.gateway;

import dev.pushgate.gateway.api.UnseenCommits;
import dev.pushgate.policy.ContentRules;
import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.transport.ReceiveCommand;

/**
 * A ref move through the API judged as a push of the commits it brings: the new id is fetched
 * into the gateway's cache with the run's read token, and what it reaches that no branch or tag
 * upstream reaches is judged by the push path's own {@link ContentJudge} and workflow reader,
 * exactly as a {@code git push} of it would be.
 */
final class UnseenCommitsFetched implements UnseenCommits {
  private final UpstreamCache cache;
  private final UpstreamAccess upstream;
  private final RunContext run;

  UnseenCommitsFetched(UpstreamCache cache, UpstreamAccess upstream, RunContext run) {
    this.cache = cache;
    this.upstream = upstream;
    this.run = run;
  }

  @Override
  public Brought judge(RepoSlug repo, String ref, String newId, ContentRules rules)
      throws Unreadable {
    if (!ObjectId.isId(newId)) {
      throw new Unreadable(dev.pushgate.types.UntrustedText.printable(newId)
          + " is not a full object id");
    }
    ObjectId id = ObjectId.fromString(newId);
    try {
      cache.fetchObject(repo, upstream.remoteUrl(repo), upstream.readToken(run, repo), id);
    } catch (UpstreamException e) {
      throw new Unreadable("pushgate could not fetch " + id.name() + " from " + repo
          + " to judge it (" + e.getMessage() + ")");
    }
    try (AutoCloseable reading = cache.reading(repo); Repository db = cache.open(repo)) {
      Collection<Ref> upstreamRefs = new ArrayList<>(db.getRefDatabase().getRefsByPrefix("refs/"));
      ReceiveCommand cmd = new ReceiveCommand(ObjectId.zeroId(), id, ref);
      List<String> workflows = List.copyOf(UpdateCommands.workflowFiles(db, cmd, upstreamRefs));
      try (ContentJudge judge = new ContentJudge(db, rules, SecretScanner.standard())) {
        return new Brought(ContentVerdict.alone(judge.findings(cmd, upstreamRefs)), workflows);
      }
    } catch (Exception e) {
      throw new Unreadable("pushgate could not read the commits " + id.name() + " reaches ("
          + e.getClass().getSimpleName() + ")");
    }
  }
}
