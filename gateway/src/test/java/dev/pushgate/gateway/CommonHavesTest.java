package dev.pushgate.gateway;

import static dev.pushgate.gateway.TestRepos.commit;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which of a client's haves the gateway may ask upstream with on its behalf: only commits the
 * cache's refs reach, whatever the client names.
 */
class CommonHavesTest {
  @TempDir Path dir;
  private Repository cache;
  private RevCommit base;
  private RevCommit main;
  private RevCommit side;
  private RevCommit unreferenced;

  @BeforeEach
  void setUp() throws Exception {
    cache = TestRepos.bare(dir.resolve("cache.git"));
    base = commit(cache, "base\n", Map.of("a", "a\n"));
    main = commit(cache, "main\n", Map.of("a", "b\n"), base);
    side = commit(cache, "side\n", Map.of("s", "s\n"), base);
    // what a refused push leaves: in the object store, reached by no ref
    unreferenced = commit(cache, "refused\n", Map.of("a", "c\n"), main);
    TestRepos.setRef(cache, "refs/heads/main", main);
    TestRepos.setRef(cache, "refs/heads/side", side);
  }

  @AfterEach
  void close() {
    cache.close();
  }

  @Test
  void aHaveTheCacheLacksOrHoldsOutsideItsRefsIsNotInCommon() throws Exception {
    ObjectId unknown = ObjectId.fromString("0123456789abcdef0123456789abcdef01234567");
    CommonHaves found = CommonHaves.of(cache, List.of(unknown, unreferenced, main.getTree(), main),
        Set.of(main, side));
    assertThat(found.common()).containsExactly(main);
    assertThat(found.reachesAll()).as("side is reached by none of them").isFalse();
  }

  @Test
  void commonHavesReachEveryTipDirectlyOrThroughTheirHistory() throws Exception {
    assertThat(CommonHaves.of(cache, List.of(side, main, main), Set.of(main, side)))
        .isEqualTo(new CommonHaves(List.of(side, main), true, false));
    RevCommit merged = commit(cache, "merge\n", Map.of("a", "b\n", "s", "s\n"), main, side);
    TestRepos.setRef(cache, "refs/heads/merged", merged);
    assertThat(CommonHaves.of(cache, List.of(merged), Set.of(main, side, merged)))
        .isEqualTo(new CommonHaves(List.of(merged), true, false));
    assertThat(CommonHaves.of(cache, List.of(base), Set.of(main, side)))
        .isEqualTo(new CommonHaves(List.of(base), false, false));
  }

  @Test
  void aTipThatIsNoCommitIsNeverReached() throws Exception {
    assertThat(CommonHaves.of(cache, List.of(main, side), Set.of(main, side, main.getTree()))
        .reachesAll()).isFalse();
  }

  @Test
  void noHavesReachNoTipButAnEmptyCache() throws Exception {
    assertThat(CommonHaves.of(cache, List.of(), Set.of(main))).isEqualTo(
        new CommonHaves(List.of(), false, false));
    assertThat(CommonHaves.of(cache, List.of(), Set.of())).isEqualTo(
        new CommonHaves(List.of(), true, false));
  }

  /** The count of what the tips reach past the common haves stops just past the bound. */
  @Test
  void tipsReachingMoreThanTheBoundPastTheCommonHavesLackMany() throws Exception {
    ObjectId tip = main;
    for (int i = 0; i < CommonHaves.MAX_LACKING; i++) {
      tip = commit(cache, "more " + i + "\n", Map.of("a", i + "\n"), tip);
    }
    assertThat(CommonHaves.of(cache, List.of(main), Set.of(tip)).lacksMany())
        .as("exactly the bound").isFalse();
    assertThat(CommonHaves.of(cache, List.of(base), Set.of(tip)).lacksMany())
        .as("one past it").isTrue();
    assertThat(CommonHaves.of(cache, List.of(), Set.of(tip)).lacksMany()).isTrue();
  }
}
