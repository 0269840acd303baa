package dev.pushgate.forge;

import java.io.File;
import java.io.IOException;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.internal.storage.file.GC;
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
 * only the short update-and-maybe-repack step is one at a time.
 */
final class ForgeRefUpdates implements PreReceiveHook {
  private static final Logger log = LoggerFactory.getLogger(ForgeRefUpdates.class);
  /** JGit's and git's own default for {@code gc.autoPackLimit}. */
  private static final int DEFAULT_PACK_LIMIT = 50;
  /** The in-memory section where {@link #takeOverAutoGc} keeps the operator's setting. */
  private static final String OPERATORS_AUTOGC = "pushgate-forge-operator";

  private final ConcurrentHashMap<File, ReentrantLock> locks = new ConcurrentHashMap<>();
  private final ThreadLocal<ReentrantLock> held = new ThreadLocal<>();

  /**
   * Makes {@code rp} use these hooks instead of JGit's background auto-gc. A repository whose
   * config sets {@code receive.autogc=false} is never compacted.
   */
  void install(ReceivePack rp) {
    boolean maintain = takeOverAutoGc(rp.getRepository().getConfig());
    rp.setPreReceiveHook(this);
    rp.setPostReceiveHook((r, commands) -> afterReceive(r, commands, maintain));
  }

  /**
   * Turns JGit's auto-gc off in memory only (the repository's file keeps whatever an operator
   * set) and says whether the operator's setting asks for compaction. The repository is shared
   * by the forge's requests (kept open), so the operator's setting is kept beside JGit's, under
   * a key of the forge's own: read afresh with the file when JGit reloads it.
   */
  static boolean takeOverAutoGc(StoredConfig config) {
    synchronized (config) {
      String kept = config.getString(OPERATORS_AUTOGC, null, "receiveAutogc");
      if (kept != null) {
        return Boolean.parseBoolean(kept);
      }
      boolean maintain = config.getBoolean("receive", null, "autogc", true);
      config.setBoolean(OPERATORS_AUTOGC, null, "receiveAutogc", maintain);
      config.setBoolean("receive", null, "autogc", false);
      return maintain;
    }
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

  /** What the forge's API does to a repository's refs, one at a time with pushes to it. */
  interface RefWork<T> {
    T run() throws IOException;
  }

  <T> T exclusively(File repositoryDir, RefWork<T> work) throws IOException {
    ReentrantLock lock = locks.computeIfAbsent(repositoryDir, k -> new ReentrantLock());
    lock.lock();
    try {
      return work.run();
    } finally {
      lock.unlock();
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
      FileRepository files = (FileRepository) repo;
      int limit = repo.getConfig().getInt("gc", null, "autopacklimit", DEFAULT_PACK_LIMIT);
      if (limit <= 0 || files.getObjectDatabase().getPacks().size() <= limit) {
        return;
      }
      GC gc = new GC(files);
      // Replaced packs go at once, or every later push would repack again.
      gc.setPackExpireAgeMillis(0);
      // Objects only: packing refs would race the ref advertisements, which are read without
      // this lock (a ref briefly read from the old packed-refs after its loose file went).
      gc.repack();
    } catch (IOException | RuntimeException e) {
      log.warn("local forge: maintenance of {} failed: {}", repo.getDirectory(), e.getMessage());
    }
  }
}
