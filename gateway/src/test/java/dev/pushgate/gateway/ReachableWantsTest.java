package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;
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
   * again) and a want of an id nobody has are answered alike, within the bound and past it: the
   * commit was refused after the commit walk alone and the absent id at once, while a refused
   * push's blob went on to the bound, so a run could tell which ids the cache holds (a review's).
   * The walk is bounded instead ({@link ReachBound}).
   */
  @Test
  void anUnreachableCommitAndAnIdNobodyHasAreRefusedAlikeWithinTheBoundAndPastIt()
      throws Exception {
    try (Repository db = TestRepos.bare(dir.resolve("cache.git"))) {
      RevCommit tip = null;
      for (int i = 0; i < 5; i++) {
        tip = i == 0 ? TestRepos.commit(db, "c0\n", Map.of("f.txt", "0\n"))
            : TestRepos.commit(db, "c" + i + "\n", Map.of("f.txt", i + "\n"), tip);
      }
      TestRepos.setRef(db, "refs/heads/main", tip);
      RevCommit stray = TestRepos.commit(db, "stray\n", Map.of("s.txt", "s\n"));
      ObjectId absent = ObjectId.fromString("1".repeat(40));
      UploadPack up = new UploadPack(db);

      ReachableWants enough = new ReachableWants(
          () -> ReachBound.forFetch(1_000, System::nanoTime), () -> { });
      for (ObjectId want : List.of(stray, absent)) {
        assertThatThrownBy(() -> enough.checkWants(up, List.of(want)))
            .isInstanceOf(WantNotValidException.class);
      }
      ReachableWants tight = new ReachableWants(
          () -> ReachBound.forFetch(3, System::nanoTime), () -> { });
      for (ObjectId want : List.of(stray, absent)) {
        assertThatThrownBy(() -> tight.checkWants(up, List.of(want)))
            .isExactlyInstanceOf(org.eclipse.jgit.errors.PackProtocolException.class)
            .hasMessageContaining("could not be decided within 3 objects read");
      }
    }
  }
}
