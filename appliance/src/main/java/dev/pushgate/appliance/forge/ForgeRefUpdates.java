package dev.pushgate.appliance.forge;

import java.io.File;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.transport.PreReceiveHook;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.eclipse.jgit.transport.ReceivePack;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serialises the ref updates of concurrent pushes to one forge repository, and its maintenance
 * with them. JGit's own auto-gc after a receive packs refs in the background, taking the lock of
 * every loose ref, so a push to another branch landing meanwhile failed with "failed to lock";
 * GitHub never answers a push to an unrelated branch that way. Packs are received in parallel;
 * only the short update-and-maybe-gc step is one at a time.
 */
final class ForgeRefUpdates implements PreReceiveHook {
  private static final Logger log = LoggerFactory.getLogger(ForgeRefUpdates.class);

  private final ConcurrentHashMap<File, ReentrantLock> locks = new ConcurrentHashMap<>();
  private final ThreadLocal<ReentrantLock> held = new ThreadLocal<>();

  /**
   * Makes {@code rp} use these hooks instead of JGit's background auto-gc. A repository whose
   * config sets {@code receive.autogc=false} is never compacted.
   */
  void install(ReceivePack rp) {
    // In memory only: the repository's file keeps whatever an operator set.
    StoredConfig config = rp.getRepository().getConfig();
    boolean maintain = config.getBoolean("receive", null, "autogc", true);
    config.setBoolean("receive", null, "autogc", false);
    config.setBoolean("gc", null, "autodetach", false);
    // JGit keeps replaced packs for an hour by default, so every push after the limit would
    // repack again; a pack being received is kept by its .keep file, not by its age.
    config.setString("gc", null, "prunepackexpire", "now");
    rp.setPreReceiveHook(this);
    rp.setPostReceiveHook((r, commands) -> afterReceive(r, commands, maintain));
  }

  @Override
  public void onPreReceive(ReceivePack rp, Collection<ReceiveCommand> commands) {
    ReentrantLock lock =
        locks.computeIfAbsent(rp.getRepository().getDirectory(), k -> new ReentrantLock());
    lock.lock();
    held.set(lock);
  }

  private void afterReceive(ReceivePack rp, Collection<ReceiveCommand> commands,
      boolean maintain) {
    if (held.get() == null) {
      return;
    }
    try {
      if (maintain && !commands.isEmpty()) {
        maintain(rp.getRepository());
      }
    } finally {
      release();
    }
  }

  /** Lets go of a lock this thread still holds; for a request that ended without post-receive. */
  void release() {
    ReentrantLock lock = held.get();
    held.remove();
    if (lock != null && lock.isHeldByCurrentThread()) {
      lock.unlock();
    }
  }

  private static void maintain(Repository repo) {
    try {
      // Auto mode does nothing until there are too many packs or loose objects; in the
      // foreground (gc.autodetach off above), so that it finishes while the lock is held.
      repo.autoGC(NullProgressMonitor.INSTANCE);
    } catch (RuntimeException e) {
      log.warn("local forge: maintenance of {} failed: {}", repo.getDirectory(), e.getMessage());
    }
  }
}
