package dev.pushgate.appliance.cli;

import dev.pushgate.sandbox.Platform;
import dev.pushgate.sandbox.TerminalProfile;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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

  private final PrintStream err =
      new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);

  @Override
  public Integer call() {
    try {
      return open();
    } catch (Exception e) {
      return fail(Failure.message(e));
    }
  }

  private int open() throws Exception {
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
