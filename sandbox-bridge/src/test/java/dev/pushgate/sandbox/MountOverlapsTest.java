package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.policy.Mode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A writable mount never opens a read-only one through another spelling of its directory: the
 * planner refuses the request, naming the field (a docs-only attack made a plan run's workspace
 * writable with a runner state directory that was a symlink to the workdir).
 */
class MountOverlapsTest {
  private static final ProbeResult LINUX = BackendProbe.probe(Platform.LINUX, n -> true);

  @TempDir Path dir;
  private Path root;
  private Path workdir;
  private Path config;
  private Path state;

  @BeforeEach
  void layout() throws Exception {
    root = dir.toRealPath();
    workdir = Files.createDirectories(root.resolve("agents/a1/work"));
    config = Files.createDirectories(root.resolve("agents/a1/config"));
    state = Files.createDirectories(root.resolve("state/claude"));
  }

  private SandboxPlanner planner() {
    return new SandboxPlanner(LINUX, SandboxSwitch.ON, false, root.resolve("home"),
        EnvironmentVariables.of(Map.of("PATH", "/usr/bin")), EgressLists.embedded(),
        PassedVariables.NONE);
  }

  private SandboxPlan planWith(Mode mode, String workdirPath, String configPath,
      String... stateDirs) {
    return planProtecting(mode, workdirPath, configPath, List.of(), stateDirs);
  }

  private SandboxPlan planProtecting(Mode mode, String workdirPath, String configPath,
      List<String> protectedPaths, String... stateDirs) {
    RunPaths paths = new RunPaths(workdirPath, configPath, null, null, protectedPaths,
        List.of(stateDirs), List.of());
    return planner().plan(
        SandboxRequest.builder("s", "w", Runner.CLAUDE_CODE, paths).mode(mode).build());
  }

  private SandboxPlan plan(Mode mode, String... stateDirs) {
    return planWith(mode, workdir.toString(), config.toString(), stateDirs);
  }

  @ParameterizedTest
  @EnumSource(value = Mode.class, names = {"PLAN", "REVIEW", "ORCHESTRATE"})
  void aStateDirectoryThatIsALinkToTheWorkdirIsRefused(Mode mode) throws Exception {
    Path link = Files.createSymbolicLink(root.resolve("state/link"), workdir);
    assertThatThrownBy(() -> plan(mode, link.toString()))
        .isInstanceOf(SandboxRequestException.class)
        .hasFieldOrPropertyWithValue("field", "runnerStateDirs[0]")
        .hasMessage("runnerStateDirs[0] " + link + " resolves to " + workdir + ", which is the"
            + " read-only workdir " + workdir + ": mounted writable, it would make that directory"
            + " writable through another path; give a directory that neither is nor contains it,"
            + " as the kernel resolves both");
  }

  @Test
  void aWorkdirThatIsALinkToAStateDirectoryIsRefused() throws Exception {
    Path link = Files.createSymbolicLink(root.resolve("agents/a1/work-link"), state);
    assertThatThrownBy(() -> planWith(Mode.PLAN, link.toString(), config.toString(),
        state.toString()))
        .hasFieldOrPropertyWithValue("field", "runnerStateDirs[0]")
        .hasMessageStartingWith("runnerStateDirs[0] " + state + " is the read-only workdir "
            + link + " (it resolves to " + state + ")");
  }

  @Test
  void aStateDirectoryThatResolvesAroundTheWorkdirIsRefused() throws Exception {
    Path link = Files.createSymbolicLink(root.resolve("state/agents"), root.resolve("agents"));
    assertThatThrownBy(() -> plan(Mode.PLAN, link.toString()))
        .hasFieldOrPropertyWithValue("field", "runnerStateDirs[0]")
        .hasMessageContaining("resolves to " + root.resolve("agents") + ", which contains the"
            + " read-only workdir " + workdir);
  }

  @Test
  void aStateDirectoryJustAboveTheWorkdirAsWrittenKeepsTheWorkdirReadOnly() {
    // Parents are mounted first: the read-only workdir is mounted over the writable state.
    Path a1 = workdir.getParent();
    SandboxPlan plan = plan(Mode.PLAN, a1.toString());
    assertThat(plan.spec().runnerStateDirs()).containsExactly(a1.toString());
    assertThat(BubblewrapArgv.mounts(plan.spec())).containsSubsequence(
        SandboxBindMount.of(a1.toString(), false), SandboxBindMount.of(workdir.toString(), true));
  }

  /**
   * Deeper, the run could rename the directory on the way ({@code agents/a1}, no mount point)
   * and leave a workdir of its own at the workdir's path on the host (a docs-only attack).
   */
  @Test
  void aStateDirectoryTwoLevelsAboveAReadOnlyMountIsRefused() {
    assertThatThrownBy(() -> plan(Mode.PLAN, root.resolve("agents").toString()))
        .hasFieldOrPropertyWithValue("field", "runnerStateDirs[0]")
        .hasMessage("runnerStateDirs[0] " + root.resolve("agents") + " contains the read-only"
            + " workdir " + workdir + " 2 levels down: the run could rename a directory on the"
            + " way and leave its own in that one's place; give a directory whose direct child"
            + " it is, or one that does not contain it");
  }

  @ParameterizedTest
  @EnumSource(value = Mode.class, names = {"CHAT", "PLAN"})
  void aLinkToTheAgentsConfigDirectoryIsRefusedInEveryMode(Mode mode) throws Exception {
    Path link = Files.createSymbolicLink(root.resolve("state/config"), config);
    assertThatThrownBy(() -> plan(mode, link.toString()))
        .hasFieldOrPropertyWithValue("field", "runnerStateDirs[0]")
        .hasMessageContaining("which is the read-only agentConfigDir " + config);
  }

  @Test
  void theAgentsConfigDirectoryMayHoldTheRunnersStateButNotBeIt() throws Exception {
    // As one directory it could only be mounted read-only, and the launch could not put the
    // runner state's denies inside it: refused at once rather than at every launch.
    assertThatThrownBy(() -> plan(Mode.PLAN, config.toString()))
        .hasFieldOrPropertyWithValue("field", "runnerStateDirs[0]")
        .hasMessage("runnerStateDirs[0] " + config + " is the read-only agentConfigDir " + config
            + ": a directory is mounted once, writable or read-only; give each its own"
            + " directory");
    Files.createDirectories(config.resolve("projects"));
    SandboxPlan inside = plan(Mode.PLAN, config.resolve("projects").toString());
    assertThat(inside.spec().runnerStateDirs()).containsExactly(
        config.resolve("projects").toString());
  }

  @Test
  void aStateDirectoryInsideTheAgentsConfigDirectoryThroughALinkIsRefused() throws Exception {
    Files.createDirectories(config.resolve("projects"));
    Path link =
        Files.createSymbolicLink(root.resolve("state/projects"), config.resolve("projects"));
    assertThatThrownBy(() -> plan(Mode.CHAT, link.toString()))
        .hasFieldOrPropertyWithValue("field", "runnerStateDirs[0]")
        .hasMessageContaining("lies inside the read-only agentConfigDir " + config);
  }

  @Test
  void aStateDirectoryInsideAReadOnlyWorkdirIsRefusedAsWrittenToo() throws Exception {
    Files.createDirectories(workdir.resolve(".git"));
    assertThatThrownBy(() -> plan(Mode.PLAN, workdir.resolve(".git").toString()))
        .hasFieldOrPropertyWithValue("field", "runnerStateDirs[0]")
        .hasMessage("runnerStateDirs[0] " + workdir.resolve(".git") + " lies inside the"
            + " read-only workdir " + workdir + ": mounted writable, it would let the run write"
            + " inside that directory; give a directory outside it (a runner's state may live in"
            + " agentConfigDir, never in the workdir, the repositories or the attachments)");
    // In chat the workdir is writable: its state directory opens nothing.
    assertThat(plan(Mode.CHAT, workdir.resolve(".git").toString()).spec().runnerStateDirs())
        .hasSize(1);
  }

  @Test
  void aWritableWorkdirThatResolvesAroundTheAgentsConfigDirectoryIsRefused() throws Exception {
    Path inWork = Files.createDirectories(workdir.resolve(".claude"));
    Path link = Files.createSymbolicLink(root.resolve("agents/a1/config-link"), inWork);
    assertThatThrownBy(() -> planWith(Mode.CHAT, workdir.toString(), link.toString()))
        .hasFieldOrPropertyWithValue("field", "workdir")
        .hasMessageContaining("contains the read-only agentConfigDir " + link
            + " (it resolves to " + inWork + ")");
    // As written, the config directory is mounted read-only over the writable workdir.
    assertThat(planWith(Mode.CHAT, workdir.toString(), inWork.toString()).spec().bindMounts())
        .contains(SandboxBindMount.of(inWork.toString(), true));
  }

  @Test
  void pathsUnderOneLinkedParentRelateAsWrittenAndAreAccepted() throws Exception {
    Files.createDirectories(config.resolve("projects"));
    Path linked = Files.createSymbolicLink(root.resolve("linked"), root.resolve("agents"));
    Path configViaLink = linked.resolve("a1/config");
    SandboxPlan plan = planWith(Mode.PLAN, linked.resolve("a1/work").toString(),
        configViaLink.toString(), configViaLink.resolve("projects").toString());
    assertThat(plan.spec().runnerStateDirs()).hasSize(1);
  }

  /**
   * A protected path (a registered original checkout) is write-denied in every mode: bubblewrap
   * covers it only where it lies inside a writable mount as written.
   */
  @Test
  void aWritableMountThatResolvesToOrAroundAProtectedPathIsRefused() throws Exception {
    Path checkout = Files.createDirectories(root.resolve("home/u/src/repo"));
    Path toCheckout = Files.createSymbolicLink(root.resolve("state/repo"), checkout);
    Path toSrc = Files.createSymbolicLink(root.resolve("state/src"), checkout.getParent());
    List<String> protectedPaths = List.of(checkout.toString());
    assertThatThrownBy(() -> planProtecting(Mode.CHAT, workdir.toString(), config.toString(),
        protectedPaths, toCheckout.toString()))
        .hasFieldOrPropertyWithValue("field", "runnerStateDirs[0]")
        .hasMessage("runnerStateDirs[0] " + toCheckout + " resolves to " + checkout + ", which"
            + " is the protected path " + checkout + ": mounted writable, it would make that"
            + " directory writable through another path; give a directory that neither is nor"
            + " contains it, as the kernel resolves both");
    assertThatThrownBy(() -> planProtecting(Mode.PLAN, workdir.toString(), config.toString(),
        protectedPaths, toSrc.toString()))
        .hasMessageContaining("which contains the protected path " + checkout);
    // A writable workdir inside a protected path, as written or resolved, writes it.
    Path inside = Files.createDirectories(checkout.resolve("sub"));
    assertThatThrownBy(() -> planProtecting(Mode.CHAT, inside.toString(), config.toString(),
        protectedPaths))
        .hasFieldOrPropertyWithValue("field", "workdir")
        .hasMessage("workdir " + inside + " lies inside the protected path " + checkout
            + ", which a run never writes; give a directory outside it");
  }

  @Test
  void aProtectedPathInsideAWritableMountIsCoveredAtItsSpellingsAndAccepted() throws Exception {
    Path sub = Files.createDirectories(workdir.resolve("vendor"));
    Path linkToSub = Files.createSymbolicLink(root.resolve("agents/a1/vendor-link"), sub);
    for (Path p : List.of(sub, linkToSub)) {
      SandboxPlan plan = planProtecting(Mode.CHAT, workdir.toString(), config.toString(),
          List.of(p.toString()));
      assertThat(plan.filesystem().writeDeny()).contains(sub.toString());
    }
  }

  /** Found by a docs-only attack: both mounts at the workdir's path were taken for the config. */
  @Test
  void aStateDirectoryInsideAWorkdirThatIsAlsoTheConfigDirectoryIsRefused() throws Exception {
    Files.createDirectories(workdir.resolve(".git"));
    assertThatThrownBy(() -> planWith(Mode.PLAN, workdir.toString(), workdir.toString(),
        workdir.resolve(".git").toString()))
        .hasFieldOrPropertyWithValue("field", "runnerStateDirs[0]")
        .hasMessageContaining("lies inside the read-only workdir " + workdir);
  }

  /** Plans that could never launch: one directory mounted both writable and read-only. */
  @Test
  void oneDirectoryWritableAndReadOnlyIsRefusedNamingTheWritableField() throws Exception {
    assertThatThrownBy(() -> planWith(Mode.CHAT, workdir.toString(), workdir.toString()))
        .hasFieldOrPropertyWithValue("field", "workdir")
        .hasMessage("workdir " + workdir + " is the read-only agentConfigDir " + workdir
            + ": a directory is mounted once, writable or read-only; give each its own"
            + " directory");
    assertThatThrownBy(() -> planProtecting(Mode.PLAN, workdir.toString(), config.toString(),
        List.of(state.toString()), state.toString()))
        .hasFieldOrPropertyWithValue("field", "runnerStateDirs[0]")
        .hasMessageStartingWith("runnerStateDirs[0] " + state + " is the protected path " + state
            + ": a directory is mounted once");
    // Both read-only: nothing to open.
    assertThat(planWith(Mode.PLAN, workdir.toString(), workdir.toString()).spec().bindMounts())
        .hasSize(2);
  }

  /**
   * The launcher reads a plan's mounts as bubblewrap is given them: a plan made elsewhere may
   * spell the workdir with a trailing slash, a doubled one or a {@code ..}, which bubblewrap
   * mounts as a path of its own, after the workdir.
   */
  @Test
  void aPlanMadeElsewhereIsReadAsWrittenForBubblewrap() {
    MountOverlaps.Mount readOnly = new MountOverlaps.Mount("mount", workdir.toString(),
        MountOverlaps.Kind.READ_ONLY);
    for (String spelling : List.of(workdir + "/", workdir.getParent() + "//work",
        workdir + "/../work", workdir.getParent() + "/./work")) {
      assertThat(MountOverlaps.problem(spelling, readOnly, false)).as(spelling)
          .startsWith("resolves to " + workdir + ", which is the read-only mount " + workdir);
    }
    assertThat(MountOverlaps.problem(workdir.toString(), readOnly, false))
        .startsWith("is the read-only mount " + workdir + ": a directory is mounted once");
    assertThat(MountOverlaps.problem(workdir.getParent().toString(), readOnly, false)).isNull();
  }

  /** A second docs-only attack: what a harness-bash run is not given stays out of its reach. */
  @Test
  void aHarnessBashRunsUnmountedConfigIsKeptOutOfItsWritableMounts() throws Exception {
    RunPaths paths = new RunPaths(workdir.toString(), config.toString(), null, null, List.of(),
        List.of(config.getParent().toString()), List.of());
    assertThatThrownBy(() -> planner().plan(
            SandboxRequest.builder("s", "w", Runner.HARNESS_BASH, paths).mode(Mode.PLAN).build()))
        .hasFieldOrPropertyWithValue("field", "runnerStateDirs[0]")
        .hasMessage("runnerStateDirs[0] " + config.getParent() + " contains the agentConfigDir "
            + config + ", which this run does not mount (a harness-bash run mounts its workdir"
            + " only; a missing directory is not mounted): the run could write it, and a later"
            + " run would be given what it left there; give a directory that neither is,"
            + " contains nor lies inside it");
  }

  /** The run would create it, and the next run would be given what it put there. */
  @Test
  void aMissingAttachmentsDirectoryInsideAWritableMountIsRefused() {
    RunPaths paths = new RunPaths(workdir.toString(), config.toString(), null,
        workdir.resolve("att").toString(), List.of(), List.of(), List.of());
    assertThatThrownBy(() -> planner().plan(
            SandboxRequest.builder("s", "w", Runner.CLAUDE_CODE, paths).build()))
        .hasFieldOrPropertyWithValue("field", "workdir")
        .hasMessageContaining("contains the attachmentsDir " + workdir.resolve("att")
            + ", which this run does not mount");
  }

  @Test
  void aMissingStateDirectoryIsRefusedSayingSo() {
    assertThatThrownBy(() -> plan(Mode.PLAN, root.resolve("state/missing").toString()))
        .hasFieldOrPropertyWithValue("field", "runnerStateDirs[0]")
        .hasMessage("runnerStateDirs[0] does not exist or is not a directory: "
            + root.resolve("state/missing"));
  }

  /** The link itself lies in the writable mount: the run could replace it. */
  @Test
  void aProtectedPathReachedThroughALinkInsideAWritableMountIsRefused() throws Exception {
    Path outside = Files.createDirectories(root.resolve("home/u/src/repo"));
    for (Path target : List.of(outside, root.resolve("nowhere"))) {
      Path link = Files.createSymbolicLink(workdir.resolve("p"), target);
      assertThatThrownBy(() -> planProtecting(Mode.CHAT, workdir.toString(), config.toString(),
          List.of(link.toString())))
          .hasFieldOrPropertyWithValue("field", "workdir")
          .hasMessageContaining("reaches the protected path " + link)
          .hasMessageContaining("through the symbolic link " + link + ", which the run could"
              + " replace with a directory of its own");
      Files.delete(link);
    }
  }

  /** A read-only workdir whose git directory is elsewhere is written through it. */
  @Test
  void aReadOnlyRepositorysGitDirectoryInsideAWritableMountIsRefused() throws Exception {
    Path gitDir = Files.createDirectories(state.resolve("gd"));
    Files.writeString(workdir.resolve(".git"), "gitdir: " + gitDir + "\n");
    assertThatThrownBy(() -> plan(Mode.PLAN, state.toString()))
        .hasFieldOrPropertyWithValue("field", "runnerStateDirs[0]")
        .hasMessage("runnerStateDirs[0] " + state + " holds " + gitDir + ", where git keeps or"
            + " finds a repository of the read-only workdir " + workdir + " (its git directory,"
            + " a link in it, an object store, a path its config names): mounted writable, it"
            + " would let the run rewrite that repository or plant what git on the host runs;"
            + " keep those places out of every writable mount");
    // A linked worktree: its commondir names the repository's own git directory.
    Path main = Files.createDirectories(state.resolve("main/.git/worktrees/w"));
    Files.writeString(workdir.resolve(".git"), "gitdir: " + main + "\n");
    Files.writeString(main.resolve("commondir"), "../..\n");
    assertThatThrownBy(() -> plan(Mode.PLAN, state.toString()))
        .hasMessageContaining("holds ");
    Files.delete(workdir.resolve(".git"));
    assertThat(plan(Mode.PLAN, state.toString()).spec().runnerStateDirs()).hasSize(1);
  }

  /** A third docs-only attack: the other ways git keeps a repository elsewhere. */
  @Test
  void aReadOnlyRepositoryKeptInAWritableMountAnyOtherWayIsRefused() throws Exception {
    Path gitDir = Files.createDirectories(state.resolve("gd"));
    // A .git symlink to a gitdir: file elsewhere, whose path git reads from the repository.
    Path dotgit = Files.createDirectories(root.resolve("x/y")).resolve("dotgit");
    Files.writeString(dotgit, "gitdir: " + workdir.relativize(gitDir) + "\n");
    Files.createSymbolicLink(workdir.resolve(".git"), dotgit);
    assertThatThrownBy(() -> plan(Mode.PLAN, state.toString()))
        .hasMessageContaining("holds " + gitDir);
    Files.delete(workdir.resolve(".git"));
    // A workdir that is a bare repository whose commondir is in the state directory.
    Files.writeString(workdir.resolve("HEAD"), "ref: refs/heads/main\n");
    Files.createDirectories(workdir.resolve("objects"));
    Files.writeString(workdir.resolve("commondir"), "../../../state/claude/gd\n");
    assertThatThrownBy(() -> plan(Mode.PLAN, state.toString()))
        .hasMessageContaining("holds " + gitDir);
    Files.delete(workdir.resolve("commondir"));
    // Its objects borrowed from a store in the state directory.
    Path store = Files.createDirectories(state.resolve("ref.git/objects"));
    Files.createDirectories(workdir.resolve("objects/info"));
    Files.writeString(workdir.resolve("objects/info/alternates"), store + "\n");
    assertThatThrownBy(() -> plan(Mode.PLAN, state.toString()))
        .hasMessageContaining("holds " + store);
  }

  /** The state may live in the config directory, never in its repository's git directory. */
  @Test
  void aStateDirectoryInsideTheConfigDirectorysGitDirectoryIsRefused() throws Exception {
    Path hooks = Files.createDirectories(config.resolve(".git/hooks"));
    Files.writeString(config.resolve(".git/HEAD"), "ref: refs/heads/main\n");
    for (Path inGit : List.of(config.resolve(".git"), hooks)) {
      assertThatThrownBy(() -> plan(Mode.CHAT, inGit.toString()))
          .hasFieldOrPropertyWithValue("field", "runnerStateDirs[0]")
          .hasMessageContaining("lies inside " + config.resolve(".git") + ", where git keeps or"
              + " finds a repository of the read-only agentConfigDir");
    }
    Path projects = Files.createDirectories(config.resolve("projects"));
    assertThat(plan(Mode.CHAT, projects.toString()).spec().runnerStateDirs()).hasSize(1);
  }

  /**
   * A fourth docs-only attack: what git reads of a read-only repository through links and its
   * config, kept in the state directory. Each made host git run a program of the run's, as
   * root, or let a plan run rewrite history.
   */
  @Test
  void whatARepositorysLinksAndConfigNameInAWritableMountIsRefused() throws Exception {
    Path git = gitDirectoryOfTheWorkdir();
    Path target = Files.createDirectories(state.resolve("t"));
    Files.writeString(target.resolve("inc"), "");
    String[][] configs = {
        {"[core]\n\thooksPath = " + target + "\n", target.toString()},
        {"[core]\n\tworktree = " + target + "\n", target.toString()},
        {"[include]\n\tpath = " + target.resolve("inc") + "\n", target.resolve("inc").toString()},
        {"[core]\n\tfsmonitor = \"" + target.resolve("fsmon") + " --quiet\"\n",
            target.resolve("fsmon").toString()},
    };
    for (String[] c : configs) {
      Files.writeString(git.resolve("config"), c[0]);
      assertThatThrownBy(() -> plan(Mode.PLAN, state.toString())).as(c[0])
          .hasMessageContaining("holds " + c[1] + ", where git keeps or finds");
    }
    Files.writeString(git.resolve("config"), "[core]\n\tbare = false\n");
    for (String inGit : List.of("hooks", "refs/heads/main", "packed-refs", "objects/pack",
        "info/grafts", "shallow")) {
      Files.createDirectories(git.resolve(inGit).getParent());
      Path link = Files.createSymbolicLink(git.resolve(inGit), target);
      assertThatThrownBy(() -> plan(Mode.PLAN, state.toString())).as(inGit)
          .hasMessageContaining("holds " + target + ", where git keeps or finds");
      Files.delete(link);
    }
    // An alternates chain: a store outside every mount whose own alternates lead in.
    Path other = Files.createDirectories(root.resolve("other/objects/info"));
    Files.writeString(other.resolve("alternates"), target + "\n");
    Files.writeString(git.resolve("objects/info/alternates"), other.getParent() + "\n");
    assertThatThrownBy(() -> plan(Mode.PLAN, state.toString()))
        .hasMessageContaining("holds " + target + ", where git keeps or finds");
    Files.delete(git.resolve("objects/info/alternates"));
    assertThat(plan(Mode.PLAN, state.toString()).spec().runnerStateDirs()).hasSize(1);
  }

  /**
   * A fifth docs-only attack: config values git reads otherwise than a hand parser (partly
   * quoted, continued, included from the repository, past 64 KiB, C-quoted alternates) and paths
   * inside a value (a pager's, a helper's, an option's argument). git itself lists the config.
   */
  @Test
  void whatGitReadsOfAConfigIsJudgedAsGitReadsIt() throws Exception {
    Path git = gitDirectoryOfTheWorkdir();
    Path t = Files.createDirectories(state.resolve("t"));
    String half = t.toString().substring(0, t.toString().length() / 2);
    String rest = t.toString().substring(half.length());
    String[] configs = {
        "[core]\n\thooksPath = \"" + state + "\"/t\n",
        "[core]\n\thooksPath = " + half + "\\\n" + rest + "\n",
        "[include]\n\tpath = inc1\n",
        "[user]\n" + "\tx = " + "a".repeat(80) + "\n".repeat(1) + ("\tx = " + "a".repeat(80)
            + "\n").repeat(1000) + "[core]\n\thooksPath = " + t + "\n",
        "[core]\n\tpager = sh " + t + "/evil\n",
        "[credential]\n\thelper = !" + t + "/evil\n",
        "[core]\n\tsshCommand = ssh -F " + t + "/cfg\n",
        "[core]\n\tpager = sh ../../../../state/claude/t/evil\n",
        // A sixth attack: relative without a dot, through a link in the worktree; a relative
        // hooksPath read from a worktree core.worktree puts elsewhere.
        "[core]\n\tfsmonitor = tools/evil\n",
        "[core]\n\tworktree = " + root.resolve("x/y")
            + "\n\thooksPath = ../../state/claude/t\n",
    };
    Files.createSymbolicLink(workdir.resolve("tools"), t);
    Files.writeString(git.resolve("inc1"), "[core]\n\thooksPath = \"" + state + "\"/t\n");
    for (String c : configs) {
      Files.writeString(git.resolve("config"), c);
      assertThatThrownBy(() -> plan(Mode.PLAN, state.toString()))
          .as(c.length() > 200 ? "a config of " + c.length() + " bytes" : c)
          .hasMessageContaining(", where git keeps or finds");
    }
    // A config git cannot list cannot be judged: refused rather than read some other way.
    Files.writeString(git.resolve("config"), "[core\n\thooksPath = \"" + state + "\"/t\n");
    assertThatThrownBy(() -> plan(Mode.PLAN, state.toString()))
        .hasMessageContaining("a repository whose config git could not list (git config exited"
            + " with ");
    Files.writeString(git.resolve("config"), "[core]\n\tbare = false\n");
    Files.writeString(git.resolve("objects/info/alternates"), "\"" + t + "\"\n");
    assertThatThrownBy(() -> plan(Mode.PLAN, state.toString()))
        .hasMessageContaining("holds " + t + ", where git keeps or finds");
    Files.delete(git.resolve("objects/info/alternates"));
    assertThat(plan(Mode.PLAN, state.toString()).spec().runnerStateDirs()).hasSize(1);
  }

  /** The workdir made a repository git takes for one: HEAD, objects and refs. */
  private Path gitDirectoryOfTheWorkdir() throws Exception {
    Path git = Files.createDirectories(workdir.resolve(".git"));
    Files.writeString(git.resolve("HEAD"), "ref: refs/heads/main\n");
    Files.createDirectories(git.resolve("objects/info"));
    Files.createDirectories(git.resolve("refs/heads"));
    return git;
  }

  @Test
  void unrelatedDirectoriesAreAccepted() {
    assertThat(MountOverlaps.problem(state.toString(),
        new MountOverlaps.Mount("workdir", workdir.toString(), MountOverlaps.Kind.READ_ONLY),
        true)).isNull();
  }
}
