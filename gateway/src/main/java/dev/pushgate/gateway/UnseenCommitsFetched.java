package dev.pushgate.gateway;

import dev.pushgate.gateway.api.UnseenCommits;
import dev.pushgate.policy.ContentRules;
import dev.pushgate.policy.Judgement;
import dev.pushgate.policy.UpdateKind;
import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.transport.ReceiveCommand;

/**
 * A ref move through the API judged as a push of the commits it brings: the new id is fetched
 * into the gateway's cache with the run's read token, and what it reaches that no branch or tag
 * upstream reaches is judged by the push path's own {@link ContentJudge} and workflow reader,
 * exactly as a {@code git push} of it would be, from the ref's value upstream. A move that names
 * its ref only by node id ({@code updateRef}) has no old value to compare with: every workflow
 * file the new commit holds counts as changed.
 *
 * <p>The reading is one judgement with one {@link JudgementBudget}, as a push's is: the workflow
 * walk asks it at every commit and tree entry, the content judge at every step, and once it is
 * spent the move is refused as not judged, never let through unread.
 *
 * @param budgets a new budget for each judgement (a test's is short or steps its clock)
 */
record UnseenCommitsFetched(UpstreamCache cache, UpstreamAccess upstream, RunContext run,
    Supplier<JudgementBudget> budgets) implements UnseenCommits {

  /** Judgements with the push's budget ({@link ContentJudge#BUDGET}). */
  UnseenCommitsFetched(UpstreamCache cache, UpstreamAccess upstream, RunContext run) {
    this(cache, upstream, run, () -> JudgementBudget.of(ContentJudge.BUDGET));
  }

  /**
   * Judged with upstream's symrefs as listed now ({@link UpstreamCache#symrefsListedNow}): one
   * ref-list request per ref write through the API, which no advertisement precedes. A ref the
   * call names otherwise than {@code refs/...} is judged by name.
   */
  @Override
  public Judgement judgeWrite(RepoSlug repo, String ref, UpdateKind kind, RefJudge rules) {
    if (!ref.startsWith(Constants.R_REFS)) {
      return rules.judge(ref, kind);
    }
    UpstreamSymrefs symrefs;
    try {
      symrefs = cache.symrefsListedNow(repo, upstream.remoteUrl(repo),
          upstream.readToken(run, repo));
    } catch (UpstreamException e) {
      symrefs = UpstreamSymrefs.unknown(repo); // the judge refuses, saying so
    }
    return symrefs.judging(rules::judge).judge(ref, kind);
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
    } catch (RepositoryBusy e) {
      throw new Unreadable("pushgate could not fetch " + id.name() + " to judge it: "
          + e.getMessage());
    }
    JudgementBudget budget = budgets.get();
    try (AutoCloseable reading = cache.reading(repo); Repository db = cache.open(repo)) {
      Collection<Ref> upstreamRefs = new ArrayList<>(db.getRefDatabase().getRefsByPrefix("refs/"));
      ReceiveCommand cmd = new ReceiveCommand(upstreamValue(db, ref), id, ref);
      List<String> workflows = List.copyOf(ref.startsWith(Constants.R_REFS)
          ? UpdateCommands.workflowFiles(db, cmd, upstreamRefs, budget::check)
          : UpdateCommands.workflowFilesHeld(db, id, budget::check));
      try (ContentJudge judge = new ContentJudge(db, rules, SecretScanner.standard(), budget)) {
        return new Brought(ContentVerdict.alone(judge.findings(cmd, upstreamRefs)), workflows);
      }
    } catch (JudgementBudget.OutOfTime e) {
      // Workflow files not known, so push-workflows cannot be asked: fail closed, as a push does.
      throw new Unreadable("the workflow files they change could not be read within "
          + budget.budget().toSeconds() + " s; nothing was changed, move the ref in smaller"
          + " steps (fewer new commits at a time)");
    } catch (Exception e) {
      throw new Unreadable("pushgate could not read the commits " + id.name() + " reaches ("
          + e.getClass().getSimpleName() + ")");
    }
  }

  /**
   * The ref's value upstream, as the cache mirrors it just after the fetch: what the move
   * replaces, so that its old tree is compared with its new one as a push's is (a fast-forward
   * or a rewind onto commits upstream already has changes workflows too). Never what the call
   * says the old value is ({@code beforeOid}): GitHub checks that against its own value, and
   * this judges what GitHub would do. Zero when upstream has no such ref (a create).
   */
  private static ObjectId upstreamValue(Repository db, String ref) throws IOException {
    if (!ref.startsWith(Constants.R_REFS)) {
      return ObjectId.zeroId();
    }
    Ref r = db.exactRef(ref);
    return r == null || r.getObjectId() == null ? ObjectId.zeroId() : r.getObjectId();
  }
}
