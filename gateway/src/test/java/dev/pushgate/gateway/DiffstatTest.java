package dev.pushgate.gateway;

import static dev.pushgate.gateway.TestRepos.annotatedTag;
import static dev.pushgate.gateway.TestRepos.commit;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiffstatTest {
  private static final String ZERO = ObjectId.zeroId().name();

  @TempDir Path dir;
  private Repository db;

  @BeforeEach
  void repository() throws IOException {
    db = TestRepos.bare(dir.resolve("cache.git"));
  }

  @AfterEach
  void close() {
    db.close();
  }

  @Test
  void anUpdateCountsLinesAddedAndRemovedPerFile() throws IOException {
    RevCommit old = commit(db, "one\n", Map.of("README.md", "a\nb\nc\n", "gone.txt", "x\n"));
    RevCommit next = commit(db, "two\n", Map.of("README.md", "a\nB\nc\nd\n", "new.txt", "1\n2\n"),
        old);

    Diffstat d = Diffstat.of(db, old.name(), next.name());

    assertThat(d.unavailable()).isNull();
    assertThat(d.files()).containsExactlyInAnyOrder(
        new Diffstat.File("README.md", null, "modify", 2, 1, false),
        new Diffstat.File("gone.txt", null, "delete", 0, 1, false),
        new Diffstat.File("new.txt", null, "add", 2, 0, false));
    assertThat(d.added()).isEqualTo(4);
    assertThat(d.removed()).isEqualTo(2);
    assertThat(d.base()).isEqualTo("the ref's current commit " + old.name().substring(0, 10));
  }

  @Test
  void aNewBranchIsCountedFromWhereItLeavesTheExistingBranches() throws IOException {
    RevCommit main = commit(db, "main\n", Map.of("README.md", "a\n"));
    TestRepos.setRef(db, "refs/heads/main", main);
    RevCommit one = commit(db, "one\n", Map.of("README.md", "a\nb\n"), main);
    RevCommit two = commit(db, "two\n", Map.of("README.md", "a\nb\n", "x.txt", "x\n"), one);

    Diffstat d = Diffstat.of(db, ZERO, two.name());

    assertThat(d.files()).containsExactlyInAnyOrder(
        new Diffstat.File("README.md", null, "modify", 1, 0, false),
        new Diffstat.File("x.txt", null, "add", 1, 0, false));
    assertThat(d.base()).isEqualTo("commit " + main.name().substring(0, 10)
        + ", where the new branch leaves the repository's existing history");
  }

  @Test
  void aNewBranchWithHistoryOfItsOwnIsCountedWhole() throws IOException {
    TestRepos.setRef(db, "refs/heads/main", commit(db, "main\n", Map.of("README.md", "a\n")));
    RevCommit other = commit(db, "own\n", Map.of("a.txt", "1\n2\n3\n"));

    Diffstat d = Diffstat.of(db, ZERO, other.name());

    assertThat(d.files()).containsExactly(new Diffstat.File("a.txt", null, "add", 3, 0, false));
    assertThat(d.base()).isEqualTo(
        "nothing: the new branch shares no history with the repository's branches");
  }

  @Test
  void aRenameNamesBothPathsAndABinaryFileIsMarked() throws IOException {
    String body = "line\n".repeat(20);
    RevCommit old = commit(db, "one\n", Map.of("old.txt", body, "logo.png", "\0PNG1"));
    RevCommit next = commit(db, "two\n", Map.of("new.txt", body, "logo.png", "\0PNG2"), old);

    Diffstat d = Diffstat.of(db, old.name(), next.name());

    assertThat(d.files()).containsExactlyInAnyOrder(
        new Diffstat.File("new.txt", "old.txt", "rename", 0, 0, false),
        new Diffstat.File("logo.png", null, "modify", 0, 0, true));
  }

  @Test
  void pastTheLimitFilesAreCountedNotListed() throws IOException {
    Map<String, String> many = new HashMap<>();
    for (int i = 0; i < Diffstat.MAX_FILES + 5; i++) {
      many.put("f" + i + ".txt", "content " + i + "\n");
    }
    RevCommit old = commit(db, "one\n", Map.of("README.md", "a\n"));
    many.put("README.md", "a\n");
    RevCommit next = commit(db, "many\n", many, old);

    Diffstat d = Diffstat.of(db, old.name(), next.name());

    assertThat(d.files()).hasSize(Diffstat.MAX_FILES);
    assertThat(d.unlisted()).isEqualTo(5);
  }

  @Test
  void whatCannotBeCountedSaysWhy() throws IOException {
    RevCommit c = commit(db, "one\n", Map.of("README.md", "a\n"));
    ObjectId tag = annotatedTag(db, "v1", c);
    String absent = "1234567890123456789012345678901234567890";
    ObjectId blob;
    try (var ins = db.newObjectInserter()) {
      blob = ins.insert(org.eclipse.jgit.lib.Constants.OBJ_BLOB, new byte[] {1});
      ins.flush();
    }

    assertThat(Diffstat.of(db, c.name(), ZERO).unavailable())
        .isEqualTo("a delete: nothing lands, the ref goes away");
    assertThat(Diffstat.of(db, c.name(), absent).unavailable())
        .isEqualTo("the pushed objects are no longer in the gateway's cache");
    assertThat(Diffstat.of(db, absent, c.name()).unavailable())
        .isEqualTo("the ref's current commit is not in the gateway's cache");
    assertThat(Diffstat.of(db, ZERO, blob.name()).unavailable())
        .isEqualTo("the ref would point at a blob, not a commit: there are no files to count");
    // an annotated tag is peeled to its commit
    assertThat(Diffstat.of(db, ZERO, tag.name()).files())
        .containsExactly(new Diffstat.File("README.md", null, "add", 1, 0, false));
    for (String malformed : List.of("", "xyz", "12345", "g".repeat(40))) {
      assertThat(Diffstat.of(db, c.name(), malformed).unavailable()).as(malformed)
          .isEqualTo("the question names no commit to count");
    }
    assertThat(Diffstat.of(db, c.name(), null).unavailable())
        .isEqualTo("the question names no commit to count");
  }
}
