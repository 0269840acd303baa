package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.transport.UploadPack;
import org.eclipse.jgit.transport.WantNotValidException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReachableWantsTest {
  @TempDir Path dir;

  /**
   * A want of a commit no branch reaches (a refused push's, which its run can ask for again and
   * again) is refused after the walk of the commits alone: walking every tree and blob of the
   * history for it would let one run spend the gateway's CPU on a large repository at will. The
   * branch's tree is missing here, so reading it would fail otherwise than by refusing the want.
   */
  @Test
  void anUnreachableCommitIsRefusedWithoutWalkingTrees() throws Exception {
    try (Repository db = TestRepos.bare(dir.resolve("cache.git"))) {
      ObjectId tip;
      try (ObjectInserter ins = db.newObjectInserter()) {
        CommitBuilder c = new CommitBuilder();
        c.setTreeId(ObjectId.fromString("1".repeat(40))); // not in the repository
        PersonIdent who = new PersonIdent("t", "t@example.com");
        c.setAuthor(who);
        c.setCommitter(who);
        c.setMessage("tip\n");
        tip = ins.insert(c);
        ins.flush();
      }
      TestRepos.setRef(db, "refs/heads/main", tip);
      RevCommit stray = TestRepos.commit(db, "stray\n", Map.of("s.txt", "s\n"));
      UploadPack up = new UploadPack(db);
      ReachableWants wants =
          new ReachableWants(() -> ReachBound.forFetch(System::nanoTime), () -> { });
      assertThatThrownBy(() -> wants.checkWants(up, List.of(stray)))
          .isInstanceOf(WantNotValidException.class);
    }
  }
}
