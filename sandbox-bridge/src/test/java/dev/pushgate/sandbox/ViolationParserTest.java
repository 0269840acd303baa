package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.Wait;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ViolationParserTest {
  /**
   * The home's .ssh and a sibling's directory are hidden; .vscode in the workdir is blocked;
   * .git/config is bound read-only over itself.
   */
  private static final ViolationParser.Denials DENIALS = new ViolationParser.Denials() {
    @Override
    public boolean hidden(String path) {
      return path.startsWith("/home/u/.ssh") || path.startsWith("/data/agents/a2");
    }

    @Override
    public boolean blocked(String path) {
      return path.equals(".vscode") || path.startsWith("/work/.vscode");
    }

    @Override
    public boolean mountedOver(String path) {
      return blocked(path) || path.equals(".git/config");
    }
  };

  private static SandboxViolation parse(String line) {
    Optional<SandboxViolation> v = ViolationParser.parse(line, DENIALS);
    assertThat(v).as("a violation in: %s", line).isPresent();
    return v.get();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "touch: cannot touch '/etc/passwd': Read-only file system|file-write*|/etc/passwd",
      "sh: 1: cannot create /proc/sys/kernel/hostname: Read-only file system"
          + "|file-write*|/proc/sys/kernel/hostname",
      "mkdir: cannot create directory ‘/usr/x’: Read-only file system|file-write*|/usr/x",
      "sh: 1: can't create /usr/x: Read-only file system|file-write*|/usr/x",
      "error: could not lock config file /work/.git/config: Read-only file system"
          + "|file-write*|/work/.git/config",
      "OSError: [Errno 30] Read-only file system: '/usr/lib/x.py'|file-write*|/usr/lib/x.py",
      "Error: EROFS: read-only file system, open '/etc/hosts'|file-write*|/etc/hosts",
      "cat: /home/u/.ssh/id_ed25519: Permission denied|file-read*|/home/u/.ssh/id_ed25519",
      "ls: cannot open directory '/home/u/.ssh': Permission denied|file-read*|/home/u/.ssh",
      "cat: /etc/shadow: Permission denied|file-access*|/etc/shadow",
      "bash: line 1: /root/x: Permission denied|file-access*|/root/x",
      "PermissionError: [Errno 13] Permission denied: '/var/log/x'|file-access*|/var/log/x",
      "bash: line 1: .env: Permission denied|file-access*|.env",
      "PermissionError: [Errno 13] Permission denied: '.env'|file-access*|.env",
      "bash: line 1: /opt/pushgate/bin/pushgate-hook: Permission denied"
          + "|file-access*|/opt/pushgate/bin/pushgate-hook",
      "fatal: could not create work tree dir 'clone': Permission denied|file-write*|clone",
      "rm: cannot remove 'a.txt': Operation not permitted|file-write*|a.txt",
      "cat: /home/u/.ssh/id_ed25519: No such file or directory|file-read*|/home/u/.ssh/id_ed25519",
      "ls: cannot access '/data/agents/a2/work': No such file or directory"
          + "|file-read*|/data/agents/a2/work",
      "touch: cannot touch '/home/u/.ssh/x': No such file or directory|file-write*|/home/u/.ssh/x",
      "touch: cannot touch '/data/agents/a2/new/x': No such file or directory"
          + "|file-write*|/data/agents/a2/new/x",
      "sh: 1: cannot create .vscode: Is a directory|file-write*|.vscode",
      "rmdir: failed to remove '/work/.vscode': Device or resource busy|file-write*|/work/.vscode",
  })
  void readsTheDenialAndWhatItHit(String line, String action, String target) {
    SandboxViolation v = parse(line);
    assertThat(v.action()).isEqualTo(action);
    assertThat(v.target()).isEqualTo(target);
    assertThat(v.raw()).isEqualTo(line);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "curl: (6) Could not resolve host: evil.example|evil.example",
      "fatal: unable to access 'https://gitlab.example/x.git/': Could not resolve host:"
          + " gitlab.example|gitlab.example",
      "curl: (7) Failed to connect to 10.0.0.5 port 80 after 0 ms: Couldn't connect to server"
          + "|10.0.0.5",
      "ssh: connect to host github.com port 22: Network is unreachable|",
  })
  void readsANetworkThatCannotBeReachedWithoutTheProxy(String line, String host) {
    SandboxViolation v = parse(line);
    assertThat(v.action()).isEqualTo("network-outbound");
    assertThat(v.target()).isEqualTo(host == null ? "" : host);
  }

  @Test
  void anOperationWithoutAPathIsASyscallDenial() {
    SandboxViolation v = parse("ping: socket: Operation not permitted");
    assertThat(v.action()).isEqualTo("syscall");
    assertThat(v.target()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "",
      "hello world",
      "cat: notes.txt: No such file or directory",
      "ls: cannot access '/work/missing': No such file or directory",
      "sh: 1: cannot create /work/dir: Is a directory",
      "To github.com:acme/widget.git",
      " ! [remote rejected] main -> main (Control Center policy: push to main is denied)",
  })
  void ordinaryOutputAndPlainMissingFilesAreNotViolations(String line) {
    assertThat(ViolationParser.parse(line, DENIALS)).isEmpty();
  }

  @Test
  void withoutDenialsAMissingFileIsNeverAViolation() {
    assertThat(ViolationParser.parse("cat: /home/u/.ssh/id: No such file or directory",
        ViolationParser.Denials.NONE)).isEmpty();
  }

  /**
   * Issue 30: where the name-deny layer does not run, git push -u renames config.lock onto the
   * read-only .git/config (a mount point) and fails with EBUSY, then says the upstream was set up;
   * the agent hears it was not, and why.
   */
  @Test
  void gitFailingToStoreAnUpstreamInTheReadOnlyConfigIsARefusalThatSaysSo() {
    SandboxViolation v = ViolationParser.parse(
        "error: could not write config file .git/config: Device or resource busy", DENIALS)
        .orElseThrow();
    assertThat(v.action()).isEqualTo("file-write*");
    assertThat(v.target()).isEqualTo(".git/config");
    assertThat(RefusalReason.of(v)).isEqualTo(RefusalReason.REPOSITORY_CONFIG)
        .startsWith("git stored nothing in the repository's .git/config");
    // A path bound read-only over itself is a real directory or file: reading it is no refusal.
    assertThat(ViolationParser.parse("cat: .git/config: Is a directory", DENIALS)).isEmpty();
  }

  /** Of two paths, the one written: ln names the link first, mv and Python the destination last. */
  @Test
  void aRenameOrLinkNamesThePathItWrites() {
    assertThat(parse("ln: failed to create hard link 'id_rsa' => 'notes.txt': Permission denied")
        .target()).isEqualTo("id_rsa");
    assertThat(parse("/usr/bin/ln: failed to create symbolic link 'k.pem' -> 'x': Permission"
        + " denied").target()).isEqualTo("k.pem");
    assertThat(parse("mv: cannot move 'notes.txt' to '.env': Permission denied").target())
        .isEqualTo(".env");
    assertThat(parse("PermissionError: [Errno 13] Permission denied: 'notes.txt' -> '.env'")
        .target()).isEqualTo(".env");
  }

  @Test
  void controlCharactersInTheRawLineAreEscaped() {
    SandboxViolation v = parse("touch: cannot touch '/etc/x': Read-only file system\r");
    assertThat(v.raw()).isEqualTo("touch: cannot touch '/etc/x': Read-only file system\\x0d");
  }

  /**
   * Walk 30: the sandbox hides a path with a mode-000 cover, so only a hidden path's {@code
   * Permission denied} is a hidden-path read; on a path the sandbox shows it is the file's own
   * permissions or the name-deny layer, and its reason must not call the path a hidden secret.
   */
  @Test
  void permissionDeniedOnAShownPathIsNeverAHiddenPathRead() {
    SandboxViolation v = parse("bash: line 1: .env: Permission denied");
    assertThat(RefusalReason.of(v)).doesNotContain("hides")
        .endsWith("the sandbox does not hide this path");
    assertThat(RefusalReason.of(parse("cat: /home/u/.ssh/id: Permission denied")))
        .startsWith("the sandbox hides this path");
  }

  /** The layer's report and the command's error line for one refused write make one report. */
  @Test
  void theCommandsLineForAWriteTheLayerReportedIsDroppedWhateverItIsReadAs() {
    java.util.List<SandboxEvent> events = new java.util.ArrayList<>();
    SandboxProcess.Events out = new SandboxProcess.Events(events::add);
    out.underLayer(CompletableFuture::new); // the layer's stream is never read past: only its reports
    for (String program : new String[] {"bash: line 1: .env: Permission denied",
        "PermissionError: [Errno 13] Permission denied: '.env'",
        "sh: 1: cannot create .env: Permission denied"}) {
      out.violation(new SandboxViolation("file-write*", "/work/.env",
          RefusalReason.NAME_DENY_LAYER + ": /work/.env"));
      out.violation(parse(program));
    }
    // The two come through different pipes: the command's line may come first.
    out.violation(parse("bash: line 1: .env: Permission denied"));
    out.violation(new SandboxViolation("file-write*", "/work/.env",
        RefusalReason.NAME_DENY_LAYER + ": /work/.env"));
    out.flush();
    assertThat(events).hasSize(4).allSatisfy(e -> assertThat(
        RefusalReason.fromNameDenyLayer(((SandboxEvent.Violation) e).violation())).isTrue());
  }

  /**
   * A command's line that could be the layer's waits for the layer's stream to be read past it,
   * however long that takes (a loaded machine once took over a second): the report that comes
   * meanwhile replaces it; without one it is delivered as soon as the stream has been read.
   */
  @Test
  void aHeldLineWaitsForTheLayersStreamNotForAClock() throws Exception {
    java.util.List<SandboxEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    SandboxProcess.Events out = new SandboxProcess.Events(events::add);
    java.util.concurrent.BlockingQueue<CompletableFuture<Void>> barriers =
        new java.util.concurrent.LinkedBlockingQueue<>();
    out.underLayer(() -> {
      CompletableFuture<Void> f = new CompletableFuture<>();
      barriers.add(f);
      return f;
    });

    out.violation(parse("mv: cannot move 'notes.txt' to '.env': Permission denied"));
    CompletableFuture<Void> first = barriers.poll(30, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(first).isNotNull();
    assertThat(events).isEmpty();
    out.violation(new SandboxViolation("file-write*", "/work/.env",
        RefusalReason.NAME_DENY_LAYER + ": /work/.env"));
    first.complete(null);
    assertThat(events).singleElement().satisfies(e -> assertThat(
        RefusalReason.fromNameDenyLayer(((SandboxEvent.Violation) e).violation())).isTrue());

    out.violation(parse("bash: line 1: /opt/pushgate/bin/pushgate-hook: Permission denied"));
    barriers.poll(30, java.util.concurrent.TimeUnit.SECONDS).complete(null);
    Wait.until(java.time.Duration.ofSeconds(5), "the line the layer did not report",
        () -> events.size() == 2);
    assertThat(((SandboxEvent.Violation) events.get(1)).violation().target())
        .isEqualTo("/opt/pushgate/bin/pushgate-hook");
  }

  /** Without the layer there is no report to wait for: a command's line is delivered at once. */
  @Test
  void withoutTheLayerALineIsDeliveredAtOnce() {
    java.util.List<SandboxEvent> events = new java.util.ArrayList<>();
    new SandboxProcess.Events(events::add).violation(parse("bash: line 1: .env: Permission denied"));
    assertThat(events).hasSize(1);
  }

  /** A command's line the layer did not report is delivered, when the process ends at the latest. */
  @Test
  void aPermissionDeniedTheLayerDidNotReportIsStillDelivered() {
    java.util.List<SandboxEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    SandboxProcess.Events out = new SandboxProcess.Events(events::add);
    CompletableFuture<Void> read = new CompletableFuture<>();
    out.underLayer(() -> read);
    out.violation(parse("bash: line 1: /opt/pushgate/bin/pushgate-hook: Permission denied"));
    out.violation(parse("touch: cannot touch '/etc/passwd': Read-only file system"));
    read.complete(null); // the layer's stream read past the end: it reported nothing
    out.flush();
    assertThat(events).extracting(e -> ((SandboxEvent.Violation) e).violation().target())
        .containsExactly("/etc/passwd", "/opt/pushgate/bin/pushgate-hook");
  }

  /**
   * The process ends with a line held and the layer's report of the same refusal still in its
   * pipe: the end waits for the layer's stream to be read past it, and the report replaces the
   * line. (The end delivered the line at once, then the report came too: two refusals of one
   * write, one with the wrong reason, in a CI run of RefusedNameReasonsTest.)
   */
  @Test
  void theEndWaitsForTheLayersReportOfAHeldLine() throws Exception {
    java.util.List<SandboxEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    SandboxProcess.Events out = new SandboxProcess.Events(events::add);
    CompletableFuture<Void> read = new CompletableFuture<>();
    out.underLayer(() -> read);
    out.violation(parse("cp: cannot create regular file '.env': Permission denied"));
    Thread end = new Thread(out::flush, "the process's end");
    end.start();
    Wait.until(java.time.Duration.ofSeconds(30), "the end waiting for the layer's stream",
        () -> end.getState() == Thread.State.TIMED_WAITING || !end.isAlive());
    out.violation(new SandboxViolation("file-write*", "/work/.env",
        RefusalReason.NAME_DENY_LAYER + ": /work/.env"));
    read.complete(null);
    end.join(30_000);
    assertThat(events).singleElement().satisfies(e -> assertThat(
        RefusalReason.fromNameDenyLayer(((SandboxEvent.Violation) e).violation())).isTrue());
  }
}
