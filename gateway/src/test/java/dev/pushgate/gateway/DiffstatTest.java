package dev.pushgate.gateway;

import static dev.pushgate.gateway.TestRepos.annotatedTag;
import static dev.pushgate.gateway.TestRepos.commit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.FakeSecrets;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.Test;

class DiffstatTest extends OnABareCache {
  private static final String ZERO = ObjectId.zeroId().name();

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

  @Test
  void theDiffItselfComesWithEachLinesNumbersInTheOldAndTheNewFile() throws IOException {
    RevCommit old = commit(db, "one\n", Map.of("README.md", "a\nb\nc\n"));
    RevCommit next = commit(db, "two\n", Map.of("README.md", "a\nB\nc\n\tindented\n",
        "<script>alert(1)</script>.txt", "<script>alert(2)</script>\n"), old);

    Diffstat d = Diffstat.of(db, old.name(), next.name());

    assertThat(d.diffs()).hasSameSizeAs(d.files());
    Diffstat.FileDiff readme = d.diffs().get(indexOf(d, "README.md"));
    assertThat(readme.lines()).containsExactly(
        new Diffstat.Line(Diffstat.Line.Kind.HUNK, 0, 0, "@@ -1,3 +1,4 @@", null),
        new Diffstat.Line(Diffstat.Line.Kind.CONTEXT, 1, 1, "a", null),
        new Diffstat.Line(Diffstat.Line.Kind.REMOVED, 2, 0, "b", null),
        new Diffstat.Line(Diffstat.Line.Kind.ADDED, 0, 2, "B", null),
        new Diffstat.Line(Diffstat.Line.Kind.CONTEXT, 3, 3, "c", null),
        new Diffstat.Line(Diffstat.Line.Kind.ADDED, 0, 4, "\tindented", null));
    // The pushed text as it is: the page, not the diff, keeps it from being read as markup.
    assertThat(d.diffs().get(indexOf(d, "<script>alert(1)</script>.txt")).lines())
        .extracting(Diffstat.Line::text).contains("<script>alert(2)</script>");
    assertThat(d.authors()).isNotEmpty();
  }

  @Test
  void aHugeDiffShowsItsFirstLinesAndCountsTheRest() throws IOException {
    RevCommit old = commit(db, "one\n", Map.of("README.md", "a\n"));
    String many = "line\n".repeat(Diffstat.MAX_LINES + 10);
    String wide = "x".repeat(Diffstat.MAX_LINE_CHARS + 5) + "\n";
    RevCommit next = commit(db, "two\n", Map.of("README.md", "a\n", "a-wide.txt", wide,
        "b-many.txt", many, "c-after.txt", "after\n"), old);

    Diffstat d = Diffstat.of(db, old.name(), next.name());

    assertThat(d.diffs().get(indexOf(d, "a-wide.txt")).lines().get(1).text())
        .isEqualTo("x".repeat(Diffstat.MAX_LINE_CHARS) + "… (5 more characters)");
    Diffstat.FileDiff big = d.diffs().get(indexOf(d, "b-many.txt"));
    assertThat(big.lines()).hasSize(Diffstat.MAX_LINES - 2);
    assertThat(big.hiddenLines()).isEqualTo(13); // its hunk header is one of the lines shown
    assertThat(d.diffs().get(indexOf(d, "c-after.txt"))).isEqualTo(
        new Diffstat.FileDiff(List.of(), 1));
    assertThat(d.files().get(indexOf(d, "c-after.txt")).added()).isEqualTo(1);
  }

  @Test
  void aSecretTheContentRulesFindIsMarkedOnItsLineAndNeverShown() throws IOException {
    String secret = FakeSecrets.githubPat();
    RevCommit main = commit(db, "main\n", Map.of("README.md", "a\n"));
    TestRepos.setRef(db, "refs/heads/main", main);
    RevCommit next = commit(db, "app\n", Map.of("README.md", "a\n",
        "src/app.py", "import os\nTOKEN = \"" + secret + "\"\nprint(TOKEN)\n"), main);

    Diffstat d = Diffstat.of(db, "refs/heads/main", main.name(), next.name(),
        dev.pushgate.policy.ContentRules.DEFAULT);

    assertThat(d.findings()).containsExactly(new Diffstat.Finding("src/app.py", 2,
        "src/app.py:2 holds a GitHub personal access token (rule \"no secrets\", gitleaks id"
            + " github-pat)", "deny"));
    List<Diffstat.Line> lines = d.diffs().get(indexOf(d, "src/app.py")).lines();
    assertThat(lines.get(2).newLine()).isEqualTo(2);
    assertThat(lines.get(2).finding()).isEqualTo(d.findings().get(0).text());
    assertThat(lines.get(3).finding()).isNull();
    assertThat(d.toString()).doesNotContain(secret);
  }

  private static int indexOf(Diffstat d, String path) {
    for (int i = 0; i < d.files().size(); i++) {
      if (d.files().get(i).path().equals(path)) {
        return i;
      }
    }
    throw new AssertionError("no " + path + " in " + d.files());
  }
}
