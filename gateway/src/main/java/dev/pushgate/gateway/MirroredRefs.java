package dev.pushgate.gateway;

import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.eclipse.jgit.lib.BatchRefUpdate;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.eclipse.jgit.transport.RefSpec;

/**
 * The branches and tags the fetch cache mirrors of upstream: what the cache holds, which of
 * upstream's listed ids it lacks, and moving its refs to upstream's list in one batch.
 */
final class MirroredRefs {
  /** Only branches and tags are mirrored. */
  static final List<RefSpec> SPECS =
      List.of(new RefSpec("+refs/heads/*:refs/heads/*"), new RefSpec("+refs/tags/*:refs/tags/*"));

  private MirroredRefs() {}

  /** The cache's branches and tags. */
  static Map<String, ObjectId> of(Repository cache) throws IOException {
    Map<String, ObjectId> mirrored = new HashMap<>();
    for (Ref r : cache.getRefDatabase().getRefsByPrefix(Constants.R_HEADS, Constants.R_TAGS)) {
      if (r.getObjectId() != null) {
        mirrored.put(r.getName(), r.getObjectId());
      }
    }
    return mirrored;
  }

  /** The ids upstream listed whose objects the cache lacks. */
  static Set<ObjectId> wanted(Repository cache, Map<String, ObjectId> listed)
      throws IOException {
    Set<ObjectId> wants = new LinkedHashSet<>();
    for (ObjectId id : listed.values()) {
      if (!cache.getObjectDatabase().has(id)) {
        wants.add(id);
      }
    }
    return wants;
  }

  /** {@link #moveOnce}, again while another writer holds a ref's lock for a moment. */
  static void move(Repository cache, Map<String, ObjectId> listed) throws IOException {
    // Upstream may have moved to objects a push brought into the cache: force them first.
    CacheRepository.forceReceived(cache);
    for (int attempt = 1; !moveOnce(cache, listed); attempt++) {
      // A ref lock held for a moment by another writer fails the batch whole: try again.
      if (attempt == 3) {
        throw new IOException("the cache's refs stayed locked");
      }
      sleep(50L * attempt);
    }
  }

  /** Forces the cache's branches and tags to {@code listed}, all or none; false on a lock. */
  private static boolean moveOnce(Repository cache, Map<String, ObjectId> listed)
      throws IOException {
    Map<String, ObjectId> mirrored = of(cache);
    BatchRefUpdate batch = cache.getRefDatabase().newBatchUpdate();
    batch.setAllowNonFastForwards(true);
    batch.disableRefLog();
    listed.forEach((name, id) -> {
      ObjectId old = mirrored.getOrDefault(name, ObjectId.zeroId());
      if (!old.equals(id)) {
        batch.addCommand(new ReceiveCommand(old, id, name));
      }
    });
    mirrored.forEach((name, old) -> {
      if (!listed.containsKey(name)) {
        batch.addCommand(new ReceiveCommand(old, ObjectId.zeroId(), name));
      }
    });
    if (batch.getCommands().isEmpty()) {
      return true;
    }
    try (RevWalk walk = new RevWalk(cache)) {
      batch.execute(walk, NullProgressMonitor.INSTANCE);
    }
    for (ReceiveCommand c : batch.getCommands()) {
      if (c.getResult() == ReceiveCommand.Result.LOCK_FAILURE) {
        return false;
      }
      if (c.getResult() != ReceiveCommand.Result.OK) {
        throw new IOException("could not move the cache's " + c.getRefName() + ": "
            + c.getResult());
      }
    }
    return true;
  }

  /** Whether {@code e} or a cause of it speaks of a lock (another writer's, held a moment). */
  static boolean mentionsLock(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = t.getMessage();
      if (m != null && m.toLowerCase(Locale.ROOT).contains("lock")) {
        return true;
      }
    }
    return false;
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
