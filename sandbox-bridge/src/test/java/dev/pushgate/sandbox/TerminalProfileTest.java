package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The hosted terminal's fixed profile: its command line, environment and refusals. */
class TerminalProfileTest {
  @TempDir Path dir;
  private Path root;
  private Path home;
  private Path work;
  private Path bin;

  @BeforeEach
  void layout() throws IOException {
    root = dir.toRealPath();
    home = Files.createDirectories(root.resolve("home/alice"));
    work = Files.createDirectories(root.resolve("projects/widget"));
    bin = Files.createDirectories(root.resolve("bin"));
    for (String tool : List.of("bwrap", "script")) {
      Files.writeString(bin.resolve(tool), "#!/bin/sh\n");
      Files.setPosixFilePermissions(bin.resolve(tool), PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    for (String d : List.of(".ssh", ".aws", ".gnupg", ".config/gh", "Library/Keychains")) {
      Files.createDirectories(home.resolve(d));
    }
    Files.writeString(home.resolve(".ssh/id_test"), "not a key\n");
    Files.writeString(home.resolve(".netrc"), "machine x password y\n");
  }

  private TerminalProfile.Request request(Path workdir, Map<String, String> env) {
    return new TerminalProfile.Request(Platform.LINUX, bin.toString(), home, workdir, "/bin/sh",
        env);
  }

  private TerminalProfile.Session plan() throws Exception {
    return plan(request(work, Map.of()));
  }

  /** The fake tools belong to whoever runs the test: trusted here, see the test of rootOwned. */
  private static TerminalProfile.Session plan(TerminalProfile.Request r) throws Exception {
    return TerminalProfile.plan(r, tool -> true);
  }

  @Test
  void everyDeniedDirectoryBecomesAnEmptyReadOnlyTmpfsOfMode000() throws Exception {
    TerminalProfile.Session s = plan();
    for (String d : List.of(".ssh", ".aws", ".gnupg", ".config/gh", "Library/Keychains")) {
      String p = home.resolve(d).toString();
      assertThat(Collections.indexOfSubList(s.argv(),
          List.of("--perms", "0000", "--tmpfs", p, "--remount-ro", p)))
          .as("mode-000 read-only tmpfs over %s", d).isNotNegative();
    }
    assertThat(Collections.indexOfSubList(s.argv(),
        List.of("--ro-bind", "/dev/null", home.resolve(".netrc").toString()))).isNotNegative();
    assertThat(s.deniedPaths()).contains(home.resolve(".ssh").toString());
  }

  @Test
  void homeAndWorkdirAreWritableTheRestOfTheHostReadOnlyAndTheNetworkShared() throws Exception {
    List<String> argv = plan().argv();
    assertThat(argv.get(0)).isEqualTo(bin.resolve("bwrap").toString());
    assertThat(Collections.indexOfSubList(argv, List.of("--ro-bind", "/", "/"))).isNotNegative();
    assertThat(Collections.indexOfSubList(argv, List.of("--bind", home.toString(), home.toString())))
        .isNotNegative();
    assertThat(Collections.indexOfSubList(argv, List.of("--bind", work.toString(), work.toString())))
        .isNotNegative();
    assertThat(argv).contains("--die-with-parent", "--new-session", "--unshare-pid")
        .doesNotContain("--unshare-net", "--unshare-all", "--share-net", "--bind-try");
    assertThat(Collections.indexOfSubList(argv, List.of("--cap-drop", "ALL"))).isNotNegative();
    assertThat(Collections.indexOfSubList(argv, List.of("--chdir", work.toString())))
        .isNotNegative();
    // The denies come after every writable bind, so no bind can uncover them.
    int lastBind = Math.max(
        Collections.indexOfSubList(argv, List.of("--bind", work.toString(), work.toString())),
        Collections.indexOfSubList(argv, List.of("--bind", home.toString(), home.toString())));
    assertThat(argv.indexOf("--perms")).isGreaterThan(lastBind);
    // The shell gets a terminal of its own from script, inside the sandbox.
    assertThat(argv.subList(argv.indexOf("--") + 1, argv.size())).containsExactly(
        bin.resolve("script").toString(), "--quiet", "--return", "--command", "exec '/bin/sh'",
        "/dev/null");
  }

  @Test
  void aSymlinkedSecretDirectoryIsDeniedWhereItReallyIs() throws Exception {
    Path elsewhere = Files.createDirectories(root.resolve("keys/ssh"));
    Files.writeString(elsewhere.resolve("id_test"), "not a key\n");
    deleteTree(home.resolve(".ssh"));
    Files.createSymbolicLink(home.resolve(".ssh"), elsewhere);

    TerminalProfile.Session s = plan();

    String real = elsewhere.toString();
    assertThat(Collections.indexOfSubList(s.argv(),
        List.of("--perms", "0000", "--tmpfs", real, "--remount-ro", real))).isNotNegative();
    // The link itself is not a mount point (bwrap would follow it anyway).
    assertThat(s.argv()).doesNotContain(home.resolve(".ssh").toString());
  }

  @Test
  void aSecretDirectoryUnderASymlinkedParentIsDeniedThroughTheLink() throws Exception {
    Path config = Files.createDirectories(root.resolve("dotfiles/config"));
    Files.createDirectories(config.resolve("gh"));
    deleteTree(home.resolve(".config"));
    Files.createSymbolicLink(home.resolve(".config"), config);

    TerminalProfile.Session s = plan();

    String real = config.resolve("gh").toString();
    assertThat(Collections.indexOfSubList(s.argv(),
        List.of("--perms", "0000", "--tmpfs", real, "--remount-ro", real))).isNotNegative();
  }

  @Test
  void missingSecretDirectoriesAreNotMountPoints() throws Exception {
    deleteTree(home.resolve(".aws"));
    TerminalProfile.Session s = plan();
    assertThat(s.argv()).doesNotContain(home.resolve(".aws").toString());
  }

  @Test
  void theEnvironmentKeepsOnlyTheBasicsAndNoToken() throws Exception {
    Map<String, String> caller = Map.ofEntries(
        Map.entry("PATH", "/usr/bin:/bin"), Map.entry("TERM", "screen"), Map.entry("LANG", "C.UTF-8"),
        Map.entry("LC_ALL", "C.UTF-8"), Map.entry("USER", "alice"), Map.entry("HOME", "/elsewhere"),
        Map.entry("SHELL", "/bin/zsh"), Map.entry("GH_TOKEN", "ghp_x"),
        Map.entry("GITHUB_TOKEN", "ghs_x"), Map.entry("PUSHGATE_READ_TOKEN", "x"),
        Map.entry("AWS_SECRET_ACCESS_KEY", "x"), Map.entry("SSH_AUTH_SOCK", "/tmp/agent"),
        Map.entry("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus"),
        Map.entry("LD_PRELOAD", "/tmp/x.so"), Map.entry("TMPDIR", "/var/tmp/alice"),
        Map.entry("GIT_AUTHOR_NAME", "Alice"));

    TerminalProfile.Session s = plan(request(work, caller));

    assertThat(s.env()).containsOnlyKeys("PATH", "TERM", "LANG", "LC_ALL", "USER", "HOME",
        "SHELL", "GIT_AUTHOR_NAME");
    assertThat(s.env()).containsEntry("HOME", home.toString()).containsEntry("SHELL", "/bin/sh");
    assertThat(String.join(" ", s.argv())).doesNotContain("ghp_x", "ghs_x");
  }

  @Test
  void aTokenLikeNameIsDroppedEvenAmongTheKeptOnes() {
    assertThat(TerminalProfile.environment(Map.of("LC_AUTH_TOKEN", "x", "LC_CTYPE", "C"),
        "/home/a", "/bin/sh")).containsOnlyKeys("LC_CTYPE", "PATH", "TERM", "HOME", "SHELL");
  }

  @Test
  void anUnsupportedPlatformIsRefusedWithTheReason() {
    for (Platform p : List.of(Platform.WINDOWS, Platform.OTHER, Platform.MACOS)) {
      assertThatThrownBy(() -> plan(new TerminalProfile.Request(p,
          bin.toString(), home, work, null, Map.of())))
          .isInstanceOf(TerminalProfile.Unsupported.class)
          .hasMessageContaining("Linux and WSL2 (bubblewrap) only")
          .hasMessageContaining("never opens an unsandboxed one");
    }
  }

  @Test
  void aHostWithoutBwrapIsRefused() throws Exception {
    Files.delete(bin.resolve("bwrap"));
    assertThatThrownBy(this::plan).isInstanceOf(TerminalProfile.Unsupported.class)
        .hasMessageContaining("bubblewrap (bwrap) is not installed")
        .hasMessageContaining("apt-get install bubblewrap");
  }

  @Test
  void aWorkdirInsideASecretDirectoryOrTheRootIsRefused() {
    assertThatThrownBy(() -> plan(request(home.resolve(".ssh"), Map.of())))
        .isInstanceOf(TerminalProfile.Unsupported.class).hasMessageContaining("may not read");
    assertThatThrownBy(() -> plan(request(Path.of("/"), Map.of())))
        .isInstanceOf(TerminalProfile.Unsupported.class).hasMessageContaining("whole host");
    assertThatThrownBy(() -> plan(request(root.resolve("missing"), Map.of())))
        .isInstanceOf(TerminalProfile.Unsupported.class).hasMessageContaining("does not exist");
  }

  @Test
  void aShellMustBeAnAbsoluteExecutable() {
    for (String shell : List.of("bash", "/no/such/shell", "/bin/sh\nrm -rf ~")) {
      assertThatThrownBy(() -> plan(new TerminalProfile.Request(Platform.LINUX,
          bin.toString(), home, work, shell, Map.of())))
          .isInstanceOf(TerminalProfile.Unsupported.class);
    }
  }

  @Test
  void aShellWithAQuoteIsQuotedForScript() throws Exception {
    Path odd = root.resolve("it's sh");
    Files.writeString(odd, "#!/bin/sh\n");
    Files.setPosixFilePermissions(odd, PosixFilePermissions.fromString("rwxr-xr-x"));
    TerminalProfile.Session s = plan(new TerminalProfile.Request(Platform.LINUX,
        bin.toString(), home, work, odd.toString(), Map.of()));
    assertThat(s.argv()).contains("exec '" + root + "/it'\\''s sh'");
  }

  @Test
  void privilegedSocketsAreCoveredWhereTheyReallyAreOnce() throws Exception {
    Path run = Files.createDirectories(root.resolve("run"));
    Files.writeString(run.resolve("docker.sock"), "");
    Files.createSymbolicLink(root.resolve("var-run"), run);
    assertThat(TerminalProfile.existing(List.of(run.resolve("docker.sock").toString(),
        root.resolve("var-run/docker.sock").toString(), run.resolve("missing.sock").toString(),
        run.toString()))).containsExactly(run.resolve("docker.sock").toString());
    assertThat(TerminalProfile.PRIVILEGED_SOCKETS).contains("/run/docker.sock",
        "/var/run/docker.sock");
  }

  @Test
  void aToolTheUserCouldHavePlantedIsNeverRun() throws Exception {
    // A directory anyone can write (as a home directory is to the terminal): its bwrap is not run.
    Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThat(TerminalProfile.rootOwned(bin.resolve("bwrap"))).isFalse();
    assertThatThrownBy(() -> TerminalProfile.plan(request(work, Map.of())))
        .isInstanceOf(TerminalProfile.Unsupported.class)
        .hasMessageContaining("root owns and nobody else can write");
    Path system = Path.of("/bin/sh");
    if (Files.getAttribute(system.toRealPath(), "unix:uid").equals(0)) {
      assertThat(TerminalProfile.rootOwned(system)).isTrue();
    }
  }

  @Test
  void theAccountsHomeIsDeniedTooWhenHomePointsElsewhere() throws Exception {
    Path scratch = Files.createDirectories(root.resolve("scratch"));
    TerminalProfile.Session s = plan(new TerminalProfile.Request(Platform.LINUX, bin.toString(),
        scratch, work, "/bin/sh", Map.of(), home));
    assertThat(s.home()).isEqualTo(scratch.toString());
    String ssh = home.resolve(".ssh").toString();
    assertThat(Collections.indexOfSubList(s.argv(),
        List.of("--perms", "0000", "--tmpfs", ssh, "--remount-ro", ssh))).isNotNegative();
    assertThat(s.deniedPaths()).contains(ssh, home.resolve(".netrc").toString());
  }

  @Test
  void aCoverInsideAnotherIsMountedFirstSoTheOuterOneHidesIt() throws Exception {
    Path inner = Files.createDirectories(home.resolve(".aws/ssh"));
    deleteTree(home.resolve(".ssh"));
    Files.createSymbolicLink(home.resolve(".ssh"), inner);
    List<String> argv = plan().argv();
    int innerCover = argv.indexOf(inner.toString());
    int outerCover = argv.indexOf(home.resolve(".aws").toString());
    assertThat(innerCover).isNotNegative().isLessThan(outerCover);
  }

  private static void deleteTree(Path p) throws IOException {
    try (var walk = Files.walk(p)) {
      for (Path q : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
  }
}
