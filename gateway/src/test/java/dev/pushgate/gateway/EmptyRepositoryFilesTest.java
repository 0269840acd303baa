package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.GitRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The empty files that spare JGit a missing-file exception on every ref read and receive. */
class EmptyRepositoryFilesTest {
  @TempDir Path tmp;

  @Test
  void withThemAReadOfLooseRefsAndAlternatesThrowsNothing() throws Exception {
    Path dir = tmp.resolve("widget.git");
    ObjectId tip = withMain(dir);
    EmptyRepositoryFiles.write(dir);

    // As the forge reads a repository for each request: a new instance, its refs, its alternates.
    List<ExceptionsThrown.Thrown> thrown = ExceptionsThrown.during(() -> {
      for (int i = 0; i < 5; i++) {
        try (FileRepository db = new FileRepository(dir.toFile())) {
          assertThat(db.exactRef("refs/heads/main").getObjectId()).isEqualTo(tip);
          assertThat(db.getRefDatabase().getRefs()).hasSize(1);
          assertThat(db.getAdditionalHaves()).isEmpty();
        }
      }
    });

    assertThat(thrown).as("no missing file of the repository probed")
        .filteredOn(t -> t.missingFile() && !t.readingTheUsersGitConfig()).isEmpty();
  }

  @Test
  void gitReadsThemAsAbsentAndAnExistingOneIsKept() throws Exception {
    Path dir = tmp.resolve("widget.git");
    withMain(dir);
    GitRun git = new GitRun(Files.createDirectories(tmp.resolve("home")), Map.of());
    git.in(dir, "pack-refs", "--all").ok();
    byte[] packed = Files.readAllBytes(dir.resolve("packed-refs"));

    EmptyRepositoryFiles.write(dir);

    assertThat(dir.resolve("packed-refs")).hasBinaryContent(packed);
    assertThat(dir.resolve("objects/info/alternates")).isEmptyFile();
    assertThat(dir.resolve("shallow")).doesNotExist();
    Path fresh = tmp.resolve("fresh.git");
    ObjectId tip = withMain(fresh);
    EmptyRepositoryFiles.write(fresh);
    assertThat(fresh.resolve("packed-refs")).isEmptyFile();
    assertThat(fresh.resolve("objects/info/alternates")).isEmptyFile();
    assertThat(git.in(fresh, "for-each-ref").ok().stdout())
        .isEqualTo(tip.name() + " commit\trefs/heads/main\n");
    assertThat(git.in(fresh, "rev-parse", "--is-shallow-repository").ok().stdout())
        .isEqualTo("false\n");
    git.in(fresh, "fsck", "--strict").ok();
  }

  /** A bare repository at {@code dir} with one commit on main (its ref a loose file), its id. */
  private static ObjectId withMain(Path dir) throws Exception {
    try (Repository db = TestRepos.bare(dir)) {
      ObjectId tip = TestRepos.commit(db, "root", Map.of("README", "hello"));
      TestRepos.setRef(db, "refs/heads/main", tip);
      return tip;
    }
  }
}
