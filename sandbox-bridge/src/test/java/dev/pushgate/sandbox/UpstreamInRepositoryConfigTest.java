package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A repository's {@code .git/config} under the name-deny layer, with real bubblewrap, FUSE and
 * git: git stores a branch's upstream there (the layer asks the launcher, which judges the edit
 * with {@link dev.pushgate.gitconfig.UpstreamConfigEdit}), and every other edit, by git or by any
 * other way of writing the file, is refused with its reason. docs/sandbox.md, "The repository's
 * .git/config: only an upstream".
 */
class UpstreamInRepositoryConfigTest {
  @TempDir Path tmp;
  private RealBwrap.RunDirs dirs;
  private Path work;
  private final LocalLauncher launcher = new LocalLauncher(LocalLauncher.Settings.defaults());

  @BeforeEach
  void repository() throws Exception {
    RealBwrap.require();
    NameDenyLayerTest.requireLayer();
    dirs = RealBwrap.RunDirs.in(tmp);
    work = dirs.work();
    git("init", "-q", "-b", "main");
    git("remote", "add", "origin", "https://github.com/acme/widget.git");
  }

  private void git(String... args) throws Exception {
    List<String> cmd = new java.util.ArrayList<>(List.of("git", "-C", work.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(out).isZero();
  }

  private RealBwrap.Run sh(String... lines) throws Exception {
    SandboxPlan plan = dirs.underDefaultRules();
    String script = String.join("\n", List.of(
        "try() { if \"$@\" 2>/dev/null; then echo \"ALLOWED $*\"; else echo \"refused $*\"; fi; }"))
        + "\n" + String.join("\n", lines);
    return RealBwrap.run(launcher, LaunchRequest.of(plan, List.of("/bin/sh", "-c", script)));
  }

  private String hostConfig() throws Exception {
    return Files.readString(work.resolve(".git/config"), StandardCharsets.ISO_8859_1);
  }

  private static List<String> reasons(RealBwrap.Run run) {
    return run.violations().stream().map(RefusalReason::line).toList();
  }

  @Test
  void gitStoresAnUpstreamAndItOutlivesTheRun() throws Exception {
    RealBwrap.Run run = sh(
        "git config branch.feature/x.remote origin && echo stored-remote",
        "git config branch.feature/x.merge refs/heads/feature/x && echo stored-merge",
        "git config --get branch.feature/x.merge",
        "git branch --unset-upstream main 2>/dev/null; echo done");
    assertThat(run.stdout()).as(run.stderr())
        .contains("stored-remote", "stored-merge", "refs/heads/feature/x", "done");
    assertThat(hostConfig()).contains("[branch \"feature/x\"]", "remote = origin",
        "merge = refs/heads/feature/x");
    // the end-of-run check keeps it: the same judge, no "put back"
    assertThat(run.violations()).isEmpty();
    assertThat(Files.list(work.resolve(".git")).map(p -> p.getFileName().toString()))
        .noneMatch(n -> n.startsWith("config.") && !n.equals("config.worktree"));
  }

  @Test
  void everyOtherEditOfTheConfigIsRefusedWithItsReasonAndNothingIsWritten() throws Exception {
    String before = hostConfig();
    RealBwrap.Run run = sh(
        "try git config core.fsmonitor /tmp/evil",
        "try git config core.hooksPath /tmp/hooks",
        "try git config include.path /tmp/more",
        "try git config remote.origin.url https://evil.example/widget.git",
        "try git config branch.x.remote nowhere",
        "try git config branch.x.pushRemote origin",
        // the file by every other door: appended, truncated, removed, replaced, linked
        "try sh -c 'printf \"[core]\\n\\tfsmonitor = x\\n\" >> .git/config'",
        "try truncate -s 0 .git/config",
        "try rm -f .git/config",
        "try mv .git/config .git/config.away",
        "try ln .git/config linked-config",
        "cp .git/config /tmp/c && printf '[core]\\n\\thooksPath = /tmp\\n' >> /tmp/c",
        "cp /tmp/c .git/other && try mv .git/other .git/config",
        "rm -f .git/other",
        "ln -s /tmp/c .git/config.lock && try mv .git/config.lock .git/config",
        "rm -f .git/config.lock",
        // a lock holding a continuation-line trick: git reads no [core] section there, but the
        // value "origin[core]" and a branch "y" setting "fsmonitor"
        "cp .git/config .git/config.lock",
        "printf '[branch \"y\"]\\n\\tremote = origin\\\\\\n[core]\\n\\tfsmonitor = x\\n'"
            + " >> .git/config.lock",
        "try mv .git/config.lock .git/config",
        "rm -f .git/config.lock",
        "git config --get core.fsmonitor || echo no-fsmonitor");
    assertThat(run.stdout()).as(run.stderr()).doesNotContain("ALLOWED").contains("no-fsmonitor");
    assertThat(hostConfig()).isEqualTo(before);
    List<String> reasons = reasons(run);
    assertThat(reasons).anySatisfy(r -> assertThat(r)
        .contains("only by adding an upstream to a branch that has none", "\"core.fsmonitor\""));
    assertThat(reasons).anySatisfy(r -> assertThat(r)
        .contains("names no remote this repository has", "\"nowhere\""));
    assertThat(reasons).anySatisfy(r -> assertThat(r).contains("\"remote.origin.url\""));
    assertThat(reasons).anySatisfy(r -> assertThat(r).contains("\"branch.y.fsmonitor\""));
    assertThat(reasons).allSatisfy(r -> assertThat(r).startsWith("file-write* \"" + work
        + "/.git/config\""));
  }

  @Test
  void anUpstreamTheOperatorsBranchHasIsNeitherRepointedNorRemoved() throws Exception {
    // Attack 30c: re-pointed, the operator's next git pull on main would merge the agent's branch.
    git("config", "branch.main.remote", "origin");
    git("config", "branch.main.merge", "refs/heads/main");
    String before = hostConfig();
    RealBwrap.Run run = sh(
        "try git config branch.main.merge refs/heads/evil",
        "try git branch --unset-upstream main",
        "try git config branch.x.remote origin",
        "try git config branch.x.merge refs/heads/../../HEAD",
        "try git config branch.y.merge refs/heads/--upload-pack=x");
    assertThat(run.stdout()).as(run.stderr()).containsSubsequence(
        "refused git config branch.main.merge refs/heads/evil",
        "refused git branch --unset-upstream main",
        "ALLOWED git config branch.x.remote origin",
        "refused git config branch.x.merge refs/heads/../../HEAD",
        "refused git config branch.y.merge refs/heads/--upload-pack=x");
    assertThat(hostConfig()).isEqualTo(before + "[branch \"x\"]\n\tremote = origin\n");
    List<String> reasons = reasons(run);
    assertThat(reasons).anySatisfy(r -> assertThat(r)
        .contains(dev.pushgate.gitconfig.UpstreamConfigEdit.EXISTING_UPSTREAM, "\"branch.main\""));
    assertThat(reasons).anySatisfy(r -> assertThat(r)
        .contains("must be refs/heads/ and a valid branch name", "\"refs/heads/../../HEAD\""));
  }
}
