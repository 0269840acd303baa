package dev.pushgate.gateway;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import org.eclipse.jgit.errors.PackProtocolException;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.transport.UploadPack;
import org.eclipse.jgit.transport.WantNotValidException;

/**
 * A fetch may ask only for objects that upstream's branches and tags reach, as the cache holds
 * them now ({@link Reach}): never for what a push left in the cache without upstream taking it
 * (a refused push, one held for an approver), which another run of the repository could
 * otherwise read by its id.
 *
 * <p>Unlike JGit's {@code ReachableCommitRequestValidator}, trees and blobs are allowed when
 * reachable, without pack bitmaps: a partial clone ({@code --filter=blob:none}) asks for the
 * blobs of its checkout by id, which the walk meets in the tips' own trees.
 */
final class ReachableWants implements UploadPack.RequestValidator {
  @Override
  public void checkWants(UploadPack up, List<ObjectId> wants)
      throws PackProtocolException, IOException {
    Repository db = up.getRepository();
    try (var reader = db.newObjectReader()) {
      Set<ObjectId> unreached = Reach.unreached(reader, Reach.branchesAndTags(db), wants);
      if (!unreached.isEmpty()) {
        throw new WantNotValidException(unreached.iterator().next());
      }
    }
  }
}
