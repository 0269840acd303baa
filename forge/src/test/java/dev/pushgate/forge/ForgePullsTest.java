package dev.pushgate.forge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.types.RepoSlug;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ForgePullsTest {
  private static final Instant NOW = Instant.parse("2026-12-07T12:00:00Z");

  @TempDir
  Path dir;

  private ForgeRepositories.ForgeRepo repo() {
    return new ForgeRepositories.ForgeRepo(RepoSlug.parse("acme/widget"), 1, dir);
  }

  @Test
  void commentsAreAppendedNumberedInOrderAndReadAgainByAForgeStartedAfter() throws Exception {
    ForgePulls pulls = new ForgePulls();
    ForgePulls.Pull p = pulls.open(repo(), "t", "b", "feature", "main", "bot", NOW);
    pulls.comment(repo(), p.number(), "one", "bot", NOW);
    pulls.comment(repo(), p.number(), "two", "bot", NOW);
    pulls.replace(repo(), p.merged("abc", NOW)); // the pulls' file rewritten: comments stay
    ForgePulls.Comment third = pulls.comment(repo(), p.number(), "three", "bot", NOW);

    assertThat(third.id()).isEqualTo(3);
    assertThat(Files.readAllLines(dir.resolve(ForgePulls.COMMENTS))).hasSize(3);
    ForgePulls restarted = new ForgePulls();
    assertThat(restarted.comments(repo(), p.number())).extracting(ForgePulls.Comment::body)
        .containsExactly("one", "two", "three");
    assertThat(restarted.pull(repo(), p.number())).get()
        .extracting(ForgePulls.Pull::state).isEqualTo("closed");
    assertThat(restarted.comment(repo(), p.number(), "four", "bot", NOW).id()).isEqualTo(4);
  }

  @Test
  void aBookThatHeldItsCommentsKeepsThemAndTheNumberingGoesOn() throws Exception {
    Files.writeString(dir.resolve(ForgePulls.FILE), "{\"nextNumber\":2,\"nextCommentId\":8,"
        + "\"pulls\":[{\"number\":1,\"title\":\"t\",\"body\":\"b\",\"head\":\"f\",\"base\":\"main\","
        + "\"state\":\"open\",\"author\":\"bot\",\"createdAt\":\"x\",\"updatedAt\":\"x\"}],"
        + "\"comments\":[{\"id\":7,\"issue\":1,\"body\":\"old\",\"author\":\"bot\","
        + "\"createdAt\":\"x\"}]}");
    ForgePulls pulls = new ForgePulls();

    assertThat(pulls.comment(repo(), 1, "new", "bot", NOW).id()).isEqualTo(8);
    pulls.open(repo(), "t2", "b", "g", "main", "bot", NOW);
    assertThat(new ForgePulls().comments(repo(), 1)).extracting(ForgePulls.Comment::body)
        .containsExactly("old", "new");
  }

  @Test
  void aCommentCutOffMidLineIsDroppedAndTheNextStartsALineOfItsOwn() throws Exception {
    ForgePulls pulls = new ForgePulls();
    pulls.comment(repo(), 1, "whole", "bot", NOW);
    Files.writeString(dir.resolve(ForgePulls.COMMENTS), "{\"id\":2,\"issue\":1,\"bo",
        StandardCharsets.UTF_8, StandardOpenOption.APPEND);

    ForgePulls restarted = new ForgePulls();
    assertThat(restarted.comment(repo(), 1, "after", "bot", NOW).id()).isEqualTo(2);
    assertThat(new ForgePulls().comments(repo(), 1)).extracting(ForgePulls.Comment::body)
        .containsExactly("whole", "after");
  }

  @Test
  void filesChangedBesideTheForgeAreReadAgain() throws Exception {
    ForgePulls pulls = new ForgePulls();
    pulls.comment(repo(), 1, "one", "bot", NOW);
    assertThat(pulls.comments(repo(), 1)).hasSize(1);

    Files.delete(dir.resolve(ForgePulls.COMMENTS)); // a repository made again, say
    assertThat(pulls.comments(repo(), 1)).isEmpty();
    assertThat(pulls.comment(repo(), 1, "again", "bot", NOW).id()).isEqualTo(1);
    assertThat(pulls.read(repo()).comments()).extracting(ForgePulls.Comment::body)
        .isEqualTo(List.of("again"));
  }
}
