package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Attack finding (API boundary, symbolic refs upstream; severity: low-medium): an API ref write
 * is judged against the symref list of the repository's latest git sync, and the API path never
 * syncs. A symref an admin made after that sync (hours ago, on a quiet repository) is unknown:
 * a contents write to {@code alias} → main is judged (and asked) as a push to "alias" and moves
 * the denied main. A git push re-lists at its advertisement (the gap is one push's window); the
 * API's gap is unbounded. Control: with the alias listed by the sync, it is denied.
 */
class ApiWriteToSymrefMadeSinceSyncTest {
  @RegisterExtension
  static final ApplianceExtension app =
      ApplianceExtension.serving().forSandboxedRuns().withRepos("acme/widget");

  @Test
  void anApiWriteToASymrefMadeAfterTheLastSyncDoesNotMoveTheDeniedTarget() throws Exception {
    GitHubCliTest.requireGhAndBwrap();
    var run = app.get().createRun("{\"workspaceId\": \"ws-sync\", \"repository\": \"acme/widget\"}");
    GitRun git = new GitRun(Files.createDirectories(app.dir().resolve("h")), ForgeRefs.env(run));
    git.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", "c").ok(); // syncs
    try (Repository forge = new FileRepository(app.get().forgeRepo("acme/widget").toFile())) {
      forge.updateRef("refs/heads/alias").link("refs/heads/main");
    }
    ObjectId main = ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/main");
    Path work = Files.createDirectories(app.dir().resolve("work"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxrwxrwx")));
    Path rules = Files.writeString(app.dir().resolve("rules.yaml"), """
        denyWriteGlobs: []
        push:
          - refs: refs/heads/main
            decision: deny
            reason: main is denied
          - refs: "refs/heads/**"
            decision: allow
        """);
    String script = "curl -sS --max-time 30 -X PUT -H \"Authorization: token $GH_TOKEN\" -d"
        + " '{\"message\":\"m\",\"branch\":\"alias\",\"content\":\"eA==\"}'"
        + " https://api.github.com/repos/acme/widget/contents/y.txt";
    PushgateExec.Result exec;
    try (AllowingApprover approver = AllowingApprover.connect(app.get())) {
      exec = PushgateExec.on(app.get().dataDir, app.dir().resolve("home")).run(work, Map.of(),
          "--workdir", work.toString(), "--rules", rules.toString(), "--", "sh", "-c", script);
    }
    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/main")).as(exec.stdout()).isEqualTo(main);
  }
}
