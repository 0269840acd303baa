package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.ApplianceExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 28, "the mode at every door": a run in plan mode inside {@code pushgate exec} whose
 * {@code git push} never passes the command hook (a script runs it) is refused by the gateway,
 * in git's own output, naming the mode; its GitHub API writes, objects-only writes included, are
 * refused by the API boundary in the same words. Nothing reaches the forge.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReadOnlyModeDoorsTest {
  private static final String REFUSED = "Control Center policy: push to refs/heads/plan-notes is"
      + " denied in plan mode, which is read-only";

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving()
      .forSandboxedRuns().withRepos("acme/widget");

  @BeforeAll
  void start() throws Exception {
    GitHubCliTest.requireGhAndBwrap();
  }

  @Test
  void aPlanModeRunsPushAndApiWritesAreRefusedNamingTheMode() throws Exception {
    Path cwd = Files.createDirectories(app.dir().resolve("agent"));
    Files.setPosixFilePermissions(cwd, PosixFilePermissions.fromString("rwxrwxrwx"));
    // The rules allow every push: only the mode refuses.
    Path rules = Files.writeString(app.dir().resolve("rules.yaml"), "push: allow\n");
    String script = """
        set -u
        export GH_PROMPT_DISABLED=1 GH_NO_UPDATE_NOTIFIER=1 NO_COLOR=1 GH_CONFIG_DIR=/tmp/gh
        step() { name=$1; shift; "$@" > /tmp/step.out 2>&1; echo "== $name $?"; cat /tmp/step.out; }
        # The checkout is another run's (another sandbox user): git wants it named safe.
        step push git -c safe.directory='*' push origin HEAD:refs/heads/plan-notes
        step blob gh api repos/acme/widget/git/blobs -f content=notes -f encoding=utf-8
        step issue gh api repos/acme/widget/issues -f title=notes
        echo "== end"
        """;
    // A plan-mode run cannot clone (its directories are read-only): a chat run clones and commits.
    PushgateExec launcher = PushgateExec.on(app.get().dataDir, app.dir().resolve("home"));
    PushgateExec.Result chat = launcher.run(cwd, Map.of(), "--rules", rules.toString(), "--",
        "git", "commit", "-q", "--allow-empty", "-m", "notes");
    assertThat(chat.exit()).as(chat.stderr() + chat.stdout()).isZero();
    Path checkout = cwd.resolve("widget");
    PushgateExec.Result exec = launcher.run(checkout, Map.of(), "--workdir", checkout.toString(),
        "--mode", "plan", "--rules", rules.toString(), "--", "sh", "-c", script);
    String out = exec.stdout();
    String all = out + "\n" + exec.stderr();
    assertThat(out).as(all).contains("== end");

    assertThat(out).as(all).contains("== push 1");
    assertThat(out).contains("! [remote rejected] HEAD -> plan-notes (" + REFUSED + ")");
    assertThat(out).contains("== blob 1").contains("Control Center policy: creating git objects"
        + " is denied in plan mode, which is read-only");
    assertThat(out).contains("== issue 1").contains("is denied in plan mode, which is read-only");

    try (Repository r = new FileRepository(app.get().forgeRepo("acme/widget").toFile())) {
      assertThat(r.exactRef("refs/heads/plan-notes")).isNull();
    }
    // The refusal is audited with the mode's reason and the mode as its rule.
    String audit = app.get().control().get("/v1/audit?runId=" + exec.runId()).body().toString();
    assertThat(audit).contains("push to refs/heads/plan-notes is denied in plan mode, which is"
        + " read-only").contains("plan mode");
  }
}
