package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.FileTrees;
import dev.pushgate.types.RepoSlug;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.internal.storage.pack.PackWriter;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
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
 * The cache's compaction beside the pushes and syncs that change it: random histories through
 * roll-ups, levels and full compactions stay whole; a push under way keeps what it builds on
 * (its parent on a branch deleted meanwhile), and its pack, when a pack of the same objects was
 * stored already; a roll-up's pack a crash left without its index is not taken for a whole one.
 * (A review's scenarios, 2026-12-07: each but the first failed before its fix.)
 */
class CompactionBesidePushesTest {
  private static final RepoSlug REPO = RepoSlug.parse("acme/widget");

  @TempDir Path tmp;
  private Repository upstream;
  private CacheRepositories repositories;
  private CacheCompaction compaction;

  @BeforeEach
  void setUp() throws Exception {
    upstream = TestRepos.bare(tmp.resolve("upstream.git"));
    repositories = new CacheRepositories(tmp.resolve("cache"));
    compaction = new CacheCompaction(repositories, new LandedRefs(repositories));
  }

  @AfterEach
  void stop() {
    compaction.close();
  }

  /**
   * Random histories: branches made at old commits (set without a fetch when the cache holds the
   * commit, as MirroredRefs.move does), deleted, main rewound, annotated tags and tags of tags,
   * each round compacted (roll-ups with levels, now and then a full one). Every ref must stay
   * connected.
   */
  @Test
  void randomHistoriesStayConnectedAcrossRollUpsAndLevels() throws Exception {
    for (long seed : new long[] {1, 2}) {
      randomHistory(seed, 15);
    }
  }

  private void randomHistory(long seed, int rounds) throws Exception {
    Random random = new Random(seed);
    String prefix = "s" + seed + "-";
    List<ObjectId> history = new ArrayList<>();
    ObjectId main = null;
    for (int i = 0; i < 200; i++) {
      main = main == null ? TestRepos.commit(upstream, prefix + "h0", Map.of("README", prefix))
          : TestRepos.commit(upstream, prefix + "h" + i, Map.of("README", prefix + i), main);
      history.add(main);
    }
    sync("refs/heads/main", main);
    compactNow(); // the first compaction of this seed's main
    int branch = 0;
    int tag = 0;
    List<String> branches = new ArrayList<>();
    List<ObjectId> tags = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      int n = 1 + random.nextInt(30);
      for (int i = 0; i < n; i++) {
        main = TestRepos.commit(upstream, prefix + round + "m" + i,
            Map.of("README", prefix + round + "/" + i, "F" + random.nextInt(5), "x" + i), main);
        history.add(main);
        if (random.nextInt(4) == 0 || i == n - 1) {
          sync("refs/heads/main", main);
        }
      }
      if (random.nextInt(2) == 0) { // a side branch with new commits from an old commit
        ObjectId at = history.get(random.nextInt(history.size()));
        for (int i = 0; i < 1 + random.nextInt(5); i++) {
          at = TestRepos.commit(upstream, prefix + round + "side" + i,
              Map.of("SIDE", prefix + round + "/" + i), at);
          history.add(at);
        }
        String name = "refs/heads/" + prefix + "b" + branch++;
        sync(name, at);
        branches.add(name);
      }
      if (random.nextInt(2) == 0) { // a branch at an old commit, maybe one no ref reaches now
        String name = "refs/heads/" + prefix + "b" + branch++;
        sync(name, history.get(random.nextInt(history.size())));
        branches.add(name);
      }
      if (!branches.isEmpty() && random.nextInt(2) == 0) {
        delete(branches.remove(random.nextInt(branches.size())));
      }
      if (random.nextInt(4) == 0) { // main rewound (a force-push)
        main = history.get(random.nextInt(history.size()));
        sync("refs/heads/main", main);
      }
      if (random.nextInt(3) == 0) {
        ObjectId t = TestRepos.annotatedTag(upstream, prefix + "t" + tag,
            history.get(random.nextInt(history.size())));
        sync("refs/tags/" + prefix + "t" + tag++, t);
        tags.add(t);
      }
      if (!tags.isEmpty() && random.nextInt(4) == 0) { // a tag of a tag
        ObjectId t = TestRepos.annotatedTag(upstream, prefix + "t" + tag,
            tags.get(random.nextInt(tags.size())));
        sync("refs/tags/" + prefix + "t" + tag++, t);
        tags.add(t);
      }
      if (random.nextInt(5) == 0 && !tags.isEmpty()) {
        delete("refs/tags/" + prefix + "t" + random.nextInt(tag));
      }
      compactNow();
      assertConnected("seed " + seed + " round " + round);
    }
  }

  /**
   * A push in flight, its pack kept by its .keep: its commit's parent is the tip of a branch
   * that upstream deletes meanwhile (a sync deletes it in the cache). A roll-up drops the parent
   * as unreachable; then upstream takes the push (it still has the parent) and the push lands
   * on a new branch: the cache names a commit whose parent it no longer has.
   */
  @Test
  void aPushInFlightLosesItsParentToARollUpWhenTheBranchItWasBuiltOnGoes() throws Exception {
    ObjectId parent = landAfterTheParentWent(false);
    try (Repository db = repositories.open(REPO)) {
      assertThat(db.getObjectDatabase().has(parent))
          .as("the parent of a pushed commit a ref of the cache names").isTrue();
    }
  }

  /** Then no compaction of the cache succeeds again: its walk meets the missing parent. */
  @Test
  void afterThatNoCompactionSucceeds() throws Exception {
    landAfterTheParentWent(false);
    compactNow();
  }

  /**
   * As above, with a full compaction: JGit's GC walks from the refs alone; it once turned what no
   * ref reached of the packs it replaced into loose objects, which kept the parent; the parent
   * now goes into the first level above the base.
   */
  @Test
  void aPushInFlightLosesItsParentToAFullCompactionToo() throws Exception {
    ObjectId parent = landAfterTheParentWent(true);
    try (Repository db = repositories.open(REPO)) {
      assertThat(db.getObjectDatabase().has(parent))
          .as("the parent of a pushed commit a ref of the cache names").isTrue();
    }
  }

  private ObjectId landAfterTheParentWent(boolean full) throws Exception {
    ObjectId tip = compactedBase(300);
    ObjectId parent = TestRepos.commit(upstream, "feature", Map.of("README", "feature"), tip);
    sync("refs/heads/feature", parent);
    // the push of feature-2 on top of feature: the client sends only the new commit and files
    RevCommit pushed = TestRepos.commit(upstream, "feature-2",
        Map.of("README", "feature", "NEW", "new"), parent);
    Path kept = receive(newObjectsOf(pushed, parent), "jgit receive-pack in flight");
    assertThat(kept).isNotNull();
    assertThat(CacheFiles.keepOf(kept)).exists();
    delete("refs/heads/feature"); // merged upstream by squash, and deleted

    for (int i = 0; i < 5; i++) {
      tip = TestRepos.commit(upstream, "m" + i, Map.of("README", "m" + i), tip);
      sync("refs/heads/main", tip);
    }
    if (full) {
      Object key = recordKey();
      compaction.compactWithBitmaps(REPO); // a full compaction, whatever the packs
      awaitRecordRewritten(key);
    } else {
      compactNow(); // a roll-up
      assertThat(CacheFiles.levels(repositories.directoryOf(REPO))).hasSize(1);
    }

    // upstream took the push: it lands (as LandedRefs.setRef), and its .keep goes
    try (Repository db = repositories.open(REPO)) {
      TestRepos.setRef(db, "refs/heads/feature-2", pushed);
    }
    Files.delete(CacheFiles.keepOf(kept));
    return parent;
  }

  /**
   * A push refused (its pack's .keep gone, nothing reaches it) and tried again as it was: the
   * same objects make a pack of the same name, so the parser keeps nothing ("stored already")
   * and writes no .keep. A roll-up meanwhile deletes that pack as unreachable, and the retried
   * push lands on objects the cache no longer has.
   */
  @Test
  void aRetriedPushOfTheSameObjectsIsNotKeptAndItsPackIsRolledUpFromUnderIt() throws Exception {
    ObjectId tip = compactedBase(300);
    RevCommit pushed = TestRepos.commit(upstream, "topic", Map.of("README", "topic"), tip);
    List<RevObject> objects = newObjectsOf(pushed, tip);
    Path first = receive(objects, "jgit receive-pack first try");
    Files.delete(CacheFiles.keepOf(first)); // refused, answered

    Path second = receive(objects, "jgit receive-pack retry");
    assertThat(second).as("no new pack: the same objects are stored already").isNull();
    assertThat(CacheFiles.keepOf(first)).as("the retry keeps the pack it relies on").exists();
  }

  /** The consequence of the above: the retried push's objects are gone when it lands. */
  @Test
  void aRetriedPushLandsOnObjectsARollUpDeleted() throws Exception {
    ObjectId tip = compactedBase(300);
    RevCommit pushed = TestRepos.commit(upstream, "topic", Map.of("README", "topic"), tip);
    List<RevObject> objects = newObjectsOf(pushed, tip);
    Path first = receive(objects, "jgit receive-pack first try");
    Files.delete(CacheFiles.keepOf(first));
    receive(objects, "jgit receive-pack retry"); // in flight, upstream being asked

    for (int i = 0; i < 5; i++) {
      tip = TestRepos.commit(upstream, "m" + i, Map.of("README", "m" + i), tip);
      sync("refs/heads/main", tip);
    }
    compactNow();

    try (Repository db = repositories.open(REPO)) {
      assertThat(db.getObjectDatabase().has(pushed))
          .as("the commit of the push in flight (its approvers' page, its landing)").isTrue();
    }
  }

  /**
   * A crash between the roll-up's rename of its pack and of its index leaves the pack without
   * one. The next roll-up after the restart writes the same objects, finds a pack of that name
   * and keeps it instead of its own, then deletes the packs it rolled up: what the refs reach
   * above the base is then in a pack no reader can use.
   */
  @Test
  void aRollUpPackLeftWithoutItsIndexByACrashIsTakenForTheNewOne() throws Exception {
    ObjectId tip = compactedBase(300);
    for (int i = 0; i < 8; i++) {
      tip = TestRepos.commit(upstream, "b" + i, Map.of("README", "b" + i), tip);
      sync("refs/heads/main", tip);
    }
    Path original = repositories.directoryOf(REPO);
    Path copyRoot = tmp.resolve("restarted");
    Path copy = copyRoot.resolve(tmp.resolve("cache").relativize(original));
    FileTrees.copy(original, copy);

    compactNow(); // the roll-up, completed, in the original
    String rolled = CacheFiles.levels(original).get(0);
    // the restarted copy: as the crash left it, the new pack renamed in, its index not
    Files.copy(original.resolve("objects/pack").resolve(rolled),
        copy.resolve("objects/pack").resolve(rolled));

    CacheRepositories restarted = new CacheRepositories(copyRoot);
    CacheCompaction again = new CacheCompaction(restarted, new LandedRefs(restarted));
    try {
      Method compact = CacheCompaction.class.getDeclaredMethod("compact", RepoSlug.class);
      compact.setAccessible(true);
      compact.invoke(again, REPO);
    } finally {
      again.close();
    }
    try (Repository db = restarted.open(REPO); RevWalk walk = new RevWalk(db)) {
      ((FileRepository) db).getObjectDatabase().getPacks();
      assertThat(db.getObjectDatabase().has(tip)).as("main's tip after the roll-up").isTrue();
    }
  }

  private ObjectId compactedBase(int commits) throws Exception {
    ObjectId tip = null;
    for (int i = 0; i < commits; i++) {
      tip = tip == null ? TestRepos.commit(upstream, "h0", Map.of("README", "h0"))
          : TestRepos.commit(upstream, "h" + i, Map.of("README", "h" + i), tip);
    }
    sync("refs/heads/main", tip);
    compactNow();
    assertThat(CacheFiles.levels(repositories.directoryOf(REPO))).isEmpty();
    return tip;
  }

  /** The commit, its tree and the files {@code parent} does not have: what a client sends. */
  private List<RevObject> newObjectsOf(RevCommit commit, ObjectId parent) throws IOException {
    List<RevObject> objects = new ArrayList<>();
    try (RevWalk walk = new RevWalk(upstream); TreeWalk tree = new TreeWalk(upstream)) {
      RevCommit c = walk.parseCommit(commit);
      RevCommit p = walk.parseCommit(parent);
      objects.add(c);
      objects.add(walk.parseTree(c.getTree()));
      tree.addTree(c.getTree());
      tree.addTree(p.getTree());
      while (tree.next()) {
        if (!tree.getObjectId(0).equals(tree.getObjectId(1))) {
          objects.add(walk.lookupBlob(tree.getObjectId(0)));
        }
      }
    }
    return objects;
  }

  /** {@code objects} received into the cache as a push's pack with a .keep; the new pack. */
  private Path receive(List<RevObject> objects, String lockMessage) throws Exception {
    ByteArrayOutputStream pack = new ByteArrayOutputStream();
    try (PackWriter writer = new PackWriter(upstream)) {
      writer.preparePack(objects.iterator());
      writer.writePack(NullProgressMonitor.INSTANCE, NullProgressMonitor.INSTANCE, pack);
    }
    Set<Path> before = Set.copyOf(packFiles(".pack"));
    try (Repository db = repositories.open(REPO); ObjectInserter ins = db.newObjectInserter()) {
      PackParser parser = ins.newPackParser(new ByteArrayInputStream(pack.toByteArray()));
      parser.setLockMessage(lockMessage);
      parser.parse(NullProgressMonitor.INSTANCE);
      ins.flush();
    }
    List<Path> added = new ArrayList<>(packFiles(".pack"));
    added.removeAll(before);
    return added.isEmpty() ? null : added.get(0);
  }

  /**
   * Upstream's {@code ref} moved to {@code id}, and the cache's as a sync moves it: set at once
   * when the cache holds the object (MirroredRefs.wanted/move), fetched otherwise.
   */
  private void sync(String ref, ObjectId id) throws Exception {
    TestRepos.setRef(upstream, ref, id);
    try (Repository db = repositories.open(REPO)) {
      if (db.getObjectDatabase().has(id)) {
        TestRepos.setRef(db, ref, id);
        return;
      }
      try (Git git = Git.wrap(db)) {
        git.fetch().setRemote(upstream.getDirectory().toURI().toString())
            .setRefSpecs(new RefSpec("+" + ref + ":" + ref)).call();
      }
    }
  }

  private void delete(String ref) throws Exception {
    try (Repository cache = repositories.open(REPO)) {
      for (Repository db : new Repository[] {upstream, cache}) {
        RefUpdate u = db.updateRef(ref);
        u.setForceUpdate(true);
        u.delete();
      }
    }
  }

  /** The compaction run now, on this thread; fails when it did not write its record. */
  private void compactNow() throws Exception {
    Object key = recordKey();
    Method compact = CacheCompaction.class.getDeclaredMethod("compact", RepoSlug.class);
    compact.setAccessible(true);
    compact.invoke(compaction, REPO);
    assertThat(recordKey()).as("the compaction wrote its record (else it failed)")
        .isNotEqualTo(key);
  }

  private Object recordKey() throws IOException {
    Path f = repositories.directoryOf(REPO).resolve(CompactionBase.FILE);
    return Files.exists(f) ? Files.readAttributes(f, BasicFileAttributes.class).fileKey() : "none";
  }

  private void awaitRecordRewritten(Object key) throws Exception {
    dev.pushgate.testkit.Wait.until(java.time.Duration.ofSeconds(60), "the record rewritten",
        () -> !recordKey().equals(key));
  }

  /** Every ref of the cache equals upstream's, and git fsck finds the cache whole. */
  private void assertConnected(String when) throws Exception {
    try (Repository db = repositories.open(REPO)) {
      ((FileRepository) db).getObjectDatabase().getPacks();
      for (Ref r : db.getRefDatabase().getRefsByPrefix("refs/")) {
        assertThat(r.getObjectId()).as(when + ": " + r.getName())
            .isEqualTo(TestRepos.idOf(upstream, r.getName()));
      }
    }
    Process fsck = new ProcessBuilder("git", "fsck", "--strict", "--no-dangling")
        .directory(repositories.directoryOf(REPO).toFile()).redirectErrorStream(true).start();
    String out = new String(fsck.getInputStream().readAllBytes());
    assertThat(fsck.waitFor()).as(when + ": git fsck: " + out).isZero();
  }




  private List<Path> packFiles(String suffix) throws IOException {
    return CacheFiles.packFiles(repositories.directoryOf(REPO), suffix);
  }
}
