package dev.pushgate.forge;

import java.io.IOException;
import java.util.Collection;
import java.util.Optional;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevObject;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.transport.PreReceiveHook;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.eclipse.jgit.transport.ReceivePack;
import org.eclipse.jgit.treewalk.EmptyTreeIterator;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.AndTreeFilter;
import org.eclipse.jgit.treewalk.filter.PathFilter;
import org.eclipse.jgit.treewalk.filter.TreeFilter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GitHub's refusal of a workflow change pushed with an App token that lacks the {@code workflows}
 * permission: a commit new to the repository that adds, changes or removes a file under
 * {@code .github/workflows/} (against any of its parents; a root commit, against nothing) fails
 * its command with GitHub's own message. Written apart from the gateway's detection, so that the
 * gateway's is tested against a refusal it did not write.
 */
final class ForgeWorkflowCheck implements PreReceiveHook {
  private static final Logger log = LoggerFactory.getLogger(ForgeWorkflowCheck.class);
  private static final String WORKFLOWS = ".github/workflows";

  /** A hook for a push whose token {@code mayChangeWorkflows}: the null hook when it may. */
  static PreReceiveHook forToken(boolean mayChangeWorkflows) {
    return mayChangeWorkflows ? PreReceiveHook.NULL : new ForgeWorkflowCheck();
  }

  private ForgeWorkflowCheck() {}

  @Override
  public void onPreReceive(ReceivePack rp, Collection<ReceiveCommand> commands) {
    for (ReceiveCommand cmd : commands) {
      if (cmd.getResult() != ReceiveCommand.Result.NOT_ATTEMPTED
          || cmd.getType() == ReceiveCommand.Type.DELETE) {
        continue;
      }
      try {
        Optional<String> workflow = firstWorkflowChanged(rp.getRepository(), cmd.getNewId());
        if (workflow.isPresent()) {
          cmd.setResult(ReceiveCommand.Result.REJECTED_OTHER_REASON,
              "refusing to allow a GitHub App to create or update workflow `" + workflow.get()
                  + "` without `workflows` permission");
        }
      } catch (IOException | RuntimeException e) {
        log.warn("local forge: could not check {} for workflow changes: {}", cmd.getRefName(),
            e.toString());
        cmd.setResult(ReceiveCommand.Result.REJECTED_OTHER_REASON, "internal server error");
      }
    }
  }

  private static Optional<String> firstWorkflowChanged(Repository db, ObjectId tip)
      throws IOException {
    try (RevWalk walk = new RevWalk(db)) {
      RevObject o = walk.peel(walk.parseAny(tip));
      if (!(o instanceof RevCommit start)) {
        return Optional.empty();
      }
      walk.markStart(start);
      for (Ref ref : db.getRefDatabase().getRefs()) {
        if (ref.getObjectId() != null
            && walk.peel(walk.parseAny(ref.getObjectId())) instanceof RevCommit known) {
          walk.markUninteresting(known);
        }
      }
      for (RevCommit c; (c = walk.next()) != null; ) {
        if (c.getParentCount() == 0) {
          Optional<String> added = firstDifference(db, walk, null, c);
          if (added.isPresent()) {
            return added;
          }
        }
        for (RevCommit parent : c.getParents()) {
          Optional<String> changed = firstDifference(db, walk, parent, c);
          if (changed.isPresent()) {
            return changed;
          }
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<String> firstDifference(Repository db, RevWalk walk, RevCommit parent,
      RevCommit c) throws IOException {
    try (TreeWalk tw = new TreeWalk(db)) {
      tw.setRecursive(true);
      if (parent == null) {
        tw.addTree(new EmptyTreeIterator());
      } else {
        tw.addTree(walk.parseCommit(parent).getTree());
      }
      tw.addTree(c.getTree());
      tw.setFilter(AndTreeFilter.create(PathFilter.create(WORKFLOWS), TreeFilter.ANY_DIFF));
      return tw.next() ? Optional.of(tw.getPathString()) : Optional.empty();
    }
  }
}
