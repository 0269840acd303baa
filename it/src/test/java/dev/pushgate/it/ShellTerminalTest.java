package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.pushgate.testkit.ControlClient;
import dev.pushgate.testkit.Host;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pushgate shell} in a real terminal: tmux runs the jar on a pane of its own, the test
 * types into it (send-keys) and reads the screen (capture-pane). The home is a fake one in a
 * temporary directory, holding a file in every secret directory, so the real home is never
 * touched. Needs tmux, bwrap, script and python3 (skipped without them, failed when
 * SANDBOX_REQUIRE_BWRAP=1, as CI sets it and installs them).
 */
class ShellTerminalTest {
  private static final Duration DEADLINE = Duration.ofSeconds(90);
  private static final List<String> SECRET_DIRS =
      List.of(".ssh", ".aws", ".gnupg", ".config/gh", "Library/Keychains");

  @TempDir Path tmp;
  private Path home;
  private Path work;
  private final String server = "pushgate-it-" + ProcessHandle.current().pid() + "-"
      + System.nanoTime();

  @BeforeEach
  void fakeHome() throws IOException {
    requireTools();
    Path root = tmp.toRealPath();
    home = Files.createDirectories(root.resolve("home"));
    work = Files.createDirectories(root.resolve("work"));
    for (String d : SECRET_DIRS) {
      Files.createDirectories(home.resolve(d));
      Files.writeString(home.resolve(d).resolve("id_test"), "TOP-SECRET-" + d + "\n");
    }
    // Another spelling of ~/.ssh: a link in the home.
    Files.createSymbolicLink(home.resolve("keys"), home.resolve(".ssh"));
  }

  @AfterEach
  void killServer() throws Exception {
    run(List.of("tmux", "-L", server, "kill-server"));
  }

  @Test
  void deniedReadsFailWritablePathsWorkAndTheShellHasATerminal() throws Exception {
    start("PATH=/usr/bin:/bin");
    await("the banner", Pattern.compile("pushgate: sandboxed terminal"));
    awaitShell();

    for (String d : SECRET_DIRS) {
      type("cat ~/" + d + "/id_test; echo \"read " + d + " rc=$?\"");
      assertThat(awaitGroup(Pattern.compile("read " + Pattern.quote(d) + " rc=(\\d+)")))
          .as("reading ~/%s/id_test", d).isNotEqualTo("0");
    }
    type("cat ~/keys/id_test; echo \"read link rc=$?\"");
    assertThat(awaitGroup(Pattern.compile("read link rc=(\\d+)"))).isNotEqualTo("0");
    type("ls ~/.ssh; echo \"list rc=$?\"");
    assertThat(awaitGroup(Pattern.compile("list rc=(\\d+)"))).isNotEqualTo("0");
    assertThat(screen()).contains("Permission denied").doesNotContain("TOP-SECRET");

    type("echo h > ~/home-file && echo w > " + work + "/work-file && echo \"writes-$((1+1))\"");
    await("writes in the home and the workdir", Pattern.compile("writes-2"));
    type("touch /etc/pushgate-shell-test; echo \"etc rc=$?\"");
    assertThat(awaitGroup(Pattern.compile("etc rc=(\\d+)"))).isNotEqualTo("0");
    type("touch /usr/pushgate-shell-test; echo \"usr rc=$?\"");
    assertThat(awaitGroup(Pattern.compile("usr rc=(\\d+)"))).isNotEqualTo("0");
    type("echo \"token=[${GH_TOKEN:-none}]\"");
    await("the token check", Pattern.compile("token=\\[none\\]"));
    type("tty; echo \"tty rc=$?\"");
    assertThat(awaitGroup(Pattern.compile("tty rc=(\\d+)"))).isEqualTo("0");
    assertThat(screen()).containsPattern("(?m)^/dev/pts/\\d+");
    // A resize of the outer terminal reaches the shell's terminal (pushgate shell passes it on).
    assertThat(run(List.of("tmux", "-L", server, "resize-window", "-t", "0", "-x", "150", "-y",
        "30"))).isEqualTo(0);
    typeUntil("echo \"size=$(stty size)\"", "size=30 150");

    // TIOCSTI: the sandbox can reach the caller's terminal only through script's descriptors, and
    // it is not the shell's controlling terminal there, so nothing can be typed into it.
    Files.writeString(work.resolve("tiocsti.py"), String.join("\n",
        "import fcntl, os, termios",
        "for pid in [p for p in os.listdir('/proc') if p.isdigit()]:",
        "    try:",
        "        if open('/proc/%s/comm' % pid).read().strip() != 'script':",
        "            continue",
        "        fd = os.open('/proc/%s/fd/0' % pid, os.O_RDWR | os.O_NOCTTY)",
        "        fcntl.ioctl(fd, termios.TIOCSTI, b'x')",
        "        print('outer-injected')",
        "    except OSError as e:",
        "        print('outer-refused-%d' % e.errno)",
        "print('tiocsti-done')", ""));
    type("python3 " + work.resolve("tiocsti.py"));
    await("the TIOCSTI attempt", Pattern.compile("(?m)^tiocsti-done"));
    assertThat(screen()).contains("outer-refused-").doesNotContain("outer-injected");
    type("exit 7");
    assertThat(awaitGroup(Pattern.compile("shell-exit=(\\d+)"))).isEqualTo("7");
    assertThat(home.resolve("home-file")).hasContent("h");
    assertThat(work.resolve("work-file")).hasContent("w");
    assertThat(Path.of("/etc/pushgate-shell-test")).doesNotExist();
    assertThat(Path.of("/usr/pushgate-shell-test")).doesNotExist();
  }

  /**
   * The usual caller is not root: bwrap then runs in a user namespace where the user owns the
   * mode-000 covers, and still cannot enter them (no capability, read-only, so no chmod either).
   * Run as nobody when the test runs as root (as CI does); as any other user the test above is
   * this one already.
   */
  @Test
  void anUnprivilegedCallerIsDeniedTheSameReads() throws Exception {
    Assumptions.assumeTrue(Host.isRoot() && onPath("runuser"),
        "only as root: runs the shell as nobody");
    Path root = tmp.toRealPath();
    Files.setPosixFilePermissions(root, java.nio.file.attribute.PosixFilePermissions.fromString(
        "rwxr-xr-x"));
    Path jar = Files.copy(RunningAppliance.jar(), root.resolve("pushgate.jar"));
    Files.setPosixFilePermissions(jar, java.nio.file.attribute.PosixFilePermissions.fromString(
        "rw-r--r--"));
    var nobody = root.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(
        "nobody");
    for (Path top : List.of(home, work)) {
      try (var walk = Files.walk(top)) {
        for (Path p : walk.toList()) {
          Files.setOwner(p, nobody);
        }
      }
    }
    start("runuser -u nobody -- ", "PATH=/usr/bin:/bin", jar);
    awaitShell();
    type("id -u; cat ~/.ssh/id_test; echo \"read ssh rc=$?\"");
    assertThat(awaitGroup(Pattern.compile("read ssh rc=(\\d+)"))).isNotEqualTo("0");
    type("chmod 700 ~/.ssh; echo \"chmod rc=$?\"");
    assertThat(awaitGroup(Pattern.compile("chmod rc=(\\d+)"))).isNotEqualTo("0");
    type("echo h > ~/home-file && echo \"write-$((3+3))\"");
    await("a write in the home", Pattern.compile("write-6"));
    type("exit 4");
    assertThat(awaitGroup(Pattern.compile("shell-exit=(\\d+)"))).isEqualTo("4");
    assertThat(screen()).contains("Permission denied").doesNotContain("TOP-SECRET")
        .containsPattern("(?m)^65534$");
  }

  @Test
  void aHostWithoutBwrapRefusesAndOpensNoShell() throws Exception {
    start("PATH=/nonexistent");
    assertThat(awaitGroup(Pattern.compile("shell-exit=(\\d+)"))).isEqualTo("125");
    assertThat(screen()).contains("bubblewrap (bwrap) is not installed")
        .contains("never opens an unsandboxed one")
        .doesNotContain("pushgate: sandboxed terminal");
  }

  /**
   * A launcher that hosts terminals: it asks the appliance (whose HOME is the fake one) for a
   * terminal and runs exactly the command line and environment of the answer in a PTY of its own
   * (here a tmux pane). The profile holds there as it does for {@code pushgate shell}.
   */
  @Test
  void aLauncherRunsTheTerminalTheControlApiDescribesInItsOwnPty() throws Exception {
    Path data = Files.createDirectories(tmp.resolve("data"));
    Files.setPosixFilePermissions(data, java.nio.file.attribute.PosixFilePermissions.fromString(
        "rwx------"));
    try (RunningAppliance app = RunningAppliance.on(data)
        .env(java.util.Map.of("HOME", home.toString(), "GH_TOKEN", "ghp_fake_for_the_test"))
        .start()) {
      ControlClient.Answer answer = app.control().post("/v1/terminals",
          "{\"workdir\":\"" + work + "\",\"shell\":\"/bin/sh\"}");
      assertThat(answer.status()).as(answer.raw()).isEqualTo(200);
      assertThat(answer.raw()).doesNotContain("ghp_fake_for_the_test");
      StringBuilder line = new StringBuilder("env -i");
      answer.body().path("env").fields().forEachRemaining(e ->
          line.append(' ').append(quote(e.getKey() + "=" + e.getValue().asText())));
      answer.body().path("argv").forEach(a -> line.append(' ').append(quote(a.asText())));
      Path launcher = tmp.resolve("launcher.sh");
      Files.writeString(launcher, line + "\necho \"shell-exit=$?\"\nsleep 600\n");
      List<String> cmd = List.of("tmux", "-L", server, "-f", "/dev/null", "new-session", "-d",
          "-x", "200", "-y", "50", "/bin/sh " + launcher);
      assertThat(run(cmd)).as("tmux new-session").isEqualTo(0);
      awaitShell();

      type("cat ~/.ssh/id_test; echo \"read ssh rc=$?\"");
      assertThat(awaitGroup(Pattern.compile("read ssh rc=(\\d+)"))).isNotEqualTo("0");
      type("cat ~/.config/gh/id_test; echo \"read gh rc=$?\"");
      assertThat(awaitGroup(Pattern.compile("read gh rc=(\\d+)"))).isNotEqualTo("0");
      type("echo w > " + work + "/from-api && echo \"write-$((2+2))\"");
      await("a write in the workdir", Pattern.compile("write-4"));
      type("touch /etc/pushgate-shell-test; echo \"etc rc=$?\"");
      assertThat(awaitGroup(Pattern.compile("etc rc=(\\d+)"))).isNotEqualTo("0");
      type("echo \"token=[${GH_TOKEN:-none}]\"");
      await("the token check", Pattern.compile("token=\\[none\\]"));
      type("exit 5");
      assertThat(awaitGroup(Pattern.compile("shell-exit=(\\d+)"))).isEqualTo("5");
      assertThat(screen()).doesNotContain("TOP-SECRET");
      assertThat(work.resolve("from-api")).hasContent("w");
    }
  }

  private static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }

  /** Starts the jar's shell on a 200x50 pane; the line after it reports the exit code. */
  private void start(String path) throws Exception {
    start("", path, RunningAppliance.jar());
  }

  private void start(String as, String path, Path jar) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    String command = as + "env -i HOME=" + home + " " + path + " TERM=xterm-256color SHELL=/bin/sh"
        + " GH_TOKEN=ghp_fake_for_the_test " + java + " -XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
        + " -jar " + jar + " shell --workdir " + work + " --shell /bin/sh;"
        + " echo \"shell-exit=$?\"; sleep 600";
    List<String> cmd = List.of("tmux", "-L", server, "-f", "/dev/null", "new-session", "-d",
        "-x", "200", "-y", "50", command);
    assertThat(run(cmd)).as("tmux new-session").isEqualTo(0);
  }

  /** Types until the shell answers: keys typed before it reads the terminal may be dropped. */
  private void awaitShell() throws Exception {
    typeUntil("echo \"ready-$((6*7))\"", "ready-42");
  }

  /** Types {@code line} again until the pane shows {@code answer}, each try with a deadline. */
  private void typeUntil(String line, String answer) throws Exception {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (true) {
      type(line);
      try {
        Wait.until(Duration.ofSeconds(3), answer, () -> screen().contains(answer));
        return;
      } catch (AssertionError e) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError(answer + " never appeared; the pane:\n" + screen(), e);
        }
      }
    }
  }

  private void type(String line) throws Exception {
    assertThat(run(List.of("tmux", "-L", server, "send-keys", "-t", "0", "-l", line)))
        .isEqualTo(0);
    assertThat(run(List.of("tmux", "-L", server, "send-keys", "-t", "0", "Enter"))).isEqualTo(0);
  }

  private String screen() throws Exception {
    Process p = new ProcessBuilder("tmux", "-L", server, "capture-pane", "-p", "-J", "-S", "-3000",
        "-t", "0").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(30, TimeUnit.SECONDS);
    return out;
  }

  private void await(String what, Pattern pattern) throws Exception {
    awaitMatch(what, pattern);
  }

  private String awaitGroup(Pattern pattern) throws Exception {
    return awaitMatch(pattern.pattern(), pattern).group(1);
  }

  private Matcher awaitMatch(String what, Pattern pattern) throws Exception {
    String[] last = {""};
    try {
      return Wait.forValue(DEADLINE, what, () -> {
        last[0] = screen();
        // The typed line holds $? and $((…)) where the answer holds digits: it never matches.
        Matcher m = pattern.matcher(last[0]);
        return m.find() ? m : null;
      }, m -> m != null);
    } catch (AssertionError e) {
      throw new AssertionError(what + " never appeared; the pane:\n" + last[0], e);
    }
  }

  private static int run(List<String> cmd) throws Exception {
    List<String> c = new ArrayList<>(cmd);
    ProcessBuilder pb = new ProcessBuilder(c).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    pb.environment().remove("TMUX");
    pb.environment().put("SHELL", "/bin/sh");
    Process p = pb.start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return -1;
    }
    return p.exitValue();
  }

  private static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }

  private static void requireTools() {
    List<String> missing = new ArrayList<>();
    for (String tool : List.of("tmux", "bwrap", "script", "python3")) {
      if (!onPath(tool)) {
        missing.add(tool);
      }
    }
    if (missing.isEmpty()) {
      return;
    }
    if ("1".equals(System.getenv("SANDBOX_REQUIRE_BWRAP"))) {
      fail("SANDBOX_REQUIRE_BWRAP=1 (CI) but this host lacks " + missing);
    }
    Assumptions.abort("this host lacks " + missing + "; set SANDBOX_REQUIRE_BWRAP=1 to fail");
  }
}
