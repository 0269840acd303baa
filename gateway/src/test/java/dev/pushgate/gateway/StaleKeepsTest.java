package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.types.RepoSlug;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process that ended mid-receive left the received pack's {@code .keep} in the cache, and a
 * kept pack is never compacted (attack finding atk-push, low). The next process removes JGit's own
 * when it first opens the cache, and nothing after that.
 */
class StaleKeepsTest {
  private static final RepoSlug REPO = RepoSlug.parse("acme/widget");
  private static final String PACK = "pack-0123456789abcdef0123456789abcdef01234567";

  @TempDir Path tmp;

  @Test
  void theFirstOpenOfACacheRemovesTheKeepsACrashedProcessLeftAndNoOther() throws Exception {
    CacheRepositories before = new CacheRepositories(tmp);
    before.open(REPO).close(); // the cache made by the process that then crashed
    Path packs = Files.createDirectories(before.directoryOf(REPO).resolve("objects/pack"));
    Path received = Files.writeString(packs.resolve(PACK + ".keep"),
        "jgit receive-pack from A <a@example.com> 1733450000 +0000\n");
    Path fetched = Files.writeString(packs.resolve("pack-1" + PACK.substring(6) + ".keep"),
        "jgit fetch https://github.com/acme/widget.git\n");
    Path operators = Files.writeString(packs.resolve("pack-2" + PACK.substring(6) + ".keep"),
        "kept by the operator\n");

    CacheRepositories after = new CacheRepositories(tmp);
    try (Repository db = after.open(REPO)) {
      assertThat(received).as("a receive's .keep left by a crash").doesNotExist();
      assertThat(fetched).as("a fetch's .keep left by a crash").doesNotExist();
      assertThat(operators).as("a .keep JGit did not write").exists();
    }

    Path live = Files.writeString(received, "jgit receive-pack from B <b@example.com>\n");
    after.open(REPO).close();
    assertThat(live).as("the .keep of a receive under way in this process").exists();
  }

  @Test
  void aCacheWithoutPacksOpens() throws Exception {
    try (Repository db = new CacheRepositories(tmp).open(REPO)) {
      assertThat(db.getObjectDatabase().exists()).isTrue();
    }
  }
}
