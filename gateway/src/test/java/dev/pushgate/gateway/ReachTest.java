package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
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
        assertThat(Reach.unreached(reader, tips, reached)).isEmpty();
        assertThat(Reach.unreached(reader, tips, notReached))
            .containsExactlyElementsOf(notReached);
        assertThat(Reach.unreached(reader, tips, List.of(oldBlob, refused, newTree)))
            .containsExactly(refused);
      }
    }
  }

  /** The blob or tree at {@code path} in {@code c}. */
  private static ObjectId entry(Repository db, RevCommit c, String path) throws Exception {
    try (TreeWalk w = TreeWalk.forPath(db, path, c.getTree())) {
      return w.getObjectId(0);
    }
  }
}
