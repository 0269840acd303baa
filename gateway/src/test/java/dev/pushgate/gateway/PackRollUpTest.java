package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.internal.storage.file.GC;
import org.eclipse.jgit.internal.storage.file.Pack;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a roll-up's walk stops. */
class PackRollUpTest {
  @TempDir Path tmp;

  @Test
  void aTagThePacksThatStayHoldLeadsToItsCommitWhereTheWalkStops() throws Exception {
    try (Repository db = TestRepos.bare(tmp.resolve("cache.git"))) {
      RevCommit first = TestRepos.commit(db, "first", Map.of("README", "1"));
      RevCommit released = TestRepos.commit(db, "released", Map.of("README", "2"), first);
      ObjectId tag = TestRepos.annotatedTag(db, "v1", released);
      TestRepos.setRef(db, "refs/tags/v1", tag);
      TestRepos.setRef(db, "refs/heads/main", released);
      new GC((FileRepository) db).repack();
      List<Pack> stay = List.copyOf(((FileRepository) db).getObjectDatabase().getPacks());
      assertThat(stay).hasSize(1);

      try (ObjectReader reader = db.newObjectReader()) {
        assertThat(PackRollUp.boundary(reader, Set.of(tag), stay))
            .as("the tagged commit: the pack's walk goes no further").containsExactly(released);
        RevCommit next = TestRepos.commit(db, "next", Map.of("README", "3"), released);
        assertThat(PackRollUp.boundary(reader, Set.of(tag, next), stay))
            .containsExactly(released);
      }
    }
  }
}
