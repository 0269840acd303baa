package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.Wait;
import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.transport.RefSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cache's compaction builds a bitmap index only for a history large enough for clones to
 * need one (issue 33: the bitmap was most of a compaction's CPU), and loses no object either way.
 */
class CacheCompactionTest {
  private static final RepoSlug REPO = RepoSlug.parse("acme/widget");

  @TempDir Path tmp;
  private Repository upstream;
  private CacheRepositories repositories;
  private CacheCompaction compaction;

  @BeforeEach
  void setUp() throws Exception {
    upstream = TestRepos.bare(tmp.resolve("upstream.git"));
    repositories = new CacheRepositories(tmp.resolve("cache"));
  }

  @AfterEach
  void stop() {
    if (compaction != null) {
      compaction.close();
    }
  }

  @Test
  void aSmallCacheIsCompactedWithoutABitmapIndex() throws Exception {
    compaction = new CacheCompaction(repositories, new LandedRefs(repositories));
    ObjectId tip = crowdTheCache();

    compaction.compactIfCrowded(REPO);

    assertCompactedKeeping(tip);
    assertThat(packFiles(".bitmap")).as("bitmap indexes in the cache").isEmpty();
  }

  @Test
  void aCacheFromTheBitmapThresholdIsCompactedWithABitmapIndex() throws Exception {
    compaction = new CacheCompaction(repositories, new LandedRefs(repositories), 1);
    ObjectId tip = crowdTheCache();

    compaction.compactIfCrowded(REPO);

    assertCompactedKeeping(tip);
    assertThat(packFiles(".bitmap")).as("bitmap indexes in the cache").hasSize(1);
  }

  /**
   * A decision of what a run reaches went past its bound ({@link Reach}): the cache is compacted
   * with a bitmap index, though it is small and has few packs, so that the next one is cheap.
   */
  @Test
  void aCacheWhoseReachWentPastItsBoundIsCompactedWithABitmapIndex() throws Exception {
    compaction = new CacheCompaction(repositories, new LandedRefs(repositories));
    ObjectId tip = fetchIntoTheCache(3);
    assertThat(packFiles(".pack")).hasSize(3);

    compaction.compactWithBitmaps(REPO);

    Wait.until(Duration.ofSeconds(60), "the cache's packs to be compacted to one",
        () -> packFiles(".pack").size() == 1);
    assertThat(packFiles(".bitmap")).as("bitmap indexes in the cache").hasSize(1);
    try (Repository db = repositories.open(REPO)) {
      assertThat(db.exactRef("refs/heads/main").getObjectId()).isEqualTo(tip);
    }
  }

  /** Past the bound by one pack: each commit fetched into the cache on its own, as a push. */
  private ObjectId crowdTheCache() throws Exception {
    ObjectId tip = fetchIntoTheCache(CacheCompaction.COMPACT_ABOVE_PACKS + 1);
    assertThat(packFiles(".pack")).hasSizeGreaterThan(CacheCompaction.COMPACT_ABOVE_PACKS);
    return tip;
  }

  /** {@code n} commits, each fetched into the cache on its own: a pack each. */
  private ObjectId fetchIntoTheCache(int n) throws Exception {
    ObjectId tip = null;
    for (int i = 0; i < n; i++) {
      tip = i == 0
          ? TestRepos.commit(upstream, "c0", Map.of("README", "v0"))
          : TestRepos.commit(upstream, "c" + i, Map.of("README", "v" + i), tip);
      TestRepos.setRef(upstream, "refs/heads/main", tip);
      try (Repository db = repositories.open(REPO); Git git = Git.wrap(db)) {
        git.fetch().setRemote(upstream.getDirectory().toURI().toString())
            .setRefSpecs(new RefSpec("+refs/heads/main:refs/heads/main")).call();
      }
    }
    return tip;
  }

  private void assertCompactedKeeping(ObjectId tip) throws Exception {
    Wait.until(Duration.ofSeconds(60), "the cache's packs to be compacted to one",
        () -> packFiles(".pack").size() == 1);
    try (Repository db = repositories.open(REPO)) {
      ((FileRepository) db).getObjectDatabase().getPacks(); // rescans the directory
      assertThat(db.exactRef("refs/heads/main").getObjectId()).isEqualTo(tip);
      try (Git git = Git.wrap(db)) {
        assertThat(git.log().add(tip).call()).hasSize(CacheCompaction.COMPACT_ABOVE_PACKS + 1);
      }
    }
  }

  private List<Path> packFiles(String suffix) throws IOException {
    try (Stream<Path> files = Files.list(repositories.directoryOf(REPO).resolve("objects/pack"))) {
      return files.filter(f -> f.getFileName().toString().endsWith(suffix)).toList();
    }
  }
}
