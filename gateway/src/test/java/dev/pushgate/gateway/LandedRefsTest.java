package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.Wait;
import dev.pushgate.types.RepoSlug;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pushed pack's {@code .keep} goes only under the repository's lock, once the refs its push
 * landed are written: a compaction, which holds that lock from deciding which packs it replaces
 * to deleting them, never finds the pack unkept while no ref it can see reaches its objects.
 */
class LandedRefsTest {
  private static final RepoSlug REPO = RepoSlug.parse("acme/widget");

  @TempDir Path dir;

  @Test
  void whatRunsAfterTheLandedRefsWaitsForTheRepositorysLockAndSeesThemWritten() throws Exception {
    CacheRepositories repositories = new CacheRepositories(dir.resolve("cache"));
    LandedRefs landed = new LandedRefs(repositories);
    ObjectId pushed;
    try (Repository cache = repositories.open(REPO)) {
      pushed = TestRepos.commit(cache, "pushed", Map.of("README", "pushed"));
    }
    landed.landed(REPO, List.of(
        new ReceiveCommand(ObjectId.zeroId(), pushed, "refs/heads/main")),
        java.util.Optional.empty());
    AtomicReference<ObjectId> seenByUnkeep = new AtomicReference<>();
    ReentrantLock lock = repositories.lockOf(REPO);

    lock.lock(); // as a compaction holds it
    try {
      landed.writeInBackgroundThen(REPO, () -> {
        try (Repository cache = repositories.open(REPO)) {
          seenByUnkeep.set(TestRepos.idOf(cache, "refs/heads/main"));
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      Wait.until(Duration.ofSeconds(30), "the ref writer to wait for the lock",
          lock::hasQueuedThreads);
      assertThat(seenByUnkeep).as("nothing runs while the lock is held").hasValue(null);
    } finally {
      lock.unlock();
    }

    Wait.until(Duration.ofSeconds(30), "the .keep's removal to run", () -> seenByUnkeep.get() != null);
    assertThat(seenByUnkeep.get()).as("the landed ref, written before it").isEqualTo(pushed);
  }

  /**
   * A push's pack held in memory is written just before its refs; one that cannot be written
   * lands none of them (the next sync fetches them from upstream), and its memory is given back.
   * Once it can be written, a landed push's pack and refs are in the cache.
   */
  @Test
  void aPushsPackThatCannotBeWrittenLandsNoneOfItsRefs() throws Exception {
    CacheRepositories repositories = new CacheRepositories(dir.resolve("cache"));
    LandedRefs landed = new LandedRefs(repositories);
    long budget = ReceivedInMemory.BUDGET.left();
    Repository client = TestRepos.bare(dir.resolve("client.git"));
    ObjectId first = TestRepos.commit(client, "first", Map.of("README", "first"));
    ObjectId second = TestRepos.commit(client, "second", Map.of("README", "second"));
    java.io.File gitDir;
    try (Repository cache = repositories.open(REPO)) {
      gitDir = cache.getDirectory();
    }
    Path packDir = gitDir.toPath().resolve("objects/pack");
    java.nio.file.Files.createDirectories(packDir.getParent());
    org.eclipse.jgit.util.FileUtils.delete(packDir.toFile(),
        org.eclipse.jgit.util.FileUtils.RECURSIVE | org.eclipse.jgit.util.FileUtils.SKIP_MISSING);
    java.nio.file.Files.writeString(packDir, "not a directory"); // no pack can be named in it

    landed.landed(REPO, List.of(new ReceiveCommand(ObjectId.zeroId(), first, "refs/heads/main")),
        java.util.Optional.of(held(repositories, client, first)));
    assertThat(ReceivedInMemory.BUDGET.left()).isLessThan(budget);
    writeUnderTheLock(repositories, landed);

    try (Repository cache = repositories.open(REPO)) {
      assertThat(cache.exactRef("refs/heads/main")).as("no ref names what is not there").isNull();
    }
    assertThat(ReceivedInMemory.BUDGET.left()).as("the memory given back").isEqualTo(budget);

    java.nio.file.Files.delete(packDir);
    landed.landed(REPO, List.of(new ReceiveCommand(ObjectId.zeroId(), second, "refs/heads/main")),
        java.util.Optional.of(held(repositories, client, second)));
    writeUnderTheLock(repositories, landed);
    try (org.eclipse.jgit.internal.storage.file.FileRepository reopened =
        new org.eclipse.jgit.internal.storage.file.FileRepository(gitDir)) {
      assertThat(TestRepos.idOf(reopened, "refs/heads/main")).isEqualTo(second);
      assertThat(reopened.parseCommit(second).getShortMessage()).isEqualTo("second");
    }
    assertThat(ReceivedInMemory.BUDGET.left()).isEqualTo(budget);
  }

  /** {@code tip}'s objects, parsed by a push's view of the cache that holds them in memory. */
  private static ReceivedInMemory held(CacheRepositories repositories, Repository client,
      ObjectId tip) throws Exception {
    java.io.ByteArrayOutputStream pack = new java.io.ByteArrayOutputStream();
    try (org.eclipse.jgit.internal.storage.pack.PackWriter w =
        new org.eclipse.jgit.internal.storage.pack.PackWriter(client)) {
      w.preparePack(org.eclipse.jgit.lib.NullProgressMonitor.INSTANCE, java.util.Set.of(tip),
          java.util.Set.of());
      w.writePack(org.eclipse.jgit.lib.NullProgressMonitor.INSTANCE,
          org.eclipse.jgit.lib.NullProgressMonitor.INSTANCE, pack);
    }
    try (Repository cache = repositories.open(REPO)) {
      ReceivingCache view = new ReceivingCache((CacheRepository) cache, PackCopy.NONE,
          Runnable::run, ThinPackBases.Rule.ANY, true);
      try (org.eclipse.jgit.lib.ObjectInserter ins = view.newObjectInserter()) {
        ins.newPackParser(new java.io.ByteArrayInputStream(pack.toByteArray()))
            .parse(org.eclipse.jgit.lib.NullProgressMonitor.INSTANCE);
      }
      return view.held().orElseThrow();
    }
  }

  private static void writeUnderTheLock(CacheRepositories repositories, LandedRefs landed) {
    ReentrantLock lock = repositories.lockOf(REPO);
    lock.lock();
    try {
      landed.write(REPO);
    } finally {
      lock.unlock();
    }
  }

  /**
   * A ref write waiting for the repository's lock (a fetch from upstream holds it for as long as
   * upstream takes) is ended by the stop, which waits for the writer's thread; what it would have
   * written stays pending, for the next sync.
   */
  @Test
  void aStopEndsAWriteWaitingForTheRepositorysLock() throws Exception {
    CacheRepositories repositories = new CacheRepositories(dir.resolve("cache"));
    LandedRefs landed = new LandedRefs(repositories);
    repositories.open(REPO).close();
    AtomicReference<String> ran = new AtomicReference<>();
    ReentrantLock lock = repositories.lockOf(REPO);
    lock.lock();
    try {
      landed.writeInBackgroundThen(REPO, () -> ran.set("after the stop"));
      Wait.until(Duration.ofSeconds(30), "the ref writer to wait for the lock",
          lock::hasQueuedThreads);

      landed.close();

      assertThat(lock.hasQueuedThreads()).as("a write still waiting after the stop").isFalse();
    } finally {
      lock.unlock();
    }
    assertThat(ran).hasValue(null);
  }
}
