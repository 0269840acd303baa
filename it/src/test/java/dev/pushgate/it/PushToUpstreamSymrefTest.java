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
 * Every door to the effect {@link SymrefPushMovesNoDeniedRefTest} found: a command naming one of upstream's
 * symbolic refs is judged as what upstream's receive-pack changes, the ref at the end of its
 * chain, and refused in git's own output when that is denied; deleting one is refused. The
 * symrefs are made on the forge (a GHES admin, a mirror): the agent cannot make one.
 */
class PushToUpstreamSymrefTest {
  private static final String DENY_MAIN = """
      {"workspaceId": "ws-%s", "repository": "acme/%s",
       "rules": {"push": [{"refs": "refs/heads/main", "decision": "deny",
                           "reason": "push to main is denied"},
                          {"refs": "refs/tags/*", "decision": "deny",
                           "reason": "tags are made by the release job"}]}}""";

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving()
      .withRepos("acme/chain", "acme/atomic", "acme/tagged", "acme/allowed", "acme/deleted");

  @Test
  void aChainOfSymrefsIsFollowedToTheDeniedRefAndRefusedInGitsWords() throws Exception {
    link("acme/chain", "refs/heads/a1", "refs/heads/a2");
    link("acme/chain", "refs/heads/a2", "refs/heads/main");
    ObjectId main = ForgeRefs.ref(app.get(), "acme/chain", "refs/heads/main");
    Clone c = cloneWithACommit("chain");

    GitRun.Result push = c.git.in(c.work, "push", "origin", "HEAD:refs/heads/a1");

    assertThat(push.exit()).isNotZero();
    assertThat(push.stderr()).contains(" ! [remote rejected] HEAD -> a1 (Control Center policy:"
        + " refs/heads/a1 is a symbolic ref upstream to refs/heads/main, which this push would"
        + " move: push to main is denied)");
    assertThat(ForgeRefs.ref(app.get(), "acme/chain", "refs/heads/main")).isEqualTo(main);
  }

  @Test
  void anAtomicPushWithASymrefToADeniedRefMovesNothing() throws Exception {
    link("acme/atomic", "refs/heads/alias", "refs/heads/main");
    ObjectId main = ForgeRefs.ref(app.get(), "acme/atomic", "refs/heads/main");
    Clone c = cloneWithACommit("atomic");

    GitRun.Result push = c.git.in(c.work, "push", "--atomic", "origin",
        "HEAD:refs/heads/feature", "HEAD:refs/heads/alias");

    assertThat(push.exit()).isNotZero();
    assertThat(push.stderr()).contains("HEAD -> alias (Control Center policy: refs/heads/alias is"
        + " a symbolic ref upstream to refs/heads/main, which this push would move: push to main"
        + " is denied)");
    assertThat(ForgeRefs.of(app.get(), "acme/atomic")).doesNotContainKey("refs/heads/feature");
    assertThat(ForgeRefs.ref(app.get(), "acme/atomic", "refs/heads/main")).isEqualTo(main);
  }

  @Test
  void aSymbolicBranchToATagIsJudgedAsThatTag() throws Exception {
    ObjectId main = ForgeRefs.ref(app.get(), "acme/tagged", "refs/heads/main");
    point("acme/tagged", "refs/tags/v1", main);
    link("acme/tagged", "refs/heads/latest", "refs/tags/v1");
    Clone c = cloneWithACommit("tagged");

    GitRun.Result push = c.git.in(c.work, "push", "origin", "HEAD:refs/heads/latest");

    assertThat(push.stderr()).contains("Control Center policy: refs/heads/latest is a symbolic"
        + " ref upstream to refs/tags/v1, which this push would move: tags are made by the"
        + " release job");
    assertThat(ForgeRefs.ref(app.get(), "acme/tagged", "refs/tags/v1")).isEqualTo(main);
  }

  /** Not every symref is refused: one to a branch the rules allow moves it, as upstream does. */
  @Test
  void aPushToASymrefOfAnAllowedBranchMovesThatBranch() throws Exception {
    ObjectId main = ForgeRefs.ref(app.get(), "acme/allowed", "refs/heads/main");
    point("acme/allowed", "refs/heads/dev", main);
    link("acme/allowed", "refs/heads/alias", "refs/heads/dev");
    Clone c = cloneWithACommit("allowed");

    c.git.in(c.work, "push", "origin", "HEAD:refs/heads/alias").ok();

    ObjectId pushed = ObjectId.fromString(c.git.in(c.work, "rev-parse", "HEAD").ok().stdout()
        .trim());
    assertThat(ForgeRefs.ref(app.get(), "acme/allowed", "refs/heads/dev")).isEqualTo(pushed);
  }

  @Test
  void deletingASymrefIsRefusedWithWhatToDoInstead() throws Exception {
    link("acme/deleted", "refs/heads/alias", "refs/heads/main");
    Clone c = cloneWithACommit("deleted");

    GitRun.Result push = c.git.in(c.work, "push", "origin", ":refs/heads/alias");

    assertThat(push.exit()).isNotZero();
    assertThat(push.stderr()).contains("[remote rejected] alias (Control Center policy: deleting"
        + " refs/heads/alias is denied: refs/heads/alias is a symbolic ref upstream to"
        + " refs/heads/main, and upstream would delete refs/heads/main with it; a repository"
        + " admin removes the alias)");
    assertThat(ForgeRefs.of(app.get(), "acme/deleted")).containsKey("refs/heads/main");
  }

  private record Clone(GitRun git, Path work) {}

  private static void link(String repo, String name, String target) throws Exception {
    try (Repository forge = new FileRepository(app.get().forgeRepo(repo).toFile())) {
      forge.updateRef(name).link(target);
    }
  }

  private static void point(String repo, String name, ObjectId id) throws Exception {
    try (Repository forge = new FileRepository(app.get().forgeRepo(repo).toFile())) {
      var update = forge.updateRef(name);
      update.setNewObjectId(id);
      update.update();
    }
  }

  /** A run of {@code acme/<name>} whose rules deny main and tags, and a clone one commit on. */
  private static Clone cloneWithACommit(String name) throws Exception {
    JsonNode run = app.get().createRun(DENY_MAIN.formatted(name, name));
    GitRun git = new GitRun(Files.createDirectories(app.dir().resolve("home-" + name)),
        ForgeRefs.env(run));
    git.in(app.dir(), "clone", "-q", "https://github.com/acme/" + name + ".git", name).ok();
    Path work = app.dir().resolve(name);
    Files.writeString(work.resolve("x.txt"), "through a symref\n");
    git.in(work, "add", "x.txt").ok();
    git.in(work, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m",
        "x").ok();
    return new Clone(git, work);
  }
}
