package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.policy.Mode;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The bubblewrap command line, built against a fake host: no process is started. */
class BubblewrapArgvTest {
  private static final String HOME = "/home/u";
  private static final String WORK = "/data/conv/agents/a1/work";
  private static final String CONFIG = "/data/conv/agents/a1/config";
  private static final String EMPTY = "/tmp/pushgate-sandbox-1/empty";
  private static final String EMPTY_FILE = "/tmp/pushgate-sandbox-1/empty-file";
  private static final BubblewrapArgv.Tools TOOLS = new BubblewrapArgv.Tools(
      "/usr/bin/setpriv", "/usr/bin/bwrap", "/bin/sh", "/usr/bin/socat", "/usr/bin/sleep");

  /** A host where the listed paths exist with the given kinds; everything else is missing. */
  private static final class FakeHost implements BubblewrapArgv.HostView {
    final Map<String, BubblewrapArgv.Kind> kinds = new HashMap<>();
    final Map<String, String> links = new HashMap<>();
    final Map<String, String> named = new HashMap<>();

    FakeHost() {
      dir("/usr");
      dir("/etc");
      link("/bin", "usr/bin");
      link("/lib", "usr/lib");
      link("/lib64", "usr/lib64");
      dir(WORK);
      dir(CONFIG);
      dir("/data/conv/agents/a2/work");
    }

    FakeHost dir(String p) {
      kinds.put(p, BubblewrapArgv.Kind.DIRECTORY);
      return this;
    }

    FakeHost file(String p) {
      kinds.put(p, BubblewrapArgv.Kind.FILE);
      return this;
    }

    FakeHost link(String p, String target) {
      kinds.put(p, BubblewrapArgv.Kind.SYMLINK);
      links.put(p, target);
      return this;
    }

    @Override
    public BubblewrapArgv.Kind kind(String path) {
      return kinds.getOrDefault(path, BubblewrapArgv.Kind.MISSING);
    }

    @Override
    public String linkTarget(String path) {
      return links.get(path);
    }

    /** A {@code .git} file (or a {@code commondir}) naming the directory {@code target}. */
    FakeHost names(String p, String target) {
      named.put(p, target);
      return file(p);
    }

    @Override
    public String directoryNamedBy(String file, String prefix) {
      return named.get(file);
    }

    @Override
    public List<String> children(String dir) {
      return kinds.keySet().stream()
          .filter(p -> p.startsWith(dir + "/") && p.indexOf('/', dir.length() + 1) < 0)
          .sorted().toList();
    }
  }

  private static SandboxPlan plan(Mode mode, List<String> writeDeny, List<String> readDeny) {
    SandboxSpec spec = new SandboxSpec("space-1", "ws-1", "a1",
        List.of(SandboxBindMount.of(WORK, mode.isReadOnly()), SandboxBindMount.of(CONFIG, true)),
        true, List.of(), WORK, mode, List.of("/home/u/src/repo"), List.of(), List.of());
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PATH", "/usr/bin:/bin");
    env.put("HOME", HOME);
    env.put("GH_TOKEN", "ghs_secret");
    Enforcement enforcement = new Enforcement(true, true, true, true, true, "bubblewrap", true,
        "egress limited", true, "sanitised", List.of(), List.of());
    return new SandboxPlan(spec, null, SandboxBackend.NATIVE, "native", Verdict.allowed(),
        "bubblewrap", EnvironmentVariables.of(env), enforcement,
        new FilesystemPolicy(List.of(WORK), readDeny, writeDeny, List.of()),
        EgressPolicy.resolve(true, List.of()));
  }

  private static BubblewrapArgv.Layout layout(SandboxPlan plan, SandboxUser user) {
    return new BubblewrapArgv.Layout(plan, List.of("git", "status", "--short"),
        List.of(new Bridge("gateway", Path.of("/tmp/pushgate-gw/gateway.sock"), 7070),
            new Bridge("proxy", Path.of("/tmp/pushgate-sandbox-1/proxy.sock"), 3128)),
        List.of(new BubblewrapArgv.Staged("/tmp/pushgate-sandbox-1/file-0",
            "/data/pushgate/runs/r1/gitconfig"),
            new BubblewrapArgv.Staged("/tmp/pushgate-sandbox-1/env", BubblewrapArgv.GUEST_ENV_FILE)),
        true, HOME, EMPTY, EMPTY_FILE, user, TOOLS, "n0nce");
  }

  private static BubblewrapArgv.Built build(SandboxPlan plan, FakeHost host) {
    return BubblewrapArgv.build(layout(plan, SandboxUser.NOBODY), host);
  }

  private static int at(List<String> argv, String... sequence) {
    return Collections.indexOfSubList(argv, List.of(sequence));
  }

  @Test
  void asRootStartsBwrapAsTheSandboxUserThroughSetpriv() {
    List<String> argv = build(plan(Mode.CHAT, List.of(), List.of()), new FakeHost()).argv();
    assertThat(argv.subList(0, 6)).containsExactly("/usr/bin/setpriv", "--reuid=65534",
        "--regid=65534", "--clear-groups", "--", "/usr/bin/bwrap");
    List<String> unprivileged =
        BubblewrapArgv.build(layout(plan(Mode.CHAT, List.of(), List.of()), null), new FakeHost())
            .argv();
    assertThat(unprivileged.get(0)).isEqualTo("/usr/bin/bwrap");
  }

  @Test
  void unsharesEverythingDropsCapabilitiesAndDiesWithItsParent() {
    List<String> argv = build(plan(Mode.CHAT, List.of(), List.of()), new FakeHost()).argv();
    assertThat(at(argv, "/usr/bin/bwrap", "--unshare-all", "--die-with-parent", "--new-session",
        "--cap-drop", "ALL")).isEqualTo(5);
  }

  @Test
  void mountsTheSystemReadOnlyAFreshProcWithProcSysReadOnlyAndNothingElseOfTheHost() {
    List<String> argv = build(plan(Mode.CHAT, List.of(), List.of()), new FakeHost()).argv();
    assertThat(at(argv, "--ro-bind", "/usr", "/usr")).isPositive();
    assertThat(at(argv, "--ro-bind", "/etc", "/etc")).isPositive();
    assertThat(at(argv, "--symlink", "usr/bin", "/bin")).isPositive();
    assertThat(at(argv, "--symlink", "usr/lib64", "/lib64")).isPositive();
    assertThat(argv).doesNotContain("/sbin", "/home", "/root", "/var", "/opt");
    int proc = at(argv, "--proc", "/proc");
    assertThat(proc).isPositive();
    assertThat(at(argv, "--ro-bind", "/proc/sys", "/proc/sys")).isGreaterThan(proc);
    assertThat(at(argv, "--dev", "/dev")).isPositive();
    assertThat(at(argv, "--tmpfs", "/tmp")).isPositive();
    assertThat(at(argv, "--tmpfs", HOME)).isPositive();
    assertThat(at(argv, "--remount-ro", "/")).isPositive();
  }

  @Test
  void bindsTheWorkdirWritableInChatAndReadOnlyInReadOnlyModesAndNeverASibling() {
    List<String> chat = build(plan(Mode.CHAT, List.of(), List.of()), new FakeHost()).argv();
    assertThat(at(chat, "--bind", WORK, WORK)).isPositive();
    assertThat(at(chat, "--ro-bind", CONFIG, CONFIG)).isPositive();
    assertThat(chat).noneMatch(a -> a.contains("/agents/a2"));
    List<String> review = build(plan(Mode.REVIEW, List.of(), List.of()), new FakeHost()).argv();
    assertThat(at(review, "--ro-bind", WORK, WORK)).isPositive();
    assertThat(at(review, "--bind", WORK, WORK)).isNegative();
  }

  @Test
  void coversExistingDenyPathsReadOnlyAndBlocksMissingOnesWithAnEmptyDirectory() {
    FakeHost host = new FakeHost().dir(WORK + "/.git").dir(WORK + "/.git/hooks")
        .file(WORK + "/.git/config").file(WORK + "/README.md");
    SandboxPlan plan = plan(Mode.CHAT, List.of(WORK + "/.git/hooks", WORK + "/.git/config",
        WORK + "/.vscode", WORK + "/.claude/settings.json", WORK + "/.claude/hooks",
        WORK + "/README.md/x", "/home/u/src/repo"), List.of());
    BubblewrapArgv.Built built = build(plan, host);
    List<String> argv = built.argv();
    int work = at(argv, "--bind", WORK, WORK);
    assertThat(at(argv, "--ro-bind", WORK + "/.git/hooks", WORK + "/.git/hooks"))
        .isGreaterThan(work);
    assertThat(at(argv, "--ro-bind", WORK + "/.git/config", WORK + "/.git/config"))
        .isGreaterThan(work);
    assertThat(at(argv, "--ro-bind", EMPTY, WORK + "/.vscode")).isGreaterThan(work);
    assertThat(at(argv, "--ro-bind", EMPTY, WORK + "/.claude")).isGreaterThan(work);
    assertThat(built.placeholders()).startsWith(WORK + "/.vscode", WORK + "/.claude");
    // Under a file nothing can be created; outside every mount the path is absent already.
    assertThat(argv).noneMatch(a -> a.startsWith(WORK + "/README.md"));
    assertThat(argv).doesNotContain("/home/u/src/repo");
  }

  @Test
  void aGitDirectoryIsPinnedAndWhatGitRunsOrFollowsIsDeniedWhileObjectsAndRefsStayWritable() {
    String git = WORK + "/.git";
    FakeHost host = new FakeHost().dir(git).dir(git + "/hooks").file(git + "/config")
        .dir(git + "/info").dir(git + "/objects").dir(git + "/objects/info").dir(git + "/refs")
        .file(git + "/HEAD").file(git + "/index");
    BubblewrapArgv.Built built = build(plan(Mode.CHAT, List.of(), List.of()), host);
    List<String> argv = built.argv();
    int work = at(argv, "--bind", WORK, WORK);
    int pinned = at(argv, "--bind", git, git);
    assertThat(pinned).isGreaterThan(work);
    // objects/ is pinned too, before the placeholders inside it: renamed, it would carry the
    // alternates placeholder away.
    int objects = at(argv, "--bind", git + "/objects", git + "/objects");
    assertThat(objects).isGreaterThan(pinned);
    for (String covered : List.of("hooks", "config", "info")) {
      assertThat(at(argv, "--ro-bind", git + "/" + covered, git + "/" + covered))
          .isGreaterThan(pinned);
    }
    assertThat(at(argv, "--ro-bind", EMPTY_FILE, git + "/objects/info/alternates"))
        .isGreaterThan(objects);
    for (String dir : List.of("modules", "worktrees", "branches", "remotes")) {
      assertThat(at(argv, "--ro-bind", EMPTY, git + "/" + dir)).isGreaterThan(pinned);
    }
    for (String file : List.of("config.worktree", "objects/info/alternates",
        "objects/info/http-alternates")) {
      assertThat(at(argv, "--ro-bind", EMPTY_FILE, git + "/" + file)).isGreaterThan(pinned);
    }
    assertThat(built.placeholders()).containsExactlyInAnyOrder(git + "/modules",
        git + "/worktrees", git + "/branches", git + "/remotes", git + "/config.worktree",
        git + "/objects/info/alternates", git + "/objects/info/http-alternates");
    assertThat(argv).noneMatch(a -> a.startsWith(git + "/objects/pack") || a.startsWith(git + "/refs")
        || a.equals(git + "/HEAD") || a.equals(git + "/index") || a.endsWith("/commondir"));
  }

  @Test
  void aRepositoryDirectlyInsideAWritableMountIsGuardedLikeTheMountsOwn() {
    String git = WORK + "/widget/.git";
    FakeHost host = new FakeHost().dir(WORK + "/widget").dir(git).file(git + "/config")
        .dir(WORK + "/deeper").dir(WORK + "/deeper/down").dir(WORK + "/deeper/down/.git");
    List<String> argv = build(plan(Mode.CHAT, List.of(), List.of()), host).argv();
    assertThat(at(argv, "--bind", git, git)).isPositive();
    assertThat(at(argv, "--ro-bind", git + "/config", git + "/config"))
        .isGreaterThan(at(argv, "--bind", git, git));
    assertThat(at(argv, "--ro-bind", EMPTY, git + "/hooks")).isPositive();
    // Two levels down is not a worktree the sandbox knows of.
    assertThat(argv).noneMatch(a -> a.startsWith(WORK + "/deeper"));
  }

  @Test
  void aGitFileIsPinnedReadOnlyAndALinkIsNeitherPinnedNorFollowed() {
    FakeHost file = new FakeHost().file(WORK + "/.git");
    List<String> argv = build(plan(Mode.CHAT, List.of(), List.of()), file).argv();
    assertThat(at(argv, "--ro-bind", WORK + "/.git", WORK + "/.git")).isPositive();
    assertThat(argv).filteredOn(a -> a.contains("/.git")).containsOnly(WORK + "/.git");
    FakeHost link = new FakeHost().link(WORK + "/.git", "/elsewhere/.git");
    assertThat(build(plan(Mode.CHAT, List.of(), List.of()), link).argv())
        .noneMatch(a -> a.contains("/.git"));
    FakeHost readOnly = new FakeHost().dir(WORK + "/.git");
    assertThat(build(plan(Mode.REVIEW, List.of(), List.of()), readOnly).argv())
        .noneMatch(a -> a.contains("/.git"));
  }

  @Test
  void theGitDirectoryAGitFileNamesInsideTheMountIsGuardedLikeADotGit() {
    // Attack 30c: a clone --separate-git-dir (or a linked worktree) keeps its config and hooks
    // where its .git file says; inside a writable mount they are guarded as a .git's are.
    FakeHost host = new FakeHost().names(WORK + "/.git", WORK + "/.repo").dir(WORK + "/.repo")
        .dir(WORK + "/.repo/hooks").file(WORK + "/.repo/config");
    List<String> argv = build(plan(Mode.CHAT, List.of(), List.of()), host).argv();
    assertThat(at(argv, "--bind", WORK + "/.repo", WORK + "/.repo")).isPositive();
    assertThat(at(argv, "--ro-bind", WORK + "/.repo/hooks", WORK + "/.repo/hooks")).isPositive();
    assertThat(at(argv, "--ro-bind", WORK + "/.repo/config", WORK + "/.repo/config")).isPositive();
    assertThat(at(argv, "--ro-bind", EMPTY_FILE, WORK + "/.repo/config.worktree")).isPositive();
    assertThat(at(argv, "--ro-bind", WORK + "/.git", WORK + "/.git")).isPositive();

    FakeHost outside = new FakeHost().names(WORK + "/.git", "/srv/elsewhere/.git")
        .dir("/srv/elsewhere/.git");
    assertThat(build(plan(Mode.CHAT, List.of(), List.of()), outside).argv())
        .noneMatch(a -> a.contains("/srv/elsewhere"));
  }


  @Test
  void neverBlocksAMissingGitDirectorySoThatCloneAndInitStillWork() {
    SandboxPlan plan = plan(Mode.CHAT, List.of(WORK + "/.git/hooks", WORK + "/.git/config"),
        List.of());
    BubblewrapArgv.Built built = build(plan, new FakeHost());
    assertThat(built.placeholders()).isEmpty();
    assertThat(built.argv()).noneMatch(a -> a.contains("/.git"));
  }

  @Test
  void hidesSecretsInsideAMountWithAnEmptyDirectoryOrDevNull() {
    FakeHost host = new FakeHost().dir(WORK + "/.ssh").file(WORK + "/.netrc").dir(HOME + "/.ssh");
    SandboxPlan plan = plan(Mode.CHAT, List.of(),
        List.of(WORK + "/.ssh", WORK + "/.netrc", WORK + "/.aws", HOME + "/.ssh"));
    List<String> argv = build(plan, host).argv();
    assertThat(at(argv, "--tmpfs", WORK + "/.ssh", "--remount-ro", WORK + "/.ssh")).isPositive();
    assertThat(at(argv, "--ro-bind", "/dev/null", WORK + "/.netrc")).isPositive();
    assertThat(argv).doesNotContain(WORK + "/.aws");
    // The home is an empty tmpfs: its real .ssh is not mounted at all.
    assertThat(argv).doesNotContain(HOME + "/.ssh");
  }

  @Test
  void bindsStagedFilesAndBridgeSocketsReadOnlyAndKeepsSecretsOffTheCommandLine() {
    List<String> argv = build(plan(Mode.CHAT, List.of(), List.of()), new FakeHost()).argv();
    assertThat(at(argv, "--ro-bind", "/tmp/pushgate-sandbox-1/file-0",
        "/data/pushgate/runs/r1/gitconfig")).isPositive();
    assertThat(at(argv, "--ro-bind", "/tmp/pushgate-gw/gateway.sock",
        "/run/pushgate/gateway.sock")).isPositive();
    assertThat(at(argv, "--ro-bind", "/tmp/pushgate-sandbox-1/proxy.sock",
        "/run/pushgate/proxy.sock")).isPositive();
    // The environment is cleared and every variable comes from the env file: no value, not even
    // one whose name looks harmless, is on the command line that every local user can read.
    int clearenv = at(argv, "--chdir", WORK, "--clearenv", "--");
    assertThat(clearenv).isPositive();
    assertThat(argv).doesNotContain("--setenv", "--unsetenv");
    assertThat(String.join(" ", argv)).doesNotContain("ghs_secret").doesNotContain("GH_TOKEN")
        .doesNotContain("/usr/bin:/bin");
    assertThat(SandboxStartScript.exportable("GH_TOKEN")).isTrue();
    assertThat(SandboxStartScript.exportable("LC_ALL")).isTrue();
    assertThat(SandboxStartScript.exportable("A-B")).isFalse();
    assertThat(SandboxStartScript.exportable("1A")).isFalse();
    assertThat(SandboxStartScript.exportLine("GH_TOKEN", "a'b")).isEqualTo("export GH_TOKEN='a'\\''b'\n");
  }

  @Test
  void runsTheCommandThroughTheBridgeScriptThatWaitsUntilEveryBridgeListens() {
    BubblewrapArgv.Layout layout = layout(plan(Mode.CHAT, List.of(), List.of()), SandboxUser.NOBODY);
    List<String> argv = BubblewrapArgv.build(layout, new FakeHost()).argv();
    int sep = argv.lastIndexOf("--");
    assertThat(argv.subList(sep, argv.size())).containsExactly("--", "/bin/sh", "-c",
        SandboxStartScript.script(layout), "pushgate-sandbox", "git", "status", "--short");
    String script = SandboxStartScript.script(layout);
    assertThat(script)
        .contains(". '/run/pushgate/env'\n")
        .contains("'/usr/bin/socat' TCP-LISTEN:7070,bind=127.0.0.1,fork,reuseaddr"
            + " UNIX-CONNECT:/run/pushgate/gateway.sock 2>&1 | bridge_log &\n")
        .contains("'/usr/bin/socat' TCP-LISTEN:3128,bind=127.0.0.1,fork,reuseaddr"
            + " UNIX-CONNECT:/run/pushgate/proxy.sock 2>&1 | bridge_log &\n")
        .contains("for p in 1B9E 0C38; do")
        .contains("< /proc/net/tcp")
        .endsWith("printf '%s\\n' 'pushgate-sandbox-ready n0nce' >&2\nexec \"$@\"\n");
  }

  @Test
  void mountsParentsBeforeChildren() {
    SandboxSpec spec = new SandboxSpec("s", "w", null,
        List.of(SandboxBindMount.of("/home/u/work/sub", false), SandboxBindMount.of("/home/u/work",
            false)), true, List.of(), "/home/u/work", Mode.CHAT, List.of(), List.of("/state"),
        List.of());
    SandboxPlan base = plan(Mode.CHAT, List.of(), List.of());
    SandboxPlan plan = new SandboxPlan(spec, null, SandboxBackend.NATIVE, "native",
        Verdict.allowed(), "bubblewrap", base.env(), base.enforcement(), base.filesystem(),
        base.egress());
    List<String> argv = build(plan, new FakeHost()).argv();
    int home = at(argv, "--tmpfs", HOME);
    int parent = at(argv, "--bind", "/home/u/work", "/home/u/work");
    int child = at(argv, "--bind", "/home/u/work/sub", "/home/u/work/sub");
    assertThat(home).isPositive().isLessThan(parent);
    assertThat(parent).isLessThan(child);
    assertThat(at(argv, "--bind", "/state", "/state")).isPositive();
  }

  @Test
  void tellsTheParserWhatIsHiddenAndWhatIsBlocked() {
    FakeHost host = new FakeHost().file("/home/u/.ssh/id_ed25519").dir("/srv/other");
    SandboxPlan plan = plan(Mode.CHAT, List.of(WORK + "/.vscode"), List.of(HOME + "/.ssh"));
    ViolationParser.Denials d = build(plan, host).denials();
    assertThat(d.hidden("/home/u/.ssh/id_ed25519")).isTrue();
    assertThat(d.hidden("/data/conv/agents/a2/work")).isTrue();
    assertThat(d.hidden("/srv/other")).isTrue();
    assertThat(d.hidden("/srv/never-existed")).isFalse();
    assertThat(d.hidden(WORK + "/missing.txt")).isFalse();
    assertThat(d.hidden("missing.txt")).isFalse();
    assertThat(d.blocked(".vscode")).isTrue();
    assertThat(d.blocked(WORK + "/.vscode/tasks.json")).isTrue();
    assertThat(d.blocked(WORK + "/src")).isFalse();
  }

  /**
   * Issue 30: a config the name-deny layer judges is not bound read-only (git's rename of
   * config.lock onto a mount point would fail before the layer saw it), and the run's writable
   * git config turns git's default tracking back on; without the layer it is bound as before.
   */
  @Test
  void aConfigTheLayerJudgesIsLeftToItAndTrackingIsBackOn() {
    FakeHost host = new FakeHost().dir(WORK + "/.git").dir(WORK + "/.git/hooks")
        .file(WORK + "/.git/config");
    SandboxPlan plan = plan(Mode.CHAT, List.of(WORK + "/.git/hooks", WORK + "/.git/config"),
        List.of());
    BubblewrapArgv.Layout plain = layout(plan, SandboxUser.NOBODY);
    BubblewrapArgv.Layout judged = new BubblewrapArgv.Layout(plain.plan(), plain.command(),
        plain.bridges(), plain.files(), plain.envFile(), plain.home(), plain.emptyDir(),
        plain.emptyFile(), plain.user(), plain.tools(), plain.nonce(),
        Map.of(WORK, "/tmp/l/m0"), List.of(), List.of(WORK + "/.git/config"));
    List<String> argv = BubblewrapArgv.build(judged, host).argv();
    assertThat(at(argv, "--ro-bind", "/tmp/l/m0/.git/hooks", WORK + "/.git/hooks")).isPositive();
    assertThat(argv).doesNotContain(WORK + "/.git/config", "/tmp/l/m0/.git/config");
    assertThat(argv.get(argv.indexOf("-c") + 1)).contains("autoSetupMerge = true");

    List<String> bound = BubblewrapArgv.build(plain, host).argv();
    assertThat(at(bound, "--ro-bind", WORK + "/.git/config", WORK + "/.git/config"))
        .isPositive();
    assertThat(bound.get(bound.indexOf("-c") + 1)).doesNotContain("autoSetupMerge");
  }

  @Test
  void underTheNameDenyLayerEveryBindSourceInALayeredMountComesThroughIt() {
    List<String> argv = List.of("/usr/bin/setpriv", "--reuid=7", "--", "/usr/bin/bwrap",
        "--bind", "/w/work", "/w/work",
        "--bind", "/w/work/.git", "/w/work/.git",
        "--ro-bind", "/w/work/.git/config", "/w/work/.git/config",
        "--ro-bind", "/w/workshop", "/w/workshop",
        "--ro-bind", "/tmp/empty", "/w/work/.vscode",
        "--", "/bin/sh", "-c", "--bind /w/work /w/work");
    List<String> out = BubblewrapArgv.throughLayer(argv, 4, Map.of("/w/work", "/tmp/l/m0"));
    assertThat(out).containsExactly("/usr/bin/setpriv", "--reuid=7", "--", "/usr/bin/bwrap",
        "--bind", "/tmp/l/m0", "/w/work",
        "--bind", "/tmp/l/m0/.git", "/w/work/.git",
        "--ro-bind", "/tmp/l/m0/.git/config", "/w/work/.git/config",
        "--ro-bind", "/w/workshop", "/w/workshop",
        "--ro-bind", "/tmp/empty", "/w/work/.vscode",
        "--", "/bin/sh", "-c", "--bind /w/work /w/work");
    assertThat(BubblewrapArgv.throughLayer(argv, 4, Map.of())).isEqualTo(argv);
  }

  @Test
  void theBridgesDropOnlyTheEndsOfConnectionsTheClientClosedFirst() throws Exception {
    String lines = String.join("\n",
        "2026/12/04 10:11:12 socat[812] E write(6, 0x55d1c0a3e000, 8192): Broken pipe",
        "2026/12/04 10:11:12 socat[813] E read(5, 0x55d1c0a3e000, 8192): Connection reset by peer",
        "2026/12/04 10:11:12 socat[814] E shutdown(6, 1): Transport endpoint is not connected",
        "2026/12/04 10:11:13 socat[7] E bind(5, {AF=2 127.0.0.1:7070}, 16): Address in use",
        "2026/12/04 10:11:13 socat[9] E connect(5, AF=1 \"/run/pushgate/gateway.sock\", 29):"
            + " Connection refused",
        "Broken pipe from the command itself") + "\n";
    Process p = new ProcessBuilder("/bin/sh", "-c",
        SandboxStartScript.BRIDGE_LOG_FILTER + "printf '%s' \"$1\" | bridge_log", "sh", lines)
        .start();
    String err = new String(p.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor()).isZero();
    assertThat(err.split("\n")).containsExactly(
        "2026/12/04 10:11:13 socat[7] E bind(5, {AF=2 127.0.0.1:7070}, 16): Address in use",
        "2026/12/04 10:11:13 socat[9] E connect(5, AF=1 \"/run/pushgate/gateway.sock\", 29):"
            + " Connection refused",
        "Broken pipe from the command itself");
  }
}
