package dev.pushgate.gateway;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.eclipse.jgit.errors.CorruptObjectException;
import org.eclipse.jgit.lib.AnyObjectId;
import org.eclipse.jgit.lib.BlobObjectChecker;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.GitmoduleEntry;
import org.eclipse.jgit.lib.ObjectChecker;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Git's fsck of every object a push sends, whose list of {@code .gitmodules} files names only
 * blobs the pack carries. JGit's receive-pack reads every blob on that list from the repository
 * and checks it as a {@code .gitmodules} file before its connectivity walk: a pushed tree naming
 * an object only a refused push left in the cache would have it read and judged (one answer if
 * it parses, another if it does not, a third if it is absent). A listed blob the pack does not
 * carry is checked after the walk instead, and only if upstream's refs reach it ({@link
 * PackReachCheck}).
 */
final class ReceivedObjectChecker extends ObjectChecker {
  private final Set<ObjectId> receivedBlobs = new HashSet<>();

  @Override
  public void check(AnyObjectId id, int objType, byte[] raw) throws CorruptObjectException {
    super.check(id, objType, raw);
    if (objType == Constants.OBJ_BLOB && id != null) {
      receivedBlobs.add(id.copy());
    }
  }

  @Override
  public BlobObjectChecker newBlobObjectChecker() {
    BlobObjectChecker own = super.newBlobObjectChecker();
    BlobObjectChecker checker = own != null ? own : BlobObjectChecker.NULL_CHECKER;
    return new BlobObjectChecker() {
      @Override
      public void update(byte[] in, int offset, int len) {
        checker.update(in, offset, len);
      }

      @Override
      public void endBlob(AnyObjectId id) throws CorruptObjectException {
        checker.endBlob(id);
        if (id != null) {
          receivedBlobs.add(id.copy());
        }
      }
    };
  }

  /** The {@code .gitmodules} files whose blob the pack carries: JGit checks those. */
  @Override
  public List<GitmoduleEntry> getGitsubmodules() {
    return select(true);
  }

  /** The {@code .gitmodules} files whose blob the pack does not carry. */
  List<GitmoduleEntry> gitmodulesNotReceived() {
    return select(false);
  }

  private List<GitmoduleEntry> select(boolean received) {
    List<GitmoduleEntry> selected = new ArrayList<>();
    for (GitmoduleEntry e : super.getGitsubmodules()) {
      if (receivedBlobs.contains(e.getBlobId()) == received) {
        selected.add(e);
      }
    }
    return selected;
  }
}
