package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Attack finding (push path, severity: medium; the delete variant high where upstream can hold a symbolic branch, e.g. a
 * GHES or mirror whose admin aliased a branch; the agent cannot create one): the rule judges the
 * ref name the command names, but upstream's receive-pack follows a symbolic ref. A push to
 * {@code refs/heads/alias}, a symref to the denied {@code refs/heads/main}, is allowed as a push
 * to "alias" and moves main upstream.
 */
class SymrefPushMovesNoDeniedRefTest {
  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().withRepos("acme/widget", "acme/gadget");

  @Test
  void aPushToAnUpstreamSymbolicRefDoesNotMoveTheDeniedRefItNames() throws Exception {
    try (Repository forge = new FileRepository(app.get().forgeRepo("acme/widget").toFile())) {
      forge.updateRef("refs/heads/alias").link("refs/heads/main");
    }
    ObjectId main = ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/main");
    JsonNode run = app.get().createRun("""
        {"workspaceId": "ws-a", "repository": "acme/widget",
         "rules": {"push": [{"refs": "refs/heads/main", "decision": "deny",
                             "reason": "push to main is denied"}]}}""");
    GitRun git = new GitRun(Files.createDirectories(app.dir().resolve("home")), ForgeRefs.env(run));
    git.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", "w").ok();
    Path work = app.dir().resolve("w");
    Files.writeString(work.resolve("x.txt"), "through the alias\n");
    git.in(work, "add", "x.txt").ok();
    git.in(work, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m", "x")
        .ok();
    git.in(work, "push", "origin", "HEAD:refs/heads/alias");

    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/main"))
        .as("main, denied, moved through upstream's symref refs/heads/alias").isEqualTo(main);
  }

  /** The same door, worse: deleting the alias (allowed) deletes main upstream. */
  @Test
  void deletingAnUpstreamSymbolicRefDoesNotDeleteTheDeniedRefItNames() throws Exception {
    try (Repository forge = new FileRepository(app.get().forgeRepo("acme/gadget").toFile())) {
      forge.updateRef("refs/heads/alias2").link("refs/heads/main");
    }
    JsonNode run = app.get().createRun("""
        {"workspaceId": "ws-b", "repository": "acme/gadget",
         "rules": {"push": [{"refs": "refs/heads/main", "decision": "deny"}]}}""");
    GitRun git = new GitRun(Files.createDirectories(app.dir().resolve("home2")), ForgeRefs.env(run));
    git.in(app.dir(), "clone", "-q", "https://github.com/acme/gadget.git", "w2").ok();
    git.in(app.dir().resolve("w2"), "push", "origin", ":refs/heads/alias2");

    assertThat(ForgeRefs.of(app.get(), "acme/gadget")).as("main, denied, deleted through a symref")
        .containsKey("refs/heads/main");
  }
}
