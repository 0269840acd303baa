package dev.pushgate.gateway;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.errors.PackProtocolException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.ObjectWalk;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevObject;
import org.eclipse.jgit.transport.UploadPack;
import org.eclipse.jgit.transport.WantNotValidException;

/**
 * A fetch may ask only for objects that upstream's branches and tags reach, as the cache holds
 * them now: never for what a push left in the cache without upstream taking it (a refused push,
 * one held for an approver), which another run of the repository could otherwise read by its id.
 *
 * <p>Unlike JGit's {@code ReachableCommitRequestValidator}, trees and blobs are allowed when
 * reachable, without pack bitmaps: a partial clone ({@code --filter=blob:none}) asks for the
 * blobs of its checkout by id. The walk stops as soon as every want was seen, and it meets a
 * checkout's blobs early, since it starts from the tips.
 */
final class ReachableWants implements UploadPack.RequestValidator {
  @Override
  public void checkWants(UploadPack up, List<ObjectId> wants)
      throws PackProtocolException, IOException {
    Repository db = up.getRepository();
    List<Ref> tips = db.getRefDatabase().getRefsByPrefix(Constants.R_HEADS, Constants.R_TAGS);
    Set<ObjectId> unseen = new HashSet<>(wants);
    for (Ref r : tips) {
      unseen.remove(r.getObjectId());
      if (r.getPeeledObjectId() != null) {
        unseen.remove(r.getPeeledObjectId());
      }
    }
    if (unseen.isEmpty()) {
      return;
    }
    try (ObjectWalk walk = new ObjectWalk(db)) {
      boolean treesOrBlobsWanted = false; // or tags: nextObject() meets those too
      for (ObjectId want : unseen) {
        try {
          treesOrBlobsWanted |= walk.parseAny(want).getType() != Constants.OBJ_COMMIT;
        } catch (MissingObjectException e) {
          throw new WantNotValidException(want);
        }
      }
      for (Ref r : tips) {
        if (r.getObjectId() != null) {
          walk.markStart(walk.parseAny(r.getObjectId()));
        }
      }
      for (RevCommit c; (c = walk.next()) != null; ) {
        if (unseen.remove(c) && unseen.isEmpty()) {
          return;
        }
      }
      if (!treesOrBlobsWanted) {
        // Only commits left, none reached: walking every tree and blob of the history
        // would find none of them, and would let a run spend the gateway's CPU at will.
        throw new WantNotValidException(unseen.iterator().next());
      }
      for (RevObject o; (o = walk.nextObject()) != null; ) {
        if (unseen.remove(o) && unseen.isEmpty()) {
          return;
        }
      }
    }
    throw new WantNotValidException(unseen.iterator().next());
  }
}
