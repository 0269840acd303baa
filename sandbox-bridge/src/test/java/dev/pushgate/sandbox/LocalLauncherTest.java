package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.policy.Mode;
import dev.pushgate.testkit.EnvListing;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.params.ParameterizedTest;

/** The launcher with real bubblewrap: what a command inside can and cannot do. */
class LocalLauncherTest {
  private static final DenyWriteGlobs NO_GLOBS = DenyWriteGlobs.explicit(List.of());

  @TempDir Path tmp;
  private Path root;
  private Path work;
  private Path config;
  private Path sibling;
  private Path home;
  private Path checkout;
  private final LocalLauncher launcher = new LocalLauncher(LocalLauncher.Settings.defaults());

  @BeforeEach
  void layout() throws Exception {
    RealBwrap.require();
    root = RealBwrap.searchable(tmp);
    work = Files.createDirectories(root.resolve("conv/agents/a1/work"));
    config = Files.createDirectories(root.resolve("conv/agents/a1/config"));
    sibling = Files.createDirectories(root.resolve("conv/agents/a2/work"));
    Files.writeString(sibling.resolve("notes.txt"), "the sibling's\n");
    home = Files.createDirectories(root.resolve("home/u"));
    Files.createDirectories(home.resolve(".ssh"));
    Files.writeString(home.resolve(".ssh/id_ed25519"), "PRIVATE KEY\n");
    checkout = Files.createDirectories(root.resolve("home/u/src/repo"));
    Files.createDirectories(work.resolve(".git/hooks"));
  }

  private Map<String, String> hostEnv() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
    env.put("HOME", home.toString());
    env.put("LANG", "C.UTF-8");
    env.put("LD_PRELOAD", "/nonexistent/inject.so");
    env.put("LD_LIBRARY_PATH", "/nonexistent/lib");
    env.put("NODE_OPTIONS", "--require /nonexistent/evil.js");
    env.put("GIT_SSH_COMMAND", "ssh -o ProxyCommand=evil");
    env.put("BASH_ENV", "/nonexistent/bashenv");
    env.put("GITHUB_TOKEN", "ghp_theHostsOwnToken");
    env.put("GH_TOKEN", "ghp_theHostsOwnToken");
    env.put("AWS_SECRET_ACCESS_KEY", "aws-secret-of-the-operator");
    env.put("VAULT_TOKEN", "hvs.operator");
    env.put("EDITOR", "vi");
    return env;
  }

  private SandboxPlan plan(Mode mode, SandboxSwitch sw, DenyWriteGlobs globs) {
    RunPaths paths = new RunPaths(work.toString(), config.toString(), null, null,
        List.of(checkout.toString()), List.of(), List.of());
    SandboxRequest request = SandboxRequest.builder("space-1", "ws-1", Runner.ACP, paths)
        .agentId("a1").mode(mode).denyWriteGlobs(globs)
        .envAdditions(EnvironmentVariables.of(Map.of("GH_TOKEN", "ghs_theRunsReadToken")))
        .build();
    return RealBwrap.planner(home, hostEnv(), sw).plan(request);
  }

  /** A plan of the workdir and config with these protected paths and runner state directories. */
  private SandboxPlan plan(Mode mode, List<String> protectedPaths, List<String> stateDirs) {
    RunPaths paths = new RunPaths(work.toString(), config.toString(), null, null, protectedPaths,
        stateDirs, List.of());
    return RealBwrap.planner(home, hostEnv(), SandboxSwitch.ON).plan(
        SandboxRequest.builder("space-1", "ws-1", Runner.ACP, paths).agentId("a1")
            .mode(mode).denyWriteGlobs(NO_GLOBS).build());
  }

  private SandboxPlan chat() {
    return plan(Mode.CHAT, SandboxSwitch.ON, NO_GLOBS);
  }

  private RealBwrap.Run sh(SandboxPlan plan, String script) throws Exception {
    return RealBwrap.run(launcher, LaunchRequest.of(plan, List.of("/bin/sh", "-c", script)));
  }

  private static boolean root() {
    return LocalLauncher.currentUid() == 0;
  }

  @Test
  void asRootEachLaunchHasAUserIdOfItsOwnUnlessTheOperatorNamesOne() throws Exception {
    Assumptions.assumeTrue(root(), "only root drops to a sandbox user");
    String first = sh(chat(), "id -u; id -g").stdout();
    String second = sh(chat(), "id -u; id -g").stdout();
    assertThat(first).isNotEqualTo(second);
    for (String ids : List.of(first, second)) {
      String[] out = ids.split("\n");
      assertThat(out[1]).isEqualTo(out[0]);
      assertThat(Integer.parseInt(out[0]))
          .isBetween(OwnSandboxUsers.DEFAULT_BASE, OwnSandboxUsers.DEFAULT_LAST);
    }
    LocalLauncher shared = new LocalLauncher(
        LocalLauncher.Settings.defaults().withSandboxUser(SandboxUser.parse("65533:65532")));
    RealBwrap.Run named = RealBwrap.run(shared,
        LaunchRequest.of(chat(), List.of("/bin/sh", "-c", "id -u; id -g")));
    assertThat(named.stdout().split("\n")).containsExactly("65533", "65532");
  }

  @Test
  void asRootTheSandboxUserHasANameThatEveryToolFinds() throws Exception {
    Assumptions.assumeTrue(root(), "only root drops to a user id of the launch's own");
    RealBwrap.Run run = sh(chat(), "whoami; id -un; id -gn; echo \"$USER $LOGNAME $HOME\";"
        + " python3 -c 'import getpass; print(getpass.getuser())';"
        + " ssh-keygen -q -t ed25519 -N '' -f /tmp/k && ssh-keygen -y -f /tmp/k | cut -d' ' -f1");
    assertThat(run.stdout().split("\n")).as(run.stderr()).containsExactly("agent", "agent",
        "agent", "agent agent " + home, "agent", "ssh-ed25519");
    assertThat(run.exit()).isZero();
  }

  @Test
  void theAgentWritesItsOwnGitConfigWhichIncludesTheRunsAndNeverReachesTheHost() throws Exception {
    Path runConfig = Files.writeString(root.resolve("run-gitconfig"),
        "[url \"http://127.0.0.1:9/git/github.com/\"]\n\tinsteadOf = https://github.com/\n"
            + "[user]\n\tname = pushgate agent\n");
    String before = Files.readString(runConfig);
    RunPaths paths = RunPaths.workdirOnly(work.toString());
    SandboxRequest request = SandboxRequest.builder("space-3", "ws-1", Runner.HARNESS_BASH, paths)
        .denyWriteGlobs(NO_GLOBS)
        .envAdditions(EnvironmentVariables.of(Map.of("GIT_CONFIG_GLOBAL", runConfig.toString())))
        .build();
    SandboxPlan plan = RealBwrap.planner(home, hostEnv(), SandboxSwitch.ON).plan(request);
    RealBwrap.Run run = RealBwrap.run(launcher, LaunchRequest.of(plan, List.of("/bin/sh", "-c",
            "git config user.name; git config --global user.name Ada && git config user.name;"
                + " git config --get url.http://127.0.0.1:9/git/github.com/.insteadof;"
                + " echo \"$GIT_CONFIG_GLOBAL\"; echo x >> " + runConfig + " || echo refused"))
        .withFile(SandboxFile.samePath(runConfig)));
    assertThat(run.stdout().split("\n")).as(run.stderr()).containsExactly("pushgate agent", "Ada",
        "https://github.com/", BubblewrapArgv.GUEST_GIT_CONFIG, "refused");
    assertThat(Files.readString(runConfig)).isEqualTo(before);
    assertThat(Files.exists(Path.of(BubblewrapArgv.GUEST_GIT_CONFIG))).isFalse();
  }

  @Test
  void theToolchainsOnPathUnderHomeRunReadOnlyWhileItsSecretsStayHidden() throws Exception {
    Path shims = Files.createDirectories(home.resolve(".pyenv/shims"));
    Path python = Files.writeString(shims.resolve("python3"),
        "#!/bin/sh\necho pyenv-python; exec /usr/bin/python3 \"$@\"\n");
    Files.setPosixFilePermissions(python, java.nio.file.attribute.PosixFilePermissions
        .fromString("rwxr-xr-x"));
    Files.createDirectories(home.resolve(".cargo/bin"));
    Files.writeString(home.resolve(".cargo/credentials.toml"), "token = \"cio_SECRET\"\n");
    Map<String, String> env = hostEnv();
    env.put("PATH", shims + ":" + home.resolve(".cargo/bin") + ":/usr/bin:/bin");
    RunPaths paths = RunPaths.workdirOnly(work.toString());
    SandboxRequest request = SandboxRequest.builder("space-4", "ws-1", Runner.HARNESS_BASH, paths)
        .denyWriteGlobs(NO_GLOBS).build();
    SandboxPlan plan = RealBwrap.planner(home, env, SandboxSwitch.ON).plan(request);
    RealBwrap.Run run = sh(plan, "python3 -c 'print(6 * 7)'; ls -a " + home + ";"
        + " cat " + home + "/.cargo/credentials.toml; cat " + home + "/.ssh/id_ed25519;"
        + " touch " + shims + "/new || echo read-only");
    assertThat(run.stdout().split("\n")).as(run.stderr()).containsExactly("pyenv-python", "42",
        ".", "..", ".cargo", ".pyenv", "read-only");
    assertThat(run.stdout() + run.stderr()).doesNotContain("cio_SECRET", "PRIVATE KEY");
  }

  @Test
  void theCommandIsNotRootAndProcSysIsReadOnly() throws Exception {
    RealBwrap.Run run = sh(chat(), "id -u; echo sandbox > /proc/sys/kernel/hostname;"
        + " grep ' /proc/sys ' /proc/self/mountinfo");
    String[] out = run.stdout().split("\n");
    assertThat(out[0]).isNotEqualTo("0");
    if (root()) {
      // Issue 14, item j: a user id of the launch's own, never the host's shared nobody.
      assertThat(Integer.parseInt(out[0])).isNotEqualTo(SandboxUser.NOBODY.uid())
          .isBetween(OwnSandboxUsers.DEFAULT_BASE, OwnSandboxUsers.DEFAULT_LAST);
    }
    assertThat(out[1].split(" ")[5]).startsWith("ro");
    assertThat(run.stderr()).contains("/proc/sys/kernel/hostname: Read-only file system");
    assertThat(run.violations()).contains(new SandboxViolation("file-write*",
        "/proc/sys/kernel/hostname",
        "/bin/sh: 1: cannot create /proc/sys/kernel/hostname: Read-only file system"));
  }

  @Test
  void writesOutsideTheWritableWorkdirFailAndAreReportedAsViolations() throws Exception {
    int ownerBefore = uid(work);
    RealBwrap.Run run = sh(chat(), "touch made.txt && echo ok;"
        + " echo evil > .git/hooks/pre-commit;"
        + " touch " + config + "/x;"
        + " touch /usr/x;"
        + " touch " + checkout + "/x;"
        + " touch .vscode/tasks.json; true");
    assertThat(run.exit()).isZero();
    assertThat(run.stdout()).isEqualTo("ok\n");
    assertThat(run.violations()).extracting(SandboxViolation::action, SandboxViolation::target)
        .contains(
            org.assertj.core.groups.Tuple.tuple("file-write*", ".git/hooks/pre-commit"),
            org.assertj.core.groups.Tuple.tuple("file-write*", config + "/x"),
            org.assertj.core.groups.Tuple.tuple("file-write*", "/usr/x"),
            org.assertj.core.groups.Tuple.tuple("file-write*", checkout + "/x"),
            org.assertj.core.groups.Tuple.tuple("file-write*", ".vscode/tasks.json"));
    assertThat(work.resolve("made.txt")).exists();
    assertThat(work.resolve(".git/hooks/pre-commit")).doesNotExist();
    assertThat(config.resolve("x")).doesNotExist();
    assertThat(checkout.resolve("x")).doesNotExist();
    // The empty directory that blocked .vscode is gone, and the workdir is given back.
    assertThat(work.resolve(".vscode")).doesNotExist();
    assertThat(uid(work)).isEqualTo(ownerBefore);
    assertThat(uid(work.resolve("made.txt"))).isEqualTo(ownerBefore);
    assertThat(run.process().state()).isEqualTo(SandboxState.DESTROYED);
  }

  @Test
  void secretsAndSiblingsAreAbsent() throws Exception {
    RealBwrap.Run run = sh(chat(), "cat " + home + "/.ssh/id_ed25519;"
        + " ls " + root.resolve("conv/agents") + ";"
        + " ls " + sibling + "; true");
    assertThat(run.stdout()).isEqualTo("a1\n");
    assertThat(run.stderr()).doesNotContain("PRIVATE KEY");
    assertThat(run.violations()).extracting(SandboxViolation::action, SandboxViolation::target)
        .contains(
            org.assertj.core.groups.Tuple.tuple("file-read*", home + "/.ssh/id_ed25519"),
            org.assertj.core.groups.Tuple.tuple("file-read*", sibling.toString()));
  }

  @Test
  void aMountedHomeStillHidesItsSecrets() throws Exception {
    Path homeWork = home;
    RunPaths paths = RunPaths.workdirOnly(homeWork.toString());
    SandboxRequest request = SandboxRequest.builder("space-2", "ws-1", Runner.HARNESS_BASH, paths)
        .denyWriteGlobs(NO_GLOBS).build();
    SandboxPlan plan = RealBwrap.planner(home, hostEnv(), SandboxSwitch.ON).plan(request);
    RealBwrap.Run run = sh(plan, "ls -a .ssh; cat .ssh/id_ed25519; ls src");
    assertThat(run.stdout()).doesNotContain("id_ed25519").doesNotContain("PRIVATE KEY")
        .contains("repo");
    assertThat(run.violations()).extracting(SandboxViolation::target)
        .contains(".ssh/id_ed25519");
  }

  @Test
  void theEnvironmentInsideHasNoneOfTheStrippedVariables() throws Exception {
    RealBwrap.Run run = sh(chat(), "env");
    Map<String, String> inside = EnvListing.parse(run.stdout());
    assertThat(inside).doesNotContainKeys("LD_PRELOAD", "LD_LIBRARY_PATH", "NODE_OPTIONS",
        "GIT_SSH_COMMAND", "BASH_ENV", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "VAULT_TOKEN",
        "EDITOR");
    assertThat(inside).containsEntry("GH_TOKEN", "ghs_theRunsReadToken")
        .containsEntry("LANG", "C.UTF-8")
        .containsEntry("NO_PROXY", "127.0.0.1,localhost")
        .containsEntry("NODE_USE_ENV_PROXY", "1");
    assertThat(inside.get("HTTPS_PROXY")).startsWith("http://127.0.0.1:");
    assertThat(run.stderr()).doesNotContain("LD_PRELOAD").doesNotContain("cannot be preloaded");
  }

  @Test
  void readOnlyModesMountTheWorkdirReadOnly() throws Exception {
    SandboxPlan review = plan(Mode.REVIEW, SandboxSwitch.ON, DenyWriteGlobs.DEFAULT);
    assertThat(review.verdict().launches()).isTrue();
    RealBwrap.Run run = sh(review, "ls; touch new.txt");
    assertThat(run.exit()).isNotZero();
    assertThat(run.violations()).extracting(SandboxViolation::target).contains("new.txt");
    assertThat(work.resolve("new.txt")).doesNotExist();
  }

  @Test
  void eventsComeInLifecycleOrder() throws Exception {
    RealBwrap.Run run = sh(chat(), "echo out; echo err >&2; exit 3");
    assertThat(run.exit()).isEqualTo(3);
    assertThat(run.events().get(0)).isInstanceOf(SandboxEvent.Starting.class);
    assertThat(run.events().get(1)).isInstanceOf(SandboxEvent.Ready.class);
    assertThat(run.events().get(run.events().size() - 1)).isEqualTo(new SandboxEvent.Exit(3));
    assertThat(run.stdout()).isEqualTo("out\n");
    assertThat(run.stderr()).isEqualTo("err\n");
    SandboxHandle handle = run.process().handle();
    assertThat(handle.backend()).isEqualTo(SandboxBackend.NATIVE);
    assertThat(handle.state()).isEqualTo(SandboxState.DESTROYED);
    assertThat(handle.details()).containsKeys("pid", "workdir", "staging");
    assertThat(Path.of((String) handle.details().get("staging"))).doesNotExist();
  }

  @Test
  void aTimeoutKillsTheSandbox() throws Exception {
    LaunchRequest request = LaunchRequest.of(chat(), List.of("sleep", "60"))
        .withTimeout(Duration.ofMillis(500));
    RealBwrap.Run run = RealBwrap.run(launcher, request);
    // killed, not ended on its own: sleep 60 would exit 0 with no Killed event
    assertThat(run.exit()).isNotZero();
    assertThat(run.events()).contains(new SandboxEvent.Killed("timeout: ran longer than 500 ms"));
  }

  @Test
  void aRefusedPlanIsNeverLaunched() {
    SandboxPlan refused = plan(Mode.CHAT, SandboxSwitch.ON, DenyWriteGlobs.DEFAULT);
    assertThat(refused.verdict().launches()).isFalse();
    assertThatThrownBy(() -> launcher.launch(
            LaunchRequest.of(refused, List.of("touch", work.resolve("ran").toString())),
            SandboxListener.NULL))
        .isInstanceOf(SandboxLaunchException.class)
        .hasMessage("not launched: bubblewrap cannot deny creating .env inside a writable mount")
        .satisfies(e -> assertThat(((SandboxLaunchException) e).waysOut()).hasSize(2));
    assertThat(work.resolve("ran")).doesNotExist();
  }

  /**
   * A protected repository directly inside the writable workdir: the launch made placeholders
   * for its .git's denied entries inside the read-only repository, and bubblewrap failed there at
   * every launch (a docs-only attack). It launches, and the repository stays read-only whole.
   */
  @Test
  void aProtectedRepositoryDirectlyInsideTheWorkdirLaunchesAndStaysReadOnly() throws Exception {
    Path widget = work.resolve("widget");
    Files.createDirectories(widget.resolve(".git/objects"));
    Files.writeString(widget.resolve(".git/HEAD"), "ref: refs/heads/main\n");
    SandboxPlan plan = plan(Mode.CHAT, List.of(widget.toString()), List.of());
    RealBwrap.Run run = sh(plan, "touch " + widget + "/x 2>/dev/null; echo widget=$?;"
        + " echo evil > " + widget + "/.git/HEAD 2>/dev/null; echo head=$?;"
        + " touch " + work + "/y; echo work=$?");
    assertThat(run.exit()).as(run.stderr()).isZero();
    assertThat(run.stdout()).contains("work=0").doesNotContain("widget=0")
        .doesNotContain("head=0");
    assertThat(widget.resolve("x")).doesNotExist();
    assertThat(widget.resolve(".git/HEAD")).hasContent("ref: refs/heads/main");
  }

  /**
   * A plan run's workdir directly inside its state directory stays read-only whole, its .git
   * too: the launcher bound the .git of each directory directly inside a writable mount onto
   * itself, writable, over the read-only workdir (a docs-only attack rewrote HEAD and refs).
   */
  @Test
  void aPlanRunsWorkdirInsideItsStateDirectoryKeepsItsGitReadOnly() throws Exception {
    Path state = work.getParent();
    Files.writeString(work.resolve(".git/HEAD"), "ref: refs/heads/main\n");
    Files.createDirectories(work.resolve(".git/objects"));
    SandboxPlan plan = plan(Mode.PLAN, List.of(), List.of(state.toString()));
    RealBwrap.Run run = sh(plan, "echo evil > " + work + "/.git/HEAD 2>/dev/null; echo head=$?;"
        + " touch " + work + "/.git/objects/x 2>/dev/null; echo objects=$?;"
        + " touch " + state + "/s; echo state=$?");
    assertThat(run.stdout()).as(run.stderr()).doesNotContain("head=0")
        .doesNotContain("objects=0").contains("state=0");
    assertThat(work.resolve(".git/HEAD")).hasContent("ref: refs/heads/main");
    assertThat(work.resolve(".git/objects/x")).doesNotExist();
  }

  /**
   * The planner refuses a runner state directory that resolves to the workdir; one swapped for
   * such a link after the plan was made is refused by the launcher, which checks again.
   */
  @ParameterizedTest
  @ValueSource(strings = {"the workdir", "a protected checkout"})
  void aStateDirectorySwappedForALinkAfterThePlanIsNotLaunched(String target) throws Exception {
    Path state = Files.createDirectories(root.resolve("state/claude"));
    Path into = target.equals("the workdir") ? work : checkout;
    String what = target.equals("the workdir") ? "the read-only mount " : "the protected path ";
    SandboxPlan plan = plan(Mode.PLAN, List.of(checkout.toString()), List.of(state.toString()));
    assertThat(plan.verdict().launches()).isTrue();
    RealBwrap.Run asPlanned = sh(plan, "touch " + state + "/s; echo state=$?; touch " + work
        + "/w 2>/dev/null; echo work=$?");
    assertThat(asPlanned.stdout()).startsWith("state=0\nwork=").doesNotContain("work=0");

    Files.delete(state.resolve("s"));
    Files.delete(state);
    Files.createSymbolicLink(state, into);
    assertThatThrownBy(() -> launcher.launch(
            LaunchRequest.of(plan, List.of("touch", state.resolve("planted").toString())),
            SandboxListener.NULL))
        .isInstanceOf(SandboxLaunchException.class)
        .hasMessageStartingWith("the plan mounts " + state + " writable, and it resolves to "
            + into + ", which is " + what + into + ": mounted writable, it would make that"
            + " directory writable");
    assertThat(into.resolve("planted")).doesNotExist();
  }

  @Test
  void withTheSandboxOffTheCommandRunsOnTheHostSanitisedAndSaysSo() throws Exception {
    SandboxPlan off = plan(Mode.CHAT, SandboxSwitch.OFF, DenyWriteGlobs.DEFAULT);
    assertThat(off.effectiveBackend()).isEqualTo(SandboxBackend.NONE);
    RealBwrap.Run run = sh(off, "pwd; echo \"[$LD_PRELOAD]\"; id -u");
    assertThat(run.stdout()).startsWith(work + "\n[]\n");
    assertThat(run.process().handle().backend()).isEqualTo(SandboxBackend.NONE);
    assertThat((String) run.process().handle().details().get("note"))
        .startsWith("no OS sandbox: agent sandbox DISABLED by the sandbox setting off (--sandbox, PUSHGATE_SANDBOX or the config file; pushgate config check says which)");
    assertThat(run.violations()).isEmpty();
  }

  private static int uid(Path p) throws Exception {
    return (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
  }
}
