package dev.pushgate.gateway;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
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
 * reachable, with pack bitmaps or without: a partial clone ({@code --filter=blob:none}) asks for
 * the blobs of its checkout by id, which the walk meets in the tips' own trees. A decision past
 * its bound ({@link ReachBound#forFetch}) refuses the request with what to do ({@link
 * #UNDECIDED}), and the cache's compaction, with bitmaps, is asked for.
 */
final class ReachableWants implements UploadPack.RequestValidator {
  /** What git shows (after {@code remote error: }) past the bound, after the bound's words. */
  static final String UNDECIDED = "; nothing was sent. The gateway is compacting this"
      + " repository's cache with a bitmap index, which decides it at once: fetch again in a"
      + " minute, or fetch a branch or tag by name";

  private final Supplier<ReachBound> bound;
  private final Runnable compact;

  /**
   * @param bound each request's bound, made afresh
   * @param compact asks for the cache's compaction with bitmaps (a decision went past its bound)
   */
  ReachableWants(Supplier<ReachBound> bound, Runnable compact) {
    this.bound = bound;
    this.compact = compact;
  }

  @Override
  public void checkWants(UploadPack up, List<ObjectId> wants)
      throws PackProtocolException, IOException {
    Repository db = up.getRepository();
    Set<ObjectId> unreached;
    try (var reader = db.newObjectReader()) {
      unreached = Reach.unreached(reader, Reach.branchesAndTags(db), wants, bound.get(),
          compact);
    } catch (Reach.Undecided e) {
      throw new PackProtocolException(e.getMessage() + UNDECIDED);
    }
    if (!unreached.isEmpty()) {
      throw new WantNotValidException(unreached.iterator().next());
    }
  }
}
