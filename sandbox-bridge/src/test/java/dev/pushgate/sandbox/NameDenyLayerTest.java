package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.pushgate.policy.Mode;
import dev.pushgate.policy.SecretFiles;
import dev.pushgate.testkit.Wait;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The name-deny layer with real bubblewrap and real FUSE: the default rules launch on Linux, and
 * every write to a denied name fails and is reported, anywhere in the tree.
 */
class NameDenyLayerTest {
  @TempDir Path tmp;
  private Path work;
  private Path config;
  private Path home;
  private final LocalLauncher launcher = new LocalLauncher(LocalLauncher.Settings.defaults());

  /** The layer's mounts on the host before the test: others' (a parallel build) are not ours. */
  private List<String> mountsBefore;

  @BeforeEach
  void layout() throws Exception {
    RealBwrap.require();
    requireLayer();
    mountsBefore = allDenyfsMounts();
    Path root = RealBwrap.searchable(tmp);
    work = Files.createDirectories(root.resolve("agents/a1/work"));
    config = Files.createDirectories(root.resolve("agents/a1/config"));
    home = Files.createDirectories(root.resolve("home/u"));
    Files.writeString(work.resolve("old.pem"), "the existing certificate\n");
    Files.createDirectories(work.resolve("sub/deep"));
    Files.writeString(work.resolve("notes.txt"), "notes\n");
  }

  /** Skips without FUSE or the helper, or fails when CI asks for real bubblewrap. */
  static void requireLayer() {
    NameDenyLayer.Availability a = NameDenyLayer.Availability.probe();
    if (a.available()) {
      return;
    }
    if ("1".equals(System.getenv("SANDBOX_REQUIRE_BWRAP"))) {
      fail("SANDBOX_REQUIRE_BWRAP=1 but the name-deny layer cannot run: " + a.reason());
    }
    Assumptions.abort("the name-deny layer cannot run here: " + a.reason());
  }

  private SandboxPlanner planner(NameDenyLayer.Availability layer) {
    return RealBwrap.planner(home, Map.of("PATH", "/usr/bin:/bin", "HOME", home.toString()),
        SandboxSwitch.ON).withNameDenyLayer(layer);
  }

  private SandboxPlan plan(NameDenyLayer.Availability layer, List<String> protectedPaths) {
    RunPaths paths = new RunPaths(work.toString(), config.toString(), null, null,
        protectedPaths, List.of(), List.of());
    SandboxRequest request = SandboxRequest.builder("space-1", "ws-1", Runner.ACP, paths)
        .agentId("a1").mode(Mode.CHAT).denyWriteGlobs(DenyWriteGlobs.DEFAULT).build();
    return planner(layer).plan(request);
  }

  private SandboxPlan defaults() {
    return plan(NameDenyLayer.Availability.probe(), List.of());
  }

  private RealBwrap.Run sh(SandboxPlan plan, String script) throws Exception {
    return RealBwrap.run(launcher, LaunchRequest.of(plan, List.of("/bin/sh", "-c", script)));
  }

  private List<String> layerTargets(RealBwrap.Run run) {
    List<String> out = new ArrayList<>();
    for (SandboxViolation v : run.violations()) {
      if (v.raw() != null && v.raw().startsWith("denied by the name-deny layer")) {
        assertThat(v.action()).isEqualTo("file-write*");
        out.add(v.target());
      }
    }
    return out;
  }

  @Test
  void theDefaultRulesLaunchUnderTheLayerAndTheSummarySaysSo() {
    SandboxPlan plan = defaults();
    assertThat(plan.verdict().launches()).isTrue();
    assertThat(plan.effectiveBackend()).isEqualTo(SandboxBackend.NATIVE);
    assertThat(plan.enforcement().osSandboxNote()).contains("pushgate-denyfs FUSE layer");
    assertThat(plan.enforcement().writeDenyGlobs()).isEqualTo(DenyWriteGlobs.DEFAULT_GLOBS);
  }

  @Test
  void withoutTheLayerTheDefaultRulesAreRefusedWithTheReason() {
    SandboxPlan plan = plan(new NameDenyLayer.Availability(null, "this host lacks /dev/fuse"),
        List.of());
    assertThat(plan.verdict().launches()).isFalse();
    assertThat(plan.verdict().reason())
        .isEqualTo("bubblewrap cannot deny creating .env inside a writable mount, and the"
            + " name-deny layer cannot run: this host lacks /dev/fuse");
    assertThat(plan.verdict().waysOut().get(0)).contains("fuse3");
  }

  @Test
  void everyWriteToADeniedNameFailsAndIsReportedAnywhereInTheTree() throws Exception {
    RealBwrap.Run run = sh(defaults(), String.join("\n",
        "try() { if \"$@\" 2>/dev/null; then echo \"ALLOWED $*\"; else echo \"refused $*\"; fi; }",
        "try sh -c 'echo A=1 > .env'",
        "try sh -c 'echo k > sub/deep/id.key'",
        "try sh -c 'echo more >> old.pem'",
        "try truncate -s 0 old.pem",
        "try sh -c ': > old.pem'",
        "echo cert > plain.txt",
        "try mv plain.txt sub/moved.pem",
        "try ln old.pem hardlink.txt",
        "try ln notes.txt sub/deep/linked.key",
        "try ln -s /etc/hostname sub/.env",
        "try ln -s old.pem pointer.txt",
        "try cp notes.txt copy.pem",
        "try mkdir dir.key",
        "try rm old.pem",
        "try mv old.pem renamed.txt",
        "try chmod 600 old.pem",
        // Through a descriptor opened for reading: the kernel sends the change with it.
        "try python3 -c 'import os; os.fchmod(os.open(\"old.pem\", os.O_RDONLY), 0o600)'",
        "try touch -d 2001-01-01 old.pem",
        "cat old.pem"));
    assertThat(run.stdout()).doesNotContain("ALLOWED");
    assertThat(run.stdout()).endsWith("the existing certificate\n");
    assertThat(Files.readString(work.resolve("old.pem"))).isEqualTo("the existing certificate\n");
    for (String name : List.of(".env", "sub/deep/id.key", "sub/moved.pem", "hardlink.txt",
        "sub/deep/linked.key", "sub/.env", "pointer.txt", "copy.pem", "dir.key", "renamed.txt")) {
      assertThat(work.resolve(name)).as(name).doesNotExist();
    }
    assertThat(Files.exists(work.resolve("plain.txt"))).isTrue();
    String w = work.toString();
    assertThat(layerTargets(run)).contains(w + "/.env", w + "/sub/deep/id.key", w + "/old.pem",
        w + "/sub/moved.pem", w + "/sub/deep/linked.key", w + "/sub/.env", w + "/copy.pem",
        w + "/dir.key", w + "/pointer.txt");
  }

  /**
   * The one list of secret files (policy-hooks' SecretFiles, also the content rule "no secret
   * files"): each glob's names are refused, each exception's are writable, and the exceptions
   * open no door to a denied name (rename, hard link, symlink, other spellings).
   */
  @Test
  void theSecretFilesListIsDeniedAndItsExceptionsAreWritable() throws Exception {
    assertThat(DenyWriteGlobs.DEFAULT_GLOBS).isSameAs(SecretFiles.GLOBS);
    assertThat(defaults().filesystem().writeDenyGlobs()).isEqualTo(SecretFiles.GLOBS);
    Files.writeString(work.resolve(".env"), "DB_URL=from-the-host\n");
    List<String> denied = new ArrayList<>();
    List<String> allowed = new ArrayList<>();
    for (String g : DenyWriteGlobs.DEFAULT_GLOBS) {
      String name = g.replace("!", "").replace("*", "x");
      (g.startsWith("!") ? allowed : denied).add(name);
    }
    denied.addAll(List.of(".ENV.production", ".env.example.local", ".Env.Local", "ID_RSA",
        "id_rsa.pub.bak", "$(printf '.env.example\\342\\200\\214')",
        "$(printf 'tls.\\342\\204\\252ey')", "'.env.example '"));
    allowed.addAll(List.of(".ENV.EXAMPLE", "id_ed25519.pub", "notes.env.txt"));
    List<String> script = new ArrayList<>(List.of(
        "try() { if \"$@\" 2>/dev/null; then echo \"ALLOWED $*\"; else echo \"refused $*\"; fi; }",
        "write() { sh -c 'echo x > \"$1\"' _ \"$1\"; }"));
    for (String name : denied) {
      script.add("try write " + name);
    }
    for (String name : allowed) {
      script.add("write " + name + " || echo REFUSED " + name);
    }
    script.addAll(List.of(
        "try mv .env.example .env.local",
        "try ln .env .env.sample2.example",
        "try ln .env .env.example2",
        "rm .env.sample && try ln .env .env.sample",
        "rm .env.template && try ln -s .env .env.template",
        "try ln -s ../.env sub/.env.dist",
        "mv .env.example .env.dist.tmp 2>/dev/null; echo moved-to-denied-name-$?",
        "ln -s .env.dist link-to-template && echo link-ok",
        "echo y > .env.example && mv .env.example sub/.env.example && echo excepted-rename-ok",
        "cat .env"));
    RealBwrap.Run run = sh(defaults(), String.join("\n", script));
    assertThat(run.stdout()).doesNotContain("ALLOWED").doesNotContain("REFUSED");
    assertThat(run.stdout()).contains("moved-to-denied-name-1\n", "link-ok\n",
        "excepted-rename-ok\n");
    assertThat(run.stdout()).endsWith("DB_URL=from-the-host\n");
    assertThat(work.resolve(".env.local")).doesNotExist();
    assertThat(work.resolve(".env.sample")).doesNotExist();
    assertThat(work.resolve(".env.template")).doesNotExist();
    assertThat(work.resolve("sub/.env.dist")).doesNotExist();
    assertThat(work.resolve("sub/.env.example")).hasContent("y");
    for (String name : List.of(".env.x", "x.pem", "id_rsax", ".ENV.production", "ID_RSA")) {
      assertThat(work.resolve(name)).as(name).doesNotExist();
    }
    for (String name : List.of("id_x.pub", ".ENV.EXAMPLE", ".env.dist", "id_ed25519.pub")) {
      assertThat(work.resolve(name)).as(name).exists();
    }
    String w = work.toString();
    assertThat(layerTargets(run)).contains(w + "/.env.x", w + "/.ENV.production",
        w + "/.env.local", w + "/.env.example\\xe2\\x80\\x8c");
  }

  @Test
  void ordinaryFilesRenamesAndGitCommitWork() throws Exception {
    RealBwrap.Run run = sh(defaults(), String.join(" && ",
        "mkdir -p src/a && echo hi > src/a/f.txt && mv src/a/f.txt src/a/g.txt",
        "echo key-notes > keys.md && ln -s keys.md link.md && ln keys.md hard.md",
        "git -c init.defaultBranch=main init -q repo && cd repo",
        "echo x > x.txt && git add -A",
        "git -c user.name=t -c user.email=t@example.com commit -qm one",
        "git mv x.txt y.txt",
        "git -c user.name=t -c user.email=t@example.com commit -qm two",
        "git log --format=%s | tr '\\n' ' '"));
    assertThat(run.stderr()).isEmpty();
    assertThat(run.exit()).isZero();
    assertThat(run.stdout()).isEqualTo("two one ");
    assertThat(work.resolve("src/a/g.txt")).hasContent("hi");
    assertThat(work.resolve("repo/y.txt")).exists();
    if (LocalLauncher.currentUid() == 0) {
      // Given back to the workdir's owner after the run, as every file the run made.
      assertThat(Files.getAttribute(work.resolve("src/a/g.txt"), "unix:uid")).isEqualTo(0);
    }
  }

  @Test
  void anExistingWorktreeKeepsItsGitGuardsUnderTheLayer() throws Exception {
    git("init", "-q", "-b", "main", work.toString());
    git("-C", work.toString(), "add", "notes.txt");
    git("-C", work.toString(), "-c", "user.name=t", "-c", "user.email=t@example.com",
        "commit", "-qm", "base");
    RealBwrap.Run run = sh(defaults(), String.join("\n",
        "echo more >> notes.txt",
        "git -c user.name=t -c user.email=t@example.com commit -qam two && echo committed",
        "echo evil > .git/hooks/pre-commit || echo hook-refused",
        "echo '[core]' >> .git/config || echo config-refused",
        "echo x > .git/x.pem || echo pem-refused",
        "git log --format=%s | tr '\\n' ' '"));
    assertThat(run.stdout()).isEqualTo(
        "committed\nhook-refused\nconfig-refused\npem-refused\ntwo base ");
    assertThat(work.resolve(".git/x.pem")).doesNotExist();
    assertThat(layerTargets(run)).contains(work + "/.git/x.pem");
  }

  @Test
  void aCommondirIsNoLiveDoorAroundTheJudgedConfig() throws Exception {
    // Found by attack 30c: .git/config takes only an upstream while the run lives, since a git
    // on the host may read it meanwhile; yet a planted .git/commondir made that git read the
    // config (core.fsmonitor) of a directory the agent filled, and run it, until the
    // end-of-run check removed the file.
    git("init", "-q", "-b", "main", work.toString());
    RealBwrap.Run run = sh(defaults(), String.join("\n",
        "mkdir -p evil && ln -s ../.git/objects evil/objects && ln -s ../.git/refs evil/refs",
        "printf '[core]\\n\\tfsmonitor = touch pwned\\n' > evil/config",
        "echo ../evil > .git/commondir || echo commondir-refused",
        // every other door to the name: rename, hard link, symlink, directory
        "echo ../evil > cd && { mv cd .git/commondir || echo rename-refused; }",
        "ln cd .git/commondir || echo link-refused",
        "ln -s ../evil .git/commondir || echo symlink-refused",
        "mkdir .git/commondir || echo mkdir-refused",
        "git config core.fsmonitor || echo no-fsmonitor"));
    assertThat(run.stdout()).isEqualTo("commondir-refused\nrename-refused\nlink-refused\n"
        + "symlink-refused\nmkdir-refused\nno-fsmonitor\n");
    // No rules change opens it: the reason must not send the agent to the operator.
    assertThat(run.violations()).filteredOn(v -> v.target().endsWith("/.git/commondir"))
        .isNotEmpty()
        .allSatisfy(v -> assertThat(RefusalReason.of(v)).isEqualTo(RefusalReason.HOST_TOOL_FILE));
  }

  @Test
  void aWorktreeWhoseGitIsAFileKeepsItsGitGuardsToo() throws Exception {
    // Found by attack 30c: a workdir laid out by git clone --separate-git-dir (its .git a
    // "gitdir:" file naming a git directory inside the same mount) had no guard while the run
    // lived: its config took core.fsmonitor and its hooks a pre-commit, which an editor's git
    // on the host runs before the end-of-run check puts them back.
    git("init", "-q", "-b", "main", "--separate-git-dir", work.resolve(".repo").toString(),
        work.toString());
    RealBwrap.Run run = sh(defaults(), String.join("\n",
        "echo '[core]' >> .repo/config || echo config-refused",
        "echo evil > .repo/hooks/pre-commit || echo hook-refused"));
    assertThat(run.stdout()).isEqualTo("config-refused\nhook-refused\n");
  }

  private static void git(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git", "-c", "core.hooksPath=/dev/null"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(out).isZero();
  }

  @Test
  void theFilesOwnPermissionsStillHoldUnderTheLayer() throws Exception {
    // The daemon acts with the caller's ids (the kernel checks no modes for it): a file the
    // sandbox user may not write stays unwritable, and one made in the run is the caller's.
    Path readOnly = work.resolve("read-only.txt");
    Files.writeString(readOnly, "fixed\n");
    Files.setPosixFilePermissions(readOnly, java.nio.file.attribute.PosixFilePermissions
        .fromString("r--r--r--"));
    List<String> script = new ArrayList<>(List.of(
        "echo more >> read-only.txt 2>/dev/null && echo ALLOWED-write || echo write-refused",
        "cat read-only.txt",
        "echo mine > made.txt && [ \"$(stat -c %u made.txt)\" = \"$(id -u)\" ] && echo made-mine"));
    if (LocalLauncher.currentUid() == 0) {
      // Linked from outside the lent tree: not lent, so it stays root's, and 0600 keeps it
      // from the sandbox user even though the daemon runs as root.
      Path outside = Files.createDirectories(tmp.resolve("outside"));
      Path secret = Files.writeString(outside.resolve("secret.txt"), "root only\n");
      Files.setPosixFilePermissions(secret, java.nio.file.attribute.PosixFilePermissions
          .fromString("rw-------"));
      Files.createLink(work.resolve("secret.txt"), secret);
      script.add("cat secret.txt 2>/dev/null && echo ALLOWED-read || echo read-refused");
    }
    RealBwrap.Run run = sh(defaults(), String.join("\n", script));
    assertThat(run.stdout()).doesNotContain("ALLOWED")
        .startsWith("write-refused\nfixed\nmade-mine\n");
    if (LocalLauncher.currentUid() == 0) {
      assertThat(run.stdout()).endsWith("read-refused\n");
    }
    assertThat(readOnly).hasContent("fixed");
    assertThat(layerTargets(run)).isEmpty();
  }

  @Test
  void opensOfOneFileSeeEachOthersBytesWhateverTheirModes() throws Exception {
    // Under passthrough every open of an inode shares one file underneath (docs/sandbox.md):
    // readers, writers, mappings and large files must all see the same bytes, and a descriptor
    // opened for reading must stay read-only, also on a denied name.
    String py = String.join("\n",
        "import hashlib, mmap, os",
        "def say(*a): print(*a, flush=True)",
        "r = os.open('log.txt', os.O_RDONLY | os.O_CREAT, 0o644)",
        "w = os.open('log.txt', os.O_WRONLY | os.O_APPEND)",
        "os.write(w, b'one\\n'); os.write(w, b'two\\n'); os.close(w)",
        "say('reader sees', os.read(r, 100))",
        "wo = os.open('wo.txt', os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)",
        "os.write(wo, b'written'); os.close(wo)",
        "say('write-only then read', open('wo.txt', 'rb').read())",
        "m = os.open('map.bin', os.O_RDWR | os.O_CREAT, 0o644); os.ftruncate(m, 8192)",
        "mm = mmap.mmap(m, 8192); mm[4096:4101] = b'paged'; mm.flush(); mm.close(); os.close(m)",
        "say('mapped', open('map.bin', 'rb').read()[4096:4101])",
        "big = os.urandom(8 << 20)",
        "with open('big.bin', 'wb') as f: f.write(big)",
        "say('big same', hashlib.sha256(open('big.bin', 'rb').read()).digest() =="
            + " hashlib.sha256(big).digest())",
        "pem = os.open('old.pem', os.O_RDONLY)",
        "for how in ('reopen', 'mmap', 'write'):",
        "  try:",
        "    if how == 'reopen': os.open('/proc/self/fd/%d' % pem, os.O_WRONLY)",
        "    if how == 'mmap': mmap.mmap(pem, 0, mmap.MAP_SHARED, mmap.PROT_WRITE)",
        "    if how == 'write': os.write(pem, b'x')",
        "    say('ALLOWED', how)",
        "  except OSError as e: say('refused', how)",
        "say('pem', os.read(pem, 100))",
        "os.chmod('log.txt', 0o444); r2 = os.open('log.txt', os.O_RDONLY)",
        "os.chmod('log.txt', 0o644)",
        "try:",
        "  w2 = os.open('log.txt', os.O_WRONLY | os.O_APPEND); os.write(w2, b'three\\n')",
        "  os.close(w2); say('late writer', open('log.txt', 'rb').read())",
        "except OSError as e: say('late writer busy', e.errno == 16)",
        "say('old reader', os.pread(r2, 100, 0))");
    Files.writeString(work.resolve("shared.py"), py + "\n");
    RealBwrap.Run run = sh(defaults(), "python3 shared.py");
    assertThat(run.stderr()).isEmpty();
    String out = run.stdout();
    assertThat(out).contains("reader sees b'one\\ntwo\\n'\n", "write-only then read b'written'\n",
        "mapped b'paged'\n", "big same True\n", "refused reopen\n", "refused mmap\n",
        "refused write\n", "pem b'the existing certificate\\n'\n").doesNotContain("ALLOWED");
    // A file opened while its mode let the caller only read, then written after a chmod while
    // that open lasts: written whole.
    assertThat(out).contains("late writer b'one\\ntwo\\nthree\\n'\n");
    assertThat(out).contains("old reader b'one\\ntwo\\n");
    assertThat(work.resolve("old.pem")).hasContent("the existing certificate");
    assertThat(layerTargets(run)).containsExactly(work + "/old.pem");
  }

  @Test
  void readingAFileNeverOpensItForWriteUnderneath() throws Exception {
    // Under passthrough the kernel opens a backing file per open, with that open's own flags,
    // on the registered file's path: a read must not make the daemon open the file underneath
    // for write. Such an open copies a file up on an overlayfs underneath and counts as a
    // writer (a host-side exec of the file fails with ETXTBSY while the kernel holds it).
    Path tool = Files.writeString(work.resolve("tool.sh"), "#!/bin/sh\necho tool ran\n");
    Files.setPosixFilePermissions(tool, java.nio.file.attribute.PosixFilePermissions
        .fromString("rwxr-xr-x"));
    Files.writeString(work.resolve("late.txt"), "one\n");
    String script = String.join("\n",
        "cat tool.sh > /dev/null",
        // first opened while its mode lets the caller only read, then written after a chmod
        // while that open lasts: the write is the caller's to make
        "chmod 444 late.txt && exec 3< late.txt && chmod 644 late.txt",
        "echo two >> late.txt && echo late-writer-ok || echo late-writer-refused",
        "cat <&3",
        ": > read.flag",
        // The host's go is looked for in the read-only config directory, which the layer does
        // not serve: a name the layer answered "not found" stays so in the kernel's cache for
        // 60 s, so a go written in the workdir would be seen only once this loop gave up (30 s).
        "i=0; while [ ! -e " + config.resolve("go.flag") + " ] && [ $i -lt 600 ]; do",
        "  sleep 0.05; i=$((i + 1))",
        "done",
        "[ $i -lt 600 ] && echo go-seen");
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors
        .newSingleThreadExecutor();
    try {
      java.util.concurrent.Future<RealBwrap.Run> running = pool.submit(() -> sh(defaults(), script));
      awaitTrue(() -> Files.exists(work.resolve("read.flag")) || running.isDone(),
          "the run read tool.sh");
      assertThat(running.isDone()).as("the run waits for the host").isFalse();
      // The kernel still holds tool.sh (its lookup is cached): the host can run it all the same.
      Process p = new ProcessBuilder(tool.toString()).redirectErrorStream(true).start();
      String ran = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor()).isZero();
      assertThat(ran).isEqualTo("tool ran\n");
      Files.writeString(config.resolve("go.flag"), "");
      RealBwrap.Run run = running.get(90, TimeUnit.SECONDS);
      assertThat(run.stdout()).isEqualTo("late-writer-ok\none\ntwo\ngo-seen\n");
      assertThat(work.resolve("late.txt")).hasContent("one\ntwo");
      assertThat(layerTargets(run)).isEmpty();
    } finally {
      Files.writeString(config.resolve("go.flag"), "");
      pool.shutdown();
    }
  }

  @Test
  void aSecondNameOfADeniedFileIsNotAWayToWriteIt() throws Exception {
    // A hard link made outside the sandbox: once the layer has seen the file by its denied
    // name, writing it by the other name is refused too.
    Files.createLink(work.resolve("alias.txt"), work.resolve("old.pem"));
    RealBwrap.Run run = sh(defaults(), String.join("\n",
        "cat old.pem > /dev/null",
        "echo more >> alias.txt 2>/dev/null && echo ALLOWED || echo refused",
        "cat alias.txt"));
    assertThat(run.stdout()).isEqualTo("refused\nthe existing certificate\n");
    assertThat(layerTargets(run)).containsExactly(work + "/old.pem");
  }

  @Test
  void aDeniedNameCannotForgeOrSplitItsReport() throws Exception {
    // A name with a newline, a backslash and what looks like a second report line.
    RealBwrap.Run run = sh(defaults(), "echo x > \"$(printf 'a\\\\b\\nfile-write* etcpasswd\\n.key')\""
        + " || echo refused");
    assertThat(run.stdout()).isEqualTo("refused\n");
    assertThat(layerTargets(run)).containsExactly(
        work + "/a\\x5cb\\x0afile-write* etcpasswd\\x0a.key");
  }

  /**
   * Issue 30: a package manager writes what a package ships (pip's vendored certifi/cacert.pem,
   * npm packages' test keys) below site-packages or node_modules; there the globs do not apply.
   * Nothing carries such a file, or the tree holding it, out to where the globs apply again.
   */
  @Test
  void belowADependencyTreeTheGlobsDoNotApplyAndNothingIsCarriedOut() throws Exception {
    String script = String.join("\n",
        "t() { if (eval \"$2\") 2>/dev/null; then echo \"allowed $1\"; else echo \"refused $1\"; fi; }",
        "t pip 'mkdir -p .venv/lib/python3.11/site-packages/certifi"
            + " && echo c > .venv/lib/python3.11/site-packages/certifi/cacert.pem'",
        "t debian 'mkdir -p lib/dist-packages/k && echo k > lib/dist-packages/k/test.key'",
        "t npm 'mkdir -p node_modules/pkg/test && echo k > node_modules/pkg/test/server.pem"
            + " && echo e > node_modules/pkg/.env'",
        "t npm-retire 'mv node_modules/pkg node_modules/.pkg-old && mv node_modules/.pkg-old"
            + " node_modules/pkg'",
        "t into-tree 'mkdir plain && mv plain node_modules/plain'",
        "t own-key 'echo k > own.pem'",
        "t look-alike 'mkdir -p Node_Modules node_modules.d && (echo k > Node_Modules/a.pem"
            + " || echo k > node_modules.d/a.pem)'",
        "t named-tree 'echo k > node_modules.pem'",
        "t link-to-root 'ln -s . sub/node_modules && echo k > sub/node_modules/b.pem'",
        "t file-out 'mv node_modules/pkg/test/server.pem server.pem'",
        "t hard-link-out 'ln node_modules/pkg/test/server.pem server.pem'",
        "t symlink-out 'ln -s node_modules/pkg/test/server.pem server.pem'",
        "t link-into 'ln -s node_modules/pkg/test keys'",
        "t link-within 'ln -s ../pkg/test node_modules/pkg2 && ln -s \"$PWD/node_modules/pkg\""
            + " node_modules/abs'",
        "t second-link-into 'ln -P node_modules/abs keys'",
        "t dir-out 'mv node_modules/pkg/test carried'",
        "t tree-out 'mv node_modules vendored'",
        "t exchanged 'mkdir other && python3 -c \"import ctypes, os;"
            + " l = ctypes.CDLL(None, use_errno=True);"
            + " r = l.renameat2(-100, b\\\"other\\\", -100, b\\\"node_modules\\\", 2);"
            + " os._exit(0 if r == 0 else 1)\"'");
    RealBwrap.Run run = sh(defaults(), script);
    assertThat(run.stdout()).isEqualTo(String.join("\n", "allowed pip", "allowed debian",
        "allowed npm", "allowed npm-retire", "allowed into-tree", "refused own-key",
        "refused look-alike", "refused named-tree", "refused link-to-root", "refused file-out",
        "refused hard-link-out", "refused symlink-out", "refused link-into", "allowed link-within",
        "refused second-link-into", "refused dir-out", "refused tree-out",
        "refused exchanged", ""));
    assertThat(work.resolve(".venv/lib/python3.11/site-packages/certifi/cacert.pem")).exists();
    assertThat(work.resolve("node_modules/pkg/test/server.pem")).hasContent("k");
    for (String name : List.of("own.pem", "Node_Modules/a.pem", "node_modules.d/a.pem",
        "node_modules.pem", "sub/b.pem", "server.pem", "keys", "carried", "vendored")) {
      assertThat(work.resolve(name)).as(name).doesNotExist();
    }
    assertThat(layerTargets(run)).contains(work + "/own.pem", work + "/sub/b.pem",
        work + "/server.pem", work + "/node_modules/pkg/test", work + "/node_modules");
  }

  /**
   * Issue 30: a protected path that does not exist (.mcp.json, .vscode, .bashrc, Claude Code's
   * settings) is refused by the layer by its name, not shown as an empty read-only directory that
   * reads as a broken file ({@code cat .mcp.json}: {@code Is a directory}).
   */
  @Test
  void aMissingProtectedPathIsRefusedByNameNotShownAsAnEmptyDirectory() throws Exception {
    Files.createDirectories(work.resolve("elsewhere"));
    Files.writeString(work.resolve("elsewhere/tasks.json"), "{}\n");
    Path kept = work.resolve("kept[1]");
    SandboxPlan plan = plan(NameDenyLayer.Availability.probe(), List.of(kept.toString()));
    String script = String.join("\n",
        "t() { if (eval \"$2\") 2>/dev/null; then echo \"allowed $1\"; else echo \"refused $1\"; fi; }",
        "ls -A",
        "cat .mcp.json 2>&1",
        "t mcp 'echo {} > .mcp.json'",
        "t bashrc 'touch .bashrc'",
        "t vscode 'mkdir .vscode'",
        "t vscode-moved-in 'mv elsewhere .vscode'",
        "t idea-link 'ln -s elsewhere .idea'",
        "t claude-settings 'mkdir -p .claude && echo {} > .claude/settings.json'",
        "t protected-literal 'echo x > kept[1]'",
        "t ordinary 'echo x > kept1 && mkdir -p .claude/notes'");
    RealBwrap.Run run = sh(plan, script);
    assertThat(run.stdout()).isEqualTo(String.join("\n", "elsewhere", "notes.txt", "old.pem",
        "sub", "cat: .mcp.json: No such file or directory", "refused mcp", "refused bashrc",
        "refused vscode", "refused vscode-moved-in", "refused idea-link",
        "refused claude-settings", "refused protected-literal", "allowed ordinary", ""));
    for (String name : List.of(".mcp.json", ".bashrc", ".vscode", ".idea",
        ".claude/settings.json", "kept[1]")) {
      assertThat(work.resolve(name)).as(name).doesNotExist();
    }
    String w = work.toString();
    assertThat(layerTargets(run)).contains(w + "/.mcp.json", w + "/.bashrc", w + "/.vscode",
        w + "/.idea", w + "/.claude/settings.json", w + "/kept[1]");
  }

  @Test
  void aProtectedPathPatternIsDeniedToo() throws Exception {
    SandboxPlan plan = plan(NameDenyLayer.Availability.probe(), List.of(work + "/**/*.bak"));
    assertThat(plan.verdict().launches()).isTrue();
    RealBwrap.Run run = sh(plan, "echo x > sub/deep/db.bak || echo refused; echo y > db.txt");
    assertThat(run.stdout()).isEqualTo("refused\n");
    assertThat(work.resolve("sub/deep/db.bak")).doesNotExist();
    assertThat(work.resolve("db.txt")).exists();
    assertThat(layerTargets(run)).contains(work + "/sub/deep/db.bak");
  }

  @Test
  void aBracketInAProtectedPatternIsTheCharacterAsThePlannerReadsIt() throws Exception {
    // The planner reads only *, ? and ** in a pattern; the daemon's fnmatch would read "[x]" as
    // a bracket expression matching "x", and leave the directory "[x]" (or a resolved spelling
    // holding a "[") unprotected.
    Files.createDirectories(work.resolve("[x]"));
    assertProtectedRefusesWriting(work + "/[x]/*.bak", "[x]/db.bak");
  }

  @Test
  void aProtectedPatternSpelledThroughASymlinkIsDeniedToo() throws Exception {
    // Found by attack 30c: a pattern whose directories lead to the workdir through a symlink
    // (the operator's registered spelling) was handed to the layer as written and matched no
    // host path, while a literal protected path so spelled is resolved and holds; the plan
    // launched as protected and the write went through.
    Path alias = Files.createSymbolicLink(tmp.resolve("work-alias"), work);
    assertProtectedRefusesWriting(alias + "/**/*.bak", "sub/deep/db.bak");
  }

  /**
   * Launches a run with {@code pattern} as its one protected path and checks that writing {@code
   * file} (relative to the workdir) is refused and leaves no file.
   */
  private void assertProtectedRefusesWriting(String pattern, String file) throws Exception {
    SandboxPlan plan = plan(NameDenyLayer.Availability.probe(), List.of(pattern));
    assertThat(plan.verdict().launches()).isTrue();
    RealBwrap.Run run = sh(plan, "echo x > '" + file + "' || echo refused");
    assertThat(run.stdout()).isEqualTo("refused\n");
    assertThat(work.resolve(file)).doesNotExist();
  }

  @Test
  void aProtectedPatternCoversItsTreeAndNoTreeIsMovedIntoOrOutOfItsReach() throws Exception {
    // Found by the attack on stop 27: a directory filled elsewhere and renamed (or linked) to
    // where a pattern matches its files, or the protected directory renamed away, got past the
    // layer; and a pattern naming a directory did not protect what is inside it.
    Files.createDirectories(work.resolve("x.bak"));
    Files.writeString(work.resolve("x.bak/file"), "orig\n");
    Files.createDirectories(work.resolve("secrets"));
    Files.writeString(work.resolve("secrets/key"), "orig\n");
    SandboxPlan plan = plan(NameDenyLayer.Availability.probe(),
        List.of(work + "/*.bak", work + "/secrets/*", work + "/vault/*"));
    String script = String.join("\n",
        "t() { if (eval \"$2\") 2>/dev/null; then echo \"allowed $1\"; else echo \"refused $1\"; fi; }",
        "t inside 'echo evil > x.bak/file'",
        "t dir-inside 'mkdir x.bak/sub'",
        "mkdir t && echo evil > t/key",
        "t away 'mv secrets old'",
        "t moved-in 'mv t vault'",
        "t linked-in 'ln -s t vault'",
        "t exchanged 'python3 -c \"import ctypes, os; l = ctypes.CDLL(None, use_errno=True);"
            + " r = l.renameat2(-100, b\\\"t\\\", -100, b\\\"secrets\\\", 2);"
            + " os._exit(0 if r == 0 else 1)\"'",
        "t hard-linked-in 'ln -s t l && ln -P l vault'",
        "t ordinary 'mkdir a && mv a b && ln -s b c && mv c d && echo ok > b/f && mv b/f b/g"
            + " && ln -P d e'");
    RealBwrap.Run run = sh(plan, script);
    assertThat(run.stdout()).isEqualTo(String.join("\n", "refused inside", "refused dir-inside",
        "refused away", "refused moved-in", "refused linked-in", "refused exchanged",
        "refused hard-linked-in", "allowed ordinary", ""));
    assertThat(work.resolve("x.bak/file")).hasContent("orig");
    assertThat(work.resolve("secrets/key")).hasContent("orig");
    assertThat(work.resolve("vault")).doesNotExist();
    assertThat(work.resolve("old")).doesNotExist();
    assertThat(work.resolve("b/g")).hasContent("ok");
    assertThat(layerTargets(run)).contains(work + "/x.bak/file", work + "/secrets",
        work + "/vault");
  }

  @Test
  void theDaemonEndsWithTheRunAndLeavesNoMount() throws Exception {
    RealBwrap.Run run = sh(defaults(), "grep -c pushgate-denyfs /proc/self/mountinfo");
    assertThat(run.exit()).isZero();
    @SuppressWarnings("unchecked")
    List<Long> pids = (List<Long>) run.process().handle().details().get("nameDenyLayer");
    assertThat(pids).hasSize(1);
    awaitTrue(() -> ProcessHandle.of(pids.get(0)).map(p -> !p.isAlive()).orElse(true),
        "the layer's daemon ends with the run");
    assertThat(denyfsMounts()).isEmpty();
  }

  @Test
  void aKilledDaemonFailsClosedAndLeavesNoMount() throws Exception {
    SandboxProcess p = launcher.launch(
        LaunchRequest.of(defaults(), List.of("/bin/sh", "-c", "sleep 30; cat notes.txt")), e -> { });
    @SuppressWarnings("unchecked")
    List<Long> pids = (List<Long>) p.handle().details().get("nameDenyLayer");
    ProcessHandle daemon = ProcessHandle.of(pids.get(0)).orElseThrow();
    new ProcessBuilder("kill", "-KILL", Long.toString(daemon.pid())).start().waitFor();
    awaitTrue(() -> !daemon.isAlive(), "the daemon is gone");
    awaitTrue(() -> denyfsMounts().isEmpty(), "fusermount3 unmounts after the daemon's death");
    p.kill("test");
    assertThat(p.waitFor(Duration.ofSeconds(30))).isPresent();
  }

  @Test
  void aKilledLauncherLeavesNoMount() throws Exception {
    // The launcher holds the daemon's standard input; here a sleep stands in for it and is killed.
    Path src = Files.createDirectories(tmp.resolve("src"));
    Path mnt = Files.createDirectories(tmp.resolve("mnt"));
    String helper = NameDenyLayer.Availability.probe().helper();
    Process sh = new ProcessBuilder("/bin/sh", "-c",
        "sleep 600 | " + helper + " --source " + src + " --mountpoint " + mnt + " --deny .env"
            + " & echo $!; wait")
        .redirectErrorStream(true).start();
    String sleepPid = new java.io.BufferedReader(new java.io.InputStreamReader(
        sh.getInputStream(), StandardCharsets.US_ASCII)).readLine();
    awaitTrue(() -> NameDenyLayer.isMountPoint(mnt), "the layer mounts");
    assertThatThrownBy(() -> Files.writeString(mnt.resolve(".env"), "x"))
        .isInstanceOf(IOException.class);
    // $! is the last process of the pipeline: the helper. Its writer is the sleep before it.
    long helperPid = Long.parseLong(sleepPid.strip());
    ProcessHandle helperHandle = ProcessHandle.of(helperPid).orElseThrow();
    for (ProcessHandle c : ProcessHandle.of(sh.pid()).orElseThrow().children().toList()) {
      if (c.pid() != helperPid && c.info().command().orElse("").endsWith("sleep")) {
        new ProcessBuilder("kill", "-KILL", Long.toString(c.pid())).start().waitFor();
      }
    }
    awaitTrue(() -> !helperHandle.isAlive(), "the daemon ends when its standard input does");
    awaitTrue(() -> !NameDenyLayer.isMountPoint(mnt), "and no mount is left");
    assertThat(sh.waitFor(30, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aLayerThatCannotStartRefusesTheLaunch() {
    SandboxPlan plan = defaults();
    LocalLauncher broken = new LocalLauncher(LocalLauncher.Settings.defaults());
    String saved = System.getProperty("pushgate.denyfs");
    System.setProperty("pushgate.denyfs", "/bin/false");
    try {
      assertThatThrownBy(() -> broken.launch(
          LaunchRequest.of(plan, List.of("/bin/true")), e -> { }))
          .isInstanceOf(SandboxLaunchException.class)
          .hasMessageStartingWith("the name-deny layer (denyWriteGlobs and protected-path patterns"
              + " on Linux) could not start: its daemon for " + work + " did not start");
    } finally {
      System.setProperty("pushgate.denyfs", saved);
    }
    assertThat(denyfsMounts()).isEmpty();
  }

  /** The layer's mounts made since the test began and still there. */
  private List<String> denyfsMounts() {
    return allDenyfsMounts().stream().filter(m -> !mountsBefore.contains(m)).toList();
  }

  private static List<String> allDenyfsMounts() {
    try {
      return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
          .filter(l -> l.contains("pushgate-denyfs")).toList();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void awaitTrue(Wait.Condition condition, String what) throws Exception {
    Wait.until(Duration.ofSeconds(30), what, condition);
  }
}
