package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.GitRun;
import dev.pushgate.types.RepoSlug;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.util.FileUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The caches' directories as the gateway opens them. */
class CacheRepositoriesTest {
  private static final RepoSlug REPO = RepoSlug.parse("acme/widget");

  @TempDir Path tmp;

  /**
   * A push's collision check asks the cache for each object it brings, which the cache lacks:
   * JGit then looks for a preserved pack too, and a missing {@code objects/pack/preserved} cost
   * two exceptions for each.
   */
  @Test
  void anObjectTheCacheLacksIsAskedForWithoutAMissingFile() throws Exception {
    Path root = tmp.resolve("cache");
    ObjectId tip = mainAtRoot(root);
    Path preserved = root.resolve("acme/widget.git/objects/pack/preserved");
    assertThat(preserved).isEmptyDirectory();

    // A cache made before: its first open by a process makes the directory.
    FileUtils.delete(preserved.toFile(), FileUtils.RECURSIVE);
    CacheRepositories later = new CacheRepositories(root);
    try (Repository db = later.open(REPO)) {
      assertThat(preserved).isEmptyDirectory();
      db.getObjectDatabase().has(ObjectId.zeroId()); // the packs listed once, as a push finds them
      List<ExceptionsThrown.Thrown> thrown = ExceptionsThrown.during(() -> {
        for (int i = 1; i <= 5; i++) {
          assertThat(db.getObjectDatabase().has(ObjectId.fromString(
              String.format("%040x", i)))).isFalse();
        }
        assertThat(db.getObjectDatabase().has(tip)).isTrue();
      });
      assertThat(thrown).as("no missing file probed for an object the cache lacks")
          .filteredOn(t -> t.missingFile() && !t.readingTheUsersGitConfig()).isEmpty();
    }

    // To git the directory holds no pack: the cache reads as before.
    assertGitReadsMainAt(root.resolve("acme/widget.git"), tip);
  }

  /**
   * A creation cut short by an older version (descriptors ran out after JGit made refs, objects
   * and hooks, before HEAD and config) and one cut short under the temporary name: the next open
   * makes the cache whole, where JGit alone refused to create it again ("Creating directory ...
   * failed") and every fetch was answered 502 for good.
   */
  @Test
  void aCacheWhoseCreationWasCutShortIsMadeAgain() throws Exception {
    Path root = tmp.resolve("cache");
    Path dir = root.resolve("acme/widget.git");
    for (String made :
        List.of("refs/heads", "refs/tags", "objects/pack", "objects/info", "hooks")) {
      Files.createDirectories(dir.resolve(made));
    }
    Path leftover = Files.createDirectories(root.resolve("acme/.widget.git.new-123/refs"));

    ObjectId tip = mainAtRoot(root);

    assertThat(dir.resolve("HEAD")).isRegularFile();
    assertThat(dir.resolve("config")).content().contains("autogc = false");
    assertThat(leftover.getParent()).doesNotExist();
    try (var names = Files.list(root.resolve("acme"))) {
      assertThat(names.map(p -> p.getFileName().toString())).containsExactly("widget.git");
    }
    assertGitReadsMainAt(dir, tip);
  }

  /**
   * Finding (CI of 2026-12-07): a process killed while the cache moved its refs left their lock
   * files, and JGit never breaks a lock: every sync of the cache failed, each fetch was answered
   * 502, also after the restart. The next process's first open removes them, and the refs can
   * be written again; a file that is not a lock stays.
   */
  @Test
  void locksAProcessEndingMidWriteLeftAreRemovedAtTheNextProcesssFirstOpen() throws Exception {
    Path root = tmp.resolve("cache");
    ObjectId tip = mainAtRoot(root);
    Path dir = root.resolve("acme/widget.git");
    List<Path> left = List.of(dir.resolve("refs/heads/main.lock"),
        dir.resolve("refs/tags/v1.lock"), dir.resolve("packed-refs.lock"),
        dir.resolve("HEAD.lock"), dir.resolve("config.lock"));
    for (Path lock : left) {
      Files.writeString(lock, tip.name() + "\n");
    }
    Path notALock = Files.writeString(dir.resolve("refs/heads/locked"), tip.name() + "\n");
    Path outside = Files.writeString(tmp.resolve("outside.lock"), "not the cache's\n");
    Path link = Files.createSymbolicLink(dir.resolve("refs/heads/link.lock"), outside);
    Path directory = Files.createDirectories(dir.resolve("refs/heads/dir.lock"));

    try (Repository db = new CacheRepositories(root).open(REPO)) {
      ObjectId next = TestRepos.commit(db, "next", Map.of("README", "again"));
      TestRepos.setRef(db, "refs/heads/main", next); // JGit's LOCK_FAILURE before
      assertThat(db.exactRef("refs/heads/main").getObjectId()).isEqualTo(next);
      for (Path lock : left) {
        assertThat(lock).doesNotExist();
      }
      assertThat(notALock).exists();
      assertThat(outside).hasContent("not the cache's");
      assertThat(link).isSymbolicLink();
      assertThat(directory).isDirectory();
    }
  }

  /** Opens (so makes) the cache of {@link #REPO} under {@code root}, with main at a root commit. */
  private static ObjectId mainAtRoot(Path root) throws Exception {
    try (Repository db = new CacheRepositories(root).open(REPO)) {
      ObjectId tip = TestRepos.commit(db, "root", Map.of("README", "hello"));
      TestRepos.setRef(db, "refs/heads/main", tip);
      return tip;
    }
  }

  /** git finds the repository at {@code dir} whole, its main at {@code tip}. */
  private void assertGitReadsMainAt(Path dir, ObjectId tip) throws Exception {
    GitRun git = new GitRun(Files.createDirectories(tmp.resolve("home")), Map.of());
    git.in(dir, "fsck", "--strict").ok();
    assertThat(git.in(dir, "rev-parse", "refs/heads/main").ok().stdout())
        .isEqualTo(tip.name() + "\n");
  }
}
