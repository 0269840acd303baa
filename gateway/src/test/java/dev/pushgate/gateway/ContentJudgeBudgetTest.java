package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.policy.ContentRules;
import dev.pushgate.policy.Decision;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A push whose content cannot be judged within the budget is refused, not let through. */
class ContentJudgeBudgetTest {
  @TempDir Path tmp;

  @Test
  void aFileNotScannedWithinTheBudgetIsRefusedAsNotJudged() throws Exception {
    try (Repository db = TestRepos.bare(tmp.resolve("cache.git"))) {
      RevCommit c = TestRepos.commit(db, "notes", Map.of("notes.txt", "plain text\n"));
      ReceiveCommand cmd = new ReceiveCommand(ObjectId.zeroId(), c, "refs/heads/feature");

      try (ContentJudge judge = new ContentJudge(db, ContentRules.DEFAULT,
          SecretScanner.standard(), Duration.ofSeconds(-1))) { // already past
        List<ContentFinding> found = judge.findings(cmd, List.of());
        // The ref name, the commit's message, its paths and its file: none judged in time.
        assertThat(found).hasSize(4).allSatisfy(f -> {
          assertThat(f.kind()).isEqualTo(ContentFinding.Kind.NOT_JUDGED);
          assertThat(f.decision()).isEqualTo(Decision.DENY);
        });
        assertThat(found).extracting(ContentFinding::text).contains("notes.txt could not be"
            + " scanned within " + ContentJudge.BUDGET.toSeconds() + " s (rule \"no secrets\");"
            + " nothing was pushed");
      }
      try (ContentJudge judge = new ContentJudge(db, ContentRules.DEFAULT,
          SecretScanner.standard())) {
        assertThat(judge.findings(cmd, List.of())).isEmpty();
      }
    }
  }
}
