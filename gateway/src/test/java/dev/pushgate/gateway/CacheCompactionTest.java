package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.Wait;
import dev.pushgate.types.RepoSlug;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.internal.storage.file.Pack;
import org.eclipse.jgit.internal.storage.pack.PackExt;
import org.eclipse.jgit.internal.storage.pack.PackWriter;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevObject;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.transport.PackParser;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cache's compaction builds a bitmap index only for a history large enough for clones to
 * need one (issue 33: the bitmap was most of a compaction's CPU), rolls up only what came since
 * its last full compaction while that weighs less than half of it, and loses no object the refs
 * reach either way.
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

  /**
   * A compaction put off while a fetch reads the cache runs once that fetch is answered: the
   * fetch whose sync or reach decision asked for it is a reader itself, and a run that only
   * fetched never got it (a review's: a refusal said the cache was being compacted with
   * bitmaps, and it never was).
   */
  @Test
  void aCompactionPutOffWhileAFetchReadsRunsOnceTheLastReaderCloses() throws Exception {
    compaction = new CacheCompaction(repositories, new LandedRefs(repositories));
    ObjectId tip = crowdTheCache();
    AutoCloseable first = compaction.reading(REPO);
    AutoCloseable second = compaction.reading(REPO);

    compaction.compactIfCrowded(REPO);
    Wait.until(Duration.ofSeconds(60), "the compaction put off", () -> compaction.putOff(REPO));
    first.close();
    assertThat(compaction.putOff(REPO)).as("still read by the second fetch").isTrue();
    assertThat(packFiles(".pack")).hasSizeGreaterThan(CacheCompaction.COMPACT_ABOVE_PACKS);
    second.close();

    assertCompactedKeeping(tip);
    assertThat(compaction.putOff(REPO)).isFalse();
  }

  /**
   * A compaction waiting for the repository's lock (a fetch from upstream holds it for as long as
   * upstream takes) is ended by the stop, which waits for the compaction's thread: it did not
   * end until the lock was free, so the stop waited its whole bound and the compaction could run
   * after it (a review's).
   */
  @Test
  void aStopEndsACompactionWaitingForTheRepositorysLock() throws Exception {
    compaction = new CacheCompaction(repositories, new LandedRefs(repositories));
    crowdTheCache();
    ReentrantLock lock = repositories.lockOf(REPO);
    lock.lock();
    try {
      compaction.compactIfCrowded(REPO);
      Wait.until(Duration.ofSeconds(60), "the compaction waiting for the lock",
          () -> lock.hasQueuedThreads());

      compaction.close();

      assertThat(lock.hasQueuedThreads()).as("a compaction still waiting after the stop").isFalse();
    } finally {
      lock.unlock();
    }
    assertThat(packFiles(".pack")).as("nothing compacted")
        .hasSizeGreaterThan(CacheCompaction.COMPACT_ABOVE_PACKS);
  }

  @Test
  void whatCameSinceAFullCompactionIsRolledUpWithoutRepackingTheBase() throws Exception {
    ObjectId tip = compactedBase(400);
    Set<String> base = baseRecord();
    assertThat(base).hasSize(1);
    Path basePack = packFiles(".pack").get(0);
    assertThat(base).containsExactly(basePack.getFileName().toString());
    ObjectId unreachable = fetchThenForget("refs/heads/refused", tip);

    tip = crowdTheCache(tip, "b");
    compaction.compactIfCrowded(REPO);

    Wait.until(Duration.ofSeconds(60), "the packs since the base rolled up into one",
        () -> packFiles(".pack").size() == 2);
    assertThat(packFiles(".pack")).as("the base, untouched, and the roll-up").contains(basePack);
    assertThat(baseRecord()).isEqualTo(base);
    assertReachesEverythingFrom(tip, 400 + 2 * (CacheCompaction.COMPACT_ABOVE_PACKS + 1));
    try (Repository db = repositories.open(REPO)) {
      assertThat(db.getObjectDatabase().has(unreachable))
          .as("a commit no ref reaches (a refused push's) goes with the rolled-up packs").isFalse();
    }
  }

  @Test
  void theRollUpsKeptFormAGeometricSeriesSoARollUpLeavesTheLargerEarlierOnesAsTheyAre()
      throws Exception {
    ObjectId tip = compactedBase(600);
    Path basePack = packFiles(".pack").get(0);

    // 3 objects a commit (commit, tree, README): 180 objects a level of 60 commits
    tip = fetchIntoTheCache(tip, "b", 60);
    Path first = rollUp(2, 1);
    // as many objects again as the first roll-up: it is less than twice them, so it goes too
    tip = fetchIntoTheCache(tip, "c", 60);
    Path second = rollUp(2, 1);
    assertThat(second).isNotEqualTo(first);
    // 126 objects: the second roll-up (360) is more than twice them, so it stays as it is, and
    // the new packs roll up into a level of their own
    ObjectId unreachable = fetchThenForget("refs/heads/refused", tip);
    tip = crowdTheCache(tip, "d");
    Path third = rollUp(3, 2);

    assertThat(packFiles(".pack")).containsExactlyInAnyOrder(basePack, second, third);
    assertThat(levelRecord()).containsExactly(name(second), name(third));
    assertThat(baseRecord()).containsExactly(name(basePack));
    int commits = 600 + (CacheCompaction.COMPACT_ABOVE_PACKS + 1) + 2 * 60
        + (CacheCompaction.COMPACT_ABOVE_PACKS + 1);
    assertReachesEverythingFrom(tip, commits);
    try (Repository db = repositories.open(REPO)) {
      assertThat(db.getObjectDatabase().has(unreachable))
          .as("a commit no ref reaches goes with the packs rolled up").isFalse();
    }

    // 123 objects: the third level (123) is less than twice them, the second less than twice
    // those and the third's together
    tip = crowdTheCache(tip, "e");
    Path fourth = rollUp(2, 1);
    assertThat(packFiles(".pack")).containsExactlyInAnyOrder(basePack, fourth);
    assertReachesEverythingFrom(tip, commits + CacheCompaction.COMPACT_ABOVE_PACKS + 1);
  }

  @Test
  void aRecordedRollUpNoLongerThereMakesTheNextRollUpTakeEverythingAboveTheBase()
      throws Exception {
    ObjectId tip = compactedBase(600);
    Path basePack = packFiles(".pack").get(0);
    tip = fetchIntoTheCache(tip, "b", 120);
    Path first = rollUp(2, 1);
    tip = crowdTheCache(tip, "c");
    rollUp(3, 2);
    assertThat(packFiles(".pack")).contains(first);
    Files.writeString(baseFile(), Files.readString(baseFile()) + CompactionBase.LEVEL + "pack-"
        + "0".repeat(40) + ".pack\n");

    tip = crowdTheCache(tip, "d");

    Path all = rollUp(2, 1);
    assertThat(all).isNotEqualTo(first);
    assertThat(packFiles(".pack")).containsExactlyInAnyOrder(basePack, all);
    assertReachesEverythingFrom(tip, 600 + 120 + 3 * (CacheCompaction.COMPACT_ABOVE_PACKS + 1));
  }

  @Test
  void aLookupThroughThePackListReadBeforeACompactionStillReadsTheReplacedPacksIndexes()
      throws Exception {
    compaction = new CacheCompaction(repositories, new LandedRefs(repositories));
    ObjectId tip = longHistoryInOnePack(400);
    tip = crowdTheCache(tip, "a");
    List<Pack> beforeFull = packsRead(tip);
    compaction.compactIfCrowded(REPO);
    awaitFullCompaction();
    assertStillAnswer(beforeFull, tip);
    assertThat(indexesWithoutPack()).hasSize(beforeFull.size());

    tip = crowdTheCache(tip, "b");
    List<Pack> before = packsRead(tip);
    assertThat(indexesWithoutPack()).as("too new to go: a receive may be renaming one in")
        .hasSize(beforeFull.size());
    age(indexesWithoutPack());
    Path first = rollUp(2, 1);

    assertStillAnswer(before, tip);
    List<Path> leftBehind = indexesWithoutPack();
    assertThat(leftBehind).as("the full compaction's swept, the roll-up's left")
        .hasSize(before.size() - 1).doesNotContainAnyElementsOf(indexesOf(beforeFull));

    tip = crowdTheCache(tip, "c");
    age(leftBehind);
    Path second = rollUp(2, 1);
    assertThat(second).isNotEqualTo(first);
    assertThat(indexesWithoutPack()).as("the next compaction deletes them, and leaves its own")
        .doesNotContainAnyElementsOf(leftBehind)
        .hasSize(CacheCompaction.COMPACT_ABOVE_PACKS + 2);
    assertReachesEverythingFrom(tip, 400 + 3 * (CacheCompaction.COMPACT_ABOVE_PACKS + 1));
  }

  @Test
  void onceTheRolledUpPacksWeighHalfTheBaseEverythingIsRepackedIntoANewBase() throws Exception {
    compaction = new CacheCompaction(repositories, new LandedRefs(repositories));
    ObjectId tip = crowdTheCache(null, "a");
    compaction.compactIfCrowded(REPO);
    awaitFullCompaction();
    Set<String> first = baseRecord();

    tip = crowdTheCache(tip, "b"); // as many objects again as the base
    compaction.compactIfCrowded(REPO);

    Wait.until(Duration.ofSeconds(60), "a full compaction",
        () -> packFiles(".pack").size() == 1 && !baseRecord().equals(first));
    assertThat(baseRecord()).containsExactly(packFiles(".pack").get(0).getFileName().toString());
    assertReachesEverythingFrom(tip, 2 * (CacheCompaction.COMPACT_ABOVE_PACKS + 1));
  }

  @Test
  void aPushedPacksObjectsKeptByItsKeepGoIntoTheBaseSoTheRollUpAfterItsKeepWentLosesNothing()
      throws Exception {
    compaction = new CacheCompaction(repositories, new LandedRefs(repositories));
    ObjectId tip = longHistoryInOnePack(400);
    tip = crowdTheCache(tip, "a");
    // A push in flight, already landed: JGit's .keep keeps its pack, which holds again a blob
    // the commits before it have (a file the push left as it was), as a pack may.
    ObjectId pushed = TestRepos.commit(upstream, "pushed",
        Map.of("README", "av" + CacheCompaction.COMPACT_ABOVE_PACKS, "NEW", "new"), tip);
    Path kept = receiveKept(pushed);
    compaction.compactIfCrowded(REPO);
    Wait.until(Duration.ofSeconds(60), "a full compaction beside the kept pack",
        () -> packFiles(".pack").size() == 2 && baseRecord().size() == 1);
    assertThat(packFiles(".pack")).contains(kept);
    Files.delete(CacheFiles.keepOf(kept)); // the push answered

    tip = crowdTheCache(pushed, "b");
    compaction.compactIfCrowded(REPO);

    Wait.until(Duration.ofSeconds(60), "the packs since the base, the pushed one too, rolled up",
        () -> packFiles(".pack").size() == 2 && !packFiles(".pack").contains(kept));
    assertReachesEverythingFrom(tip, 400 + 2 * (CacheCompaction.COMPACT_ABOVE_PACKS + 1) + 1);
  }

  @Test
  void aBaseRecordNamingAPackNoLongerThereMakesTheNextCompactionAFullOne() throws Exception {
    ObjectId tip = compactedBase(400);
    Files.writeString(baseFile(), Files.readString(baseFile()) + "pack-"
        + "0".repeat(40) + ".pack\n");

    tip = crowdTheCache(tip, "b");
    compaction.compactIfCrowded(REPO);

    Wait.until(Duration.ofSeconds(60), "a full compaction",
        () -> packFiles(".pack").size() == 1 && baseRecord().size() == 1);
    assertReachesEverythingFrom(tip, 400 + 2 * (CacheCompaction.COMPACT_ABOVE_PACKS + 1));
  }

  /**
   * {@code commits} fetched into the cache in one pack, a crowd of packs after them, and the full
   * compaction of both into the base; returns the tip.
   */
  private ObjectId compactedBase(int commits) throws Exception {
    compaction = new CacheCompaction(repositories, new LandedRefs(repositories));
    ObjectId tip = longHistoryInOnePack(commits);
    tip = crowdTheCache(tip, "a");
    compaction.compactIfCrowded(REPO);
    awaitFullCompaction();
    return tip;
  }

  /** {@code n} commits fetched into the cache in one pack. */
  private ObjectId longHistoryInOnePack(int n) throws Exception {
    ObjectId tip = null;
    for (int i = 0; i < n; i++) {
      tip = tip == null
          ? TestRepos.commit(upstream, "h0", Map.of("README", "h0"))
          : TestRepos.commit(upstream, "h" + i, Map.of("README", "h" + i), tip);
    }
    fetch("refs/heads/main", tip);
    return tip;
  }

  /**
   * {@code commit}, its tree and every blob of it (those the cache has too) received into the
   * cache as one pack kept by a {@code .keep}, as JGit's receive-pack keeps a push's, and landed
   * on main; returns the pack.
   */
  private Path receiveKept(ObjectId commit) throws Exception {
    List<RevObject> objects = new ArrayList<>();
    ByteArrayOutputStream pack = new ByteArrayOutputStream();
    try (RevWalk walk = new RevWalk(upstream); TreeWalk tree = new TreeWalk(upstream);
        PackWriter writer = new PackWriter(upstream)) {
      RevCommit c = walk.parseCommit(commit);
      objects.add(c);
      objects.add(walk.parseTree(c.getTree()));
      tree.addTree(c.getTree());
      while (tree.next()) {
        objects.add(walk.lookupBlob(tree.getObjectId(0)));
      }
      writer.preparePack(objects.iterator());
      writer.writePack(NullProgressMonitor.INSTANCE, NullProgressMonitor.INSTANCE, pack);
    }
    Set<Path> before = Set.copyOf(packFiles(".pack"));
    try (Repository db = repositories.open(REPO); ObjectInserter ins = db.newObjectInserter()) {
      PackParser parser = ins.newPackParser(new ByteArrayInputStream(pack.toByteArray()));
      parser.setLockMessage("receive-pack in flight");
      parser.parse(NullProgressMonitor.INSTANCE);
      ins.flush();
    }
    TestRepos.setRef(upstream, "refs/heads/main", commit);
    try (Repository db = repositories.open(REPO)) {
      TestRepos.setRef(db, "refs/heads/main", commit);
    }
    List<Path> added = new ArrayList<>(packFiles(".pack"));
    added.removeAll(before);
    assertThat(added).hasSize(1);
    assertThat(CacheFiles.keepOf(added.get(0))).exists();
    return added.get(0);
  }

  /** A commit fetched into the cache under {@code ref}, which then goes: no ref reaches it. */
  private ObjectId fetchThenForget(String ref, ObjectId parent) throws Exception {
    ObjectId c = TestRepos.commit(upstream, "refused", Map.of("secret", "refused"), parent);
    fetch(ref, c);
    try (Repository db = repositories.open(REPO)) {
      var update = db.updateRef(ref);
      update.setForceUpdate(true);
      update.delete();
    }
    return c;
  }

  private void fetch(String ref, ObjectId id) throws Exception {
    TestRepos.setRef(upstream, ref, id);
    try (Repository db = repositories.open(REPO); Git git = Git.wrap(db)) {
      git.fetch().setRemote(upstream.getDirectory().toURI().toString())
          .setRefSpecs(new RefSpec("+" + ref + ":" + ref)).call();
    }
  }

  /** Every commit from {@code tip} read, with its tree and files, and git's own check passes. */
  private void assertReachesEverythingFrom(ObjectId tip, int commits) throws Exception {
    try (Repository db = repositories.open(REPO)) {
      ((FileRepository) db).getObjectDatabase().getPacks(); // rescans the directory
      assertThat(db.exactRef("refs/heads/main").getObjectId()).isEqualTo(tip);
      try (Git git = Git.wrap(db)) {
        assertThat(git.log().add(tip).call()).hasSize(commits);
      }
    }
    Process fsck = new ProcessBuilder("git", "fsck", "--strict", "--no-dangling")
        .directory(repositories.directoryOf(REPO).toFile()).redirectErrorStream(true).start();
    String out = new String(fsck.getInputStream().readAllBytes());
    assertThat(fsck.waitFor()).as("git fsck: " + out).isZero();
  }

  /** One pack, and the base record naming it: the record is written after the packs. */
  private void awaitFullCompaction() throws Exception {
    Wait.until(Duration.ofSeconds(60), "a full compaction, its base recorded",
        () -> packFiles(".pack").size() == 1 && baseRecord().equals(
            Set.of(packFiles(".pack").get(0).getFileName().toString())));
  }

  /**
   * Asks for a compaction, waits for a roll-up to leave {@code packs} packs and {@code levels}
   * levels recorded, and returns the newest level's pack.
   */
  private Path rollUp(int packs, int levels) throws Exception {
    compaction.compactIfCrowded(REPO);
    Wait.until(Duration.ofSeconds(60), "a roll-up to " + packs + " packs, " + levels + " levels",
        () -> packFiles(".pack").size() == packs && levelRecord().size() == levels
            && packFiles(".pack").stream().map(CacheCompactionTest::name).toList()
                .containsAll(levelRecord()));
    List<String> recorded = levelRecord();
    String newest = recorded.get(recorded.size() - 1);
    return packFiles(".pack").stream().filter(p -> name(p).equals(newest)).findFirst()
        .orElseThrow();
  }

  /** The cache's packs as a push's lookup lists them, each index read. */
  private List<Pack> packsRead(ObjectId id) throws IOException {
    try (Repository db = repositories.open(REPO)) {
      List<Pack> packs = List.copyOf(((FileRepository) db).getObjectDatabase().getPacks());
      for (Pack p : packs) {
        p.hasObject(id);
      }
      assertThat(packs).hasSizeGreaterThan(CacheCompaction.COMPACT_ABOVE_PACKS);
      return packs;
    }
  }

  /**
   * A push's lookup that took the list just before a compaction: JGit closed the replaced packs
   * with the new list, so each is asked through its index read again, which must still be there.
   * Deleted with its pack, the lookup failed (and JGit logged a warning with its stack trace).
   */
  private static void assertStillAnswer(List<Pack> packs, ObjectId id) throws IOException {
    for (Pack p : packs) {
      p.close();
      p.hasObject(id);
    }
  }

  private static List<Path> indexesOf(List<Pack> packs) {
    return packs.stream().map(p -> p.getPackFile().create(PackExt.INDEX).toPath()).toList();
  }

  /** Files made a minute older: as if a minute had passed since they were written. */
  private static void age(List<Path> files) throws IOException {
    for (Path f : files) {
      Files.setLastModifiedTime(f, java.nio.file.attribute.FileTime.fromMillis(
          Files.getLastModifiedTime(f).toMillis() - 60_000));
    }
  }

  /** The indexes in the pack directory whose pack is gone. */
  private List<Path> indexesWithoutPack() throws IOException {
    return packFiles(".idx").stream().filter(i -> !Files.exists(i.resolveSibling(
        name(i).substring(0, name(i).length() - ".idx".length()) + ".pack"))).toList();
  }

  private Set<String> baseRecord() throws IOException {
    return CacheFiles.base(repositories.directoryOf(REPO));
  }

  private List<String> levelRecord() throws IOException {
    return CacheFiles.levels(repositories.directoryOf(REPO));
  }

  private static String name(Path pack) {
    return pack.getFileName().toString();
  }

  private Path baseFile() {
    return repositories.directoryOf(REPO).resolve(CompactionBase.FILE);
  }


  /** Past the bound by one pack: each commit fetched into the cache on its own, as a push. */
  private ObjectId crowdTheCache() throws Exception {
    return crowdTheCache(null, "c");
  }

  /** The same on top of {@code tip}, when given, its commits and files named by {@code tag}. */
  private ObjectId crowdTheCache(ObjectId tip, String tag) throws Exception {
    tip = fetchIntoTheCache(tip, tag, CacheCompaction.COMPACT_ABOVE_PACKS + 1);
    assertThat(packFiles(".pack")).hasSizeGreaterThan(CacheCompaction.COMPACT_ABOVE_PACKS);
    return tip;
  }

  /** {@code n} commits, each fetched into the cache on its own: a pack each. */
  private ObjectId fetchIntoTheCache(int n) throws Exception {
    return fetchIntoTheCache(null, "c", n);
  }

  private ObjectId fetchIntoTheCache(ObjectId tip, String tag, int n) throws Exception {
    for (int i = 0; i < n; i++) {
      tip = tip == null
          ? TestRepos.commit(upstream, tag + "0", Map.of("README", tag + "v0"))
          : TestRepos.commit(upstream, tag + i, Map.of("README", tag + "v" + i), tip);
      fetch("refs/heads/main", tip);
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
    return CacheFiles.packFiles(repositories.directoryOf(REPO), suffix);
  }
}
