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
        new ReceiveCommand(ObjectId.zeroId(), pushed, "refs/heads/main")));
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
