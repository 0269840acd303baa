package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.Cli;
import dev.pushgate.testkit.ControlClient;
import dev.pushgate.testkit.GitRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Repository names that differ only in case are one repository, as on GitHub: the local forge
 * refuses to create the second spelling, a run for any spelling works on that one repository
 * under its own rules, and two spellings an older forge left behind are served to nobody.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RepositoryNameCaseTest {
  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().withRepos("acme/widget");

  @Test
  void forgeCreateRefusesASecondSpellingOfARepository() throws Exception {
    for (String spelling : List.of("ACME/widget", "acme/Widget", "Acme/WIDGET")) {
      Cli.Result r = Cli.of("forge", "create", spelling, "--data-dir",
          app.get().dataDir.toString()).run();
      assertThat(r.exit()).as(r.out()).isNotZero();
      assertThat(r.out()).as(spelling).contains("repository " + spelling
          + " already exists on the local forge as acme/widget (names are compared without"
          + " regard to case, as on GitHub)");
    }
    assertThat(app.get().dataDir.resolve("forge")).isDirectoryNotContaining("glob:**/ACME")
        .isDirectoryNotContaining("glob:**/Acme");
  }

  @Test
  void aRunForAnotherSpellingWorksOnTheOneRepositoryUnderItsOwnRules(@TempDir Path client)
      throws Exception {
    JsonNode run = app.get().createRun(RunJson.chatMainDenied("ws-case", "ACME/Widget"));
    GitRun git = new GitRun(Files.createDirectories(client.resolve("home")), ForgeRefs.env(run));
    git.in(client, "clone", "https://github.com/ACME/Widget.git", "widget").ok();
    Path work = client.resolve("widget");
    ObjectId main = ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/main");
    assertThat(git.in(work, "rev-parse", "HEAD").ok().stdout().strip()).isEqualTo(main.name());

    Files.writeString(work.resolve("change.txt"), "change\n");
    git.in(work, "add", "change.txt").ok();
    git.in(work, "commit", "-q", "-m", "change").ok();
    git.in(work, "push", "origin", "HEAD:feature").ok();
    ObjectId head = ObjectId.fromString(git.in(work, "rev-parse", "HEAD").ok().stdout().strip());
    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/feature")).isEqualTo(head);

    assertThat(git.in(work, "push", "origin", "HEAD:main").failed().stderr())
        .contains("(Control Center policy: push to main is denied)");
    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/main")).isEqualTo(main);

    // A read token for the repository (as the appliance keeps for the run; the run holds only
    // a sentinel) reads the one repository by either spelling.
    String token = Forge.mintReadToken(app.get(), "acme/widget");
    assertThat(Forge.fetchStatus(app.get(), "acme/widget", token)).isEqualTo(200);
    assertThat(Forge.fetchStatus(app.get(), "ACME/Widget", token)).isEqualTo(200);
  }

  @Test
  void twoSpellingsAnOlderForgeLeftBehindAreServedToNobody() throws Exception {
    // A repository of its own: the spelling planted here leaves the other tests' one alone.
    app.get().forgeCreate("legacy/widget");
    app.get().createRun(RunJson.chatMainDenied("ws-case", "legacy/widget"));
    String token = Forge.mintReadToken(app.get(), "legacy/widget");
    assertThat(Forge.fetchStatus(app.get(), "legacy/widget", token)).isEqualTo(200);

    Path planted = app.get().dataDir.resolve("forge").resolve("LEGACY").resolve("widget.git");
    Files.createDirectories(planted.getParent());
    try (Repository r = new FileRepository(planted.toFile())) {
      r.create(true);
      StoredConfig c = r.getConfig();
      c.setLong("pushgate", null, "repositoryId", 424242);
      c.save();
    }

    assertThat(Forge.fetchStatus(app.get(), "legacy/widget", token)).isEqualTo(404);
    assertThat(Forge.fetchStatus(app.get(), "LEGACY/widget", token)).isEqualTo(404);
    ControlClient.Answer refused =
        app.get().control().post("/v1/runs", RunJson.chatMainDenied("ws-case", "LEGACY/widget"));
    assertThat(refused.status()).as(refused.raw()).isBetween(400, 599).isNotEqualTo(500);
    assertThat(refused.raw()).contains("LEGACY/widget");
  }
}
