package dev.pushgate.appliance.cli;

import dev.pushgate.sandbox.MicroVmProbe;
import dev.pushgate.sandbox.MicroVmStatus;
import dev.pushgate.sandbox.Platform;
import dev.pushgate.sandbox.SandboxBackend;
import dev.pushgate.sandbox.TerminalProfile;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code pushgate shell}: an interactive shell on the caller's terminal under the hosted-terminal
 * profile ({@link TerminalProfile}). It holds no credential and needs no appliance. A host that
 * cannot wrap the shell gets exit 125 and the reason, never a host shell.
 */
@Command(
    name = "shell",
    mixinStandardHelpOptions = true,
    description = {
        "Open an interactive shell on this terminal in a sandbox (bubblewrap on Linux and WSL2):"
            + " your home directory and the working directory are writable, the rest of the host"
            + " read-only, the network open, and ~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gh,"
            + " ~/Library/Keychains and the other credential files of your home unreadable. No"
            + " token and no push gateway: those belong to runs (pushgate exec).",
        "Exits with the shell's code; 125 when the shell cannot be sandboxed on this host (the"
            + " reason is printed, and no unsandboxed shell is ever opened instead)."},
    footer = {"", "Examples:",
        "  pushgate shell",
        "  pushgate shell --workdir ~/work/widget --shell /bin/zsh"})
final class ShellCommand implements Callable<Integer> {
  static final int FAILED = 125;

  @Option(names = "--workdir", paramLabel = "DIR",
      description = "The session's working directory, writable. Default: the current directory.")
  Path workdir;

  @Option(names = "--shell", paramLabel = "PATH",
      description = "The shell to run (absolute path). Default: $SHELL, else /bin/sh.")
  String shell;

  @Option(names = "--backend", paramLabel = "native|microvm", defaultValue = "native",
      description = "native (bubblewrap, the default) or microvm (a guest under KVM: the shell"
          + " does not run on the host). microvm on a host that cannot boot one exits 125 with the"
          + " reason; it never falls back to the host.")
  String backend;

  @picocli.CommandLine.Mixin MicroVmOptions microVm = new MicroVmOptions();

  private final PrintStream err = Stdio.err();

  @Override
  public Integer call() {
    try {
      return open();
    } catch (Exception e) {
      return fail(Failure.message(e));
    }
  }

  private int open() throws Exception {
    SandboxBackend asked = SandboxBackend.parseRequested(backend).orElse(SandboxBackend.NATIVE);
    if (asked == SandboxBackend.MICROVM) {
      return openMicroVm();
    }
    if (asked != SandboxBackend.NATIVE) {
      return fail("--backend takes native or microvm; no shell is ever opened unsandboxed");
    }
    Map<String, String> env = System.getenv();
    String home = env.getOrDefault("HOME", System.getProperty("user.home"));
    TerminalProfile.Session session;
    try {
      session = TerminalProfile.plan(new TerminalProfile.Request(Platform.current(),
          env.get("PATH"), home == null || home.isEmpty() ? null : Path.of(home),
          workdir != null ? workdir : Path.of("").toAbsolutePath(), shell, env,
          accountHome()));
    } catch (TerminalProfile.Unsupported e) {
      return fail(e.getMessage());
    }
    if (System.console() == null) {
      return fail("pushgate shell needs a terminal on its standard input and output; a program"
          + " that hosts terminals asks the appliance for the command instead (POST"
          + " /v1/terminals, see docs/sandbox.md)");
    }
    String trial = TerminalProfile.trial(session);
    if (trial != null) {
      return fail("bubblewrap cannot start a sandbox on this host (" + trial + "); no shell was"
          + " started: pushgate never opens an unsandboxed one");
    }
    err.println("pushgate: sandboxed terminal (bubblewrap) in " + session.workdir()
        + ": writable " + session.home() + " and " + session.workdir() + ", the rest read-only,"
        + " network open, " + Units.count(session.deniedPaths().size(), "credential path")
        + " of your home"
        + " unreadable. exit leaves it.");
    ProcessBuilder pb = new ProcessBuilder(session.argv()).inheritIO();
    pb.environment().clear();
    pb.environment().putAll(session.env());
    Process p = pb.start();
    TerminalResize.forward(p);
    return p.waitFor();
  }

  /** A shell in a guest, or exit 125 with the reason: never a shell on the host instead. */
  private int openMicroVm() {
    MicroVmStatus status = MicroVmProbe.probe(Platform.current(), microVm.host());
    // No launcher runs a shell in the guest yet, so the probe never says available; should it,
    // this still refuses rather than open a shell anywhere else.
    return fail("microvm terminal requested, but the microvm backend is unavailable: "
        + status.detail() + ". No shell was started on the host instead");
  }

  /** The account's home (Java takes it from the password database), whatever HOME says. */
  static Path accountHome() {
    String home = System.getProperty("user.home");
    return home == null || home.isEmpty() || home.equals("?") ? null : Path.of(home);
  }

  private int fail(String message) {
    err.println("pushgate: " + message);
    return FAILED;
  }
}
