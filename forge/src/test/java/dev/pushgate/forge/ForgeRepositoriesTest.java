package dev.pushgate.forge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Repository names on the local forge, compared as GitHub compares them: without case. */
class ForgeRepositoriesTest {
  @TempDir Path root;

  @Test
  void aNameThatDiffersOnlyInCaseIsTheSameRepository() throws Exception {
    ForgeRepositories repos = new ForgeRepositories(root);
    ForgeRepositories.ForgeRepo created = repos.create(RepoSlug.parse("acme/widget"));

    assertThat(repos.find(RepoSlug.parse("ACME/Widget"))).hasValueSatisfying(r -> {
      assertThat(r.id()).isEqualTo(created.id());
      assertThat(r.slug()).isEqualTo(RepoSlug.parse("acme/widget"));
    });
    for (String other : new String[] {"ACME/widget", "acme/WIDGET", "Acme/Widget"}) {
      assertThatThrownBy(() -> repos.create(RepoSlug.parse(other)))
          .as(other).isInstanceOf(IOException.class)
          .hasMessage("repository " + other + " already exists on the local forge as"
              + " acme/widget (names are compared without regard to case, as on GitHub)");
    }
    assertThat(Files.exists(root.resolve("ACME"))).isFalse();
    assertThat(repos.all()).singleElement().isEqualTo(created);
  }

  @Test
  void aNewRepositoryHasTheEmptyFilesThatSpareJgitAMissingFileOnEveryRead() throws Exception {
    ForgeRepositories.ForgeRepo created = new ForgeRepositories(root)
        .create(RepoSlug.parse("acme/widget"));

    assertThat(created.dir().resolve("packed-refs")).isEmptyFile();
    assertThat(created.dir().resolve("objects/info/alternates")).isEmptyFile();
    try (Repository db = new FileRepository(created.dir().toFile())) {
      assertThat(db.exactRef("HEAD").getTarget().getName()).isEqualTo("refs/heads/main");
      assertThat(db.exactRef("refs/heads/main")).isNotNull();
    }
  }

  @Test
  void twoSpellingsLeftByAnOlderForgeAreAmbiguousAndNeitherIsServed() throws Exception {
    ForgeRepositories repos = new ForgeRepositories(root);
    ForgeRepositories.ForgeRepo first = repos.create(RepoSlug.parse("acme/widget"));
    // What a forge without the case check left behind: a second repository, its own id.
    Path second = root.resolve("ACME").resolve("widget.git");
    Files.createDirectories(second.getParent());
    try (Repository r = new FileRepository(second.toFile())) {
      r.create(true);
      StoredConfig c = r.getConfig();
      c.setLong("pushgate", null, "repositoryId", first.id() + 1);
      c.save();
    }

    assertThat(repos.find(RepoSlug.parse("acme/widget"))).isEmpty();
    assertThat(repos.find(RepoSlug.parse("ACME/widget"))).isEmpty();
    assertThatThrownBy(() -> repos.create(RepoSlug.parse("Acme/Widget")))
        .isInstanceOf(IOException.class).hasMessageContaining("already exists");
  }

  @Test
  void aRepositoryMadeAgainUnderItsNameIsFoundWithItsNewId() throws Exception {
    ForgeRepositories repos = new ForgeRepositories(root);
    ForgeRepositories.ForgeRepo first = repos.create(RepoSlug.parse("acme/widget"));
    assertThat(repos.find(RepoSlug.parse("acme/widget"))).contains(first);

    // The ids are kept between look-ups; the config written afresh is read again.
    org.eclipse.jgit.util.FileUtils.delete(first.dir().toFile(),
        org.eclipse.jgit.util.FileUtils.RECURSIVE);
    ForgeRepositories.ForgeRepo again = repos.create(RepoSlug.parse("acme/widget"));

    assertThat(again.id()).isNotEqualTo(first.id());
    assertThat(repos.find(RepoSlug.parse("acme/widget"))).contains(again);
    assertThat(repos.ofInstallation(ForgeAppKey.installationIdOf("acme"))).containsExactly(again);
  }
}
