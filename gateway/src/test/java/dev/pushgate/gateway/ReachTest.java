package dev.pushgate.gateway;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.internal.storage.file.GC;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.TreeFormatter;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.pack.PackConfig;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one rule of what a run reaches in a cache, for a fetch's wants and a push's bases. */
class ReachTest {
  @TempDir Path dir;

  @Test
  void theBranchesAndTagsReachTheirHistoryAndNothingARefusedPushLeft() throws Exception {
    try (Repository db = TestRepos.bare(dir.resolve("cache.git"))) {
      RevCommit first = TestRepos.commit(db, "first\n", Map.of("dir/old.txt", "old\n"));
      RevCommit main = TestRepos.commit(db, "main\n", Map.of("dir/new.txt", "new\n"), first);
      TestRepos.setRef(db, "refs/heads/main", main);
      ObjectId tag = TestRepos.annotatedTag(db, "v1", first);
      TestRepos.setRef(db, "refs/tags/v1", tag);
      // what a refused push leaves: objects no branch or tag names
      RevCommit refused = TestRepos.commit(db, "refused\n", Map.of("plan.txt", "plan\n"), main);
      ObjectId absent = ObjectId.fromString("12".repeat(20));

      ObjectId oldBlob = entry(db, first, "dir/old.txt");
      ObjectId newTree = entry(db, main, "dir");
      List<ObjectId> reached = List.of(main, first, tag, oldBlob, newTree, main.getTree());
      List<ObjectId> notReached = List.of(refused, refused.getTree(), entry(db, refused,
          "plan.txt"), absent);
      try (ObjectReader reader = db.newObjectReader()) {
        List<ObjectId> tips = Reach.branchesAndTags(db);
        assertThat(unreached(reader, tips, reached)).isEmpty();
        assertThat(unreached(reader, tips, notReached))
            .containsExactlyElementsOf(notReached);
        assertThat(unreached(reader, tips, List.of(oldBlob, refused, newTree)))
            .containsExactly(refused);
      }
    }
  }

  /**
   * A long history compacted with bitmaps, a few commits since, and what a refused push left on
   * top (its commit, tree and blob, and a tag object naming the blob): each is refused, and so is
   * an old blob found, after reading what came since the compaction, never the history. The walk
   * read every commit and tree of it (about three objects a commit) for each.
   */
  @Test
  void withBitmapsWhatNothingReachesIsDecidedWithoutReadingTheHistory() throws Exception {
    try (Repository db = TestRepos.bare(dir.resolve("cache.git"))) {
      List<RevCommit> history = history(db, null, HISTORY);
      ObjectId oldBlob = entry(db, history.get(5), "dir/a.txt");
      compactWithBitmaps(db);
      RevCommit main = history(db, history.get(HISTORY - 1), 20).get(19);
      TestRepos.setRef(db, "refs/heads/main", main);
      RevCommit refused = TestRepos.commit(db, "refused\n", Map.of("dir/a.txt", "plan\n"), main);
      ObjectId refusedBlob = entry(db, refused, "dir/a.txt");
      List<ObjectId> notReached = List.of(refusedBlob, refused.getTree(), refused,
          TestRepos.annotatedTag(db, "sneak", refusedBlob));

      try (CountingReader reader = new CountingReader(db.newObjectReader())) {
        List<ObjectId> tips = Reach.branchesAndTags(db);
        assertThat(unreached(reader, tips, notReached)).containsExactlyElementsOf(notReached);
        assertThat(reader.opened).isLessThan(200);
        reader.opened = 0;
        assertThat(unreached(reader, tips, List.of(oldBlob, history.get(3)))).isEmpty();
        assertThat(reader.opened).isLessThan(200);
      }
    }
  }

  /**
   * A tag on every commit of the history (as a repository with hundreds of releases has, each a
   * tree of its own): the first step reads the newest tips' trees up to its limit, not the union
   * of every tag's tree, before the bitmaps decide. Every tip is still parsed, once.
   */
  @Test
  void withBitmapsManyTagsTreesAreNotAllReadFirst() throws Exception {
    try (Repository db = TestRepos.bare(dir.resolve("cache.git"))) {
      List<RevCommit> history = history(db, null, HISTORY);
      for (int i = 0; i < HISTORY; i++) {
        TestRepos.setRef(db, "refs/tags/t" + i, history.get(i));
      }
      compactWithBitmaps(db);
      RevCommit refused = TestRepos.commit(db, "refused\n", Map.of("dir/a.txt", "plan\n"),
          history.get(HISTORY - 1));

      try (CountingReader reader = new CountingReader(db.newObjectReader())) {
        List<ObjectId> tips = Reach.branchesAndTags(db);
        ObjectId blob = entry(db, refused, "dir/a.txt");
        assertThat(unreached(reader, tips, List.of(blob))).containsExactly(blob);
        // without the limit, every one of the tips' 2 * HISTORY trees was read before the bitmaps
        assertThat(reader.opened).isLessThan(tips.size() + Reach.FIRST_STEP_TREES + 100);
      }
    }
  }

  /**
   * Without bitmaps, the walk to prove a refused blob unreached stops at its bound and asks for
   * the cache's compaction; a blob of the tip's own tree (an ordinary thin pack's base, a partial
   * clone's checkout) is still found within a handful of reads, asking for nothing.
   */
  @Test
  void withoutBitmapsTheWalkStopsAtItsBoundAndAsksForThem() throws Exception {
    try (Repository db = TestRepos.bare(dir.resolve("cache.git"))) {
      RevCommit main = history(db, null, HISTORY).get(HISTORY - 1);
      TestRepos.setRef(db, "refs/heads/main", main);
      RevCommit refused = TestRepos.commit(db, "refused\n", Map.of("dir/a.txt", "plan\n"), main);
      List<ObjectId> tips = Reach.branchesAndTags(db);
      int[] compactions = {0};

      try (CountingReader reader = new CountingReader(db.newObjectReader())) {
        assertThat(Reach.unreached(reader, tips, List.of(entry(db, main, "dir/a.txt")),
            ReachBound.forFetch(1_000, () -> 0L), () -> compactions[0]++)).isEmpty();
        assertThat(reader.opened).isLessThan(10);
        assertThat(compactions[0]).isZero();

        reader.opened = 0;
        assertThatThrownBy(() -> Reach.unreached(reader, tips,
            List.of(entry(db, refused, "dir/a.txt")), ReachBound.forFetch(1_000, () -> 0L),
            () -> compactions[0]++))
            .isInstanceOf(Reach.Undecided.class)
            .hasMessage("what this repository's branches and tags reach could not be decided"
                + " within 1000 objects read and 10 s");
        assertThat(reader.opened).isLessThanOrEqualTo(1_000);
        assertThat(compactions[0]).isOne();
      }
    }
  }

  /** A push's decision ends with its judgement's budget, on its clock, whatever it read. */
  @Test
  void aPushsBudgetEndsTheWalk() throws Exception {
    try (Repository db = TestRepos.bare(dir.resolve("cache.git"))) {
      RevCommit main = history(db, null, HISTORY).get(HISTORY - 1);
      TestRepos.setRef(db, "refs/heads/main", main);
      RevCommit refused = TestRepos.commit(db, "refused\n", Map.of("dir/a.txt", "plan\n"), main);
      AtomicLong clock = new AtomicLong();
      // a second per look at the clock: 180 reads in, the budget is spent
      JudgementBudget budget = new JudgementBudget(Duration.ofSeconds(180), () -> false,
          () -> false, () -> clock.getAndAdd(1_000_000_000L));

      try (CountingReader reader = new CountingReader(db.newObjectReader())) {
        assertThatThrownBy(() -> Reach.unreached(reader, Reach.branchesAndTags(db),
            List.of(refused.getTree()), ReachBound.of(budget), () -> { }))
            .isInstanceOf(Reach.Undecided.class)
            .hasMessage("what this repository's branches and tags reach could not be decided"
                + " within 180 s");
        assertThat(reader.opened).isBetween(170, 190);
      }
    }
  }

  private static final int HISTORY = 2_000;

  /** {@code n} commits, each changing {@code dir/a.txt}, on {@code parent}; main names the last. */
  private static List<RevCommit> history(Repository db, RevCommit parent, int n)
      throws Exception {
    List<RevCommit> commits = new ArrayList<>();
    ObjectId previous = parent;
    // one pack, as a fetch stores it: thousands of loose objects take seconds to write
    try (ObjectInserter ins = ((FileRepository) db).getObjectDatabase().newPackInserter()) {
      ObjectId readme = ins.insert(Constants.OBJ_BLOB, "readme\n".getBytes(UTF_8));
      PersonIdent who = new PersonIdent("Agent", "agent@example.invalid");
      for (int i = 0; i < n; i++) {
        TreeFormatter dir = new TreeFormatter();
        dir.append("a.txt", FileMode.REGULAR_FILE,
            ins.insert(Constants.OBJ_BLOB, ("a " + i + "\n").getBytes(UTF_8)));
        TreeFormatter root = new TreeFormatter();
        root.append("README", FileMode.REGULAR_FILE, readme);
        root.append("dir", FileMode.TREE, ins.insert(dir));
        CommitBuilder c = new CommitBuilder();
        c.setTreeId(ins.insert(root));
        if (previous != null) {
          c.setParentId(previous);
        }
        PersonIdent at = new PersonIdent(who, Instant.ofEpochSecond(1_600_000_000L + 60L * i
            + (parent == null ? 0 : 60L * HISTORY)), ZoneOffset.UTC);
        c.setAuthor(at);
        c.setCommitter(at);
        c.setMessage("commit " + i + "\n");
        previous = ins.insert(c);
      }
      ins.flush();
    }
    try (RevWalk walk = new RevWalk(db)) {
      for (RevCommit c = walk.parseCommit(previous); commits.size() < n;
          c = c.getParentCount() == 0 ? null : walk.parseCommit(c.getParent(0))) {
        commits.add(0, c);
      }
    }
    TestRepos.setRef(db, "refs/heads/main", commits.get(n - 1));
    return commits;
  }

  /** As {@link CacheCompaction} compacts a large history: one pack, with its bitmap index. */
  private static void compactWithBitmaps(Repository db) throws Exception {
    GC gc = new GC((FileRepository) db);
    PackConfig config = new PackConfig(db);
    config.setBuildBitmaps(true);
    gc.setPackConfig(config);
    gc.setPackExpireAgeMillis(0);
    gc.repack();
    gc.prune(java.util.Set.of());
  }

  /** Unbounded, as the rule was before its bound. */
  private static java.util.Set<ObjectId> unreached(ObjectReader reader, List<ObjectId> tips,
      List<ObjectId> ids) throws Exception {
    return Reach.unreached(reader, tips, ids, ReachBound.none(), () -> { });
  }

  /** The repository's reader, counting the objects opened through it. */
  private static final class CountingReader extends ObjectReader.Filter {
    private final ObjectReader reader;
    int opened;

    CountingReader(ObjectReader reader) {
      this.reader = CheckedOpens.of(reader, id -> opened++);
    }

    @Override
    protected ObjectReader delegate() {
      return reader;
    }
  }

  /** The blob or tree at {@code path} in {@code c}. */
  private static ObjectId entry(Repository db, RevCommit c, String path) throws Exception {
    try (TreeWalk w = TreeWalk.forPath(db, path, c.getTree())) {
      return w.getObjectId(0);
    }
  }
}
