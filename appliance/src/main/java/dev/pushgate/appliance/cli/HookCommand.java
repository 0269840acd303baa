package dev.pushgate.appliance.cli;

import dev.pushgate.appliance.launch.HookScript;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pushgate hook}: the Claude Code command hook that ships with the appliance. */
@Command(
    name = "hook",
    mixinStandardHelpOptions = true,
    description = {"Claude Code's PreToolUse command hook (docs/claude-code.md).",
        "Without a subcommand this prints its usage on standard error and exits 2, which Claude"
            + " Code reads as \"block\"."},
    footer = {"", "Example:", "  pushgate hook install --to /usr/local/bin"},
    subcommands = {HookCommand.Install.class})
final class HookCommand implements Callable<Integer> {
  /**
   * Where the hook is documented to be (docs/claude-code.md), and where {@code pushgate exec}
   * mounts it read-only inside the sandbox, so the same settings work on the host and inside.
   */
  static final String DOCUMENTED_PATH = HookScript.GUEST_PATH;

  /** What Claude Code reads as "block this tool call"; 0 would read as "allow". */
  static final int BLOCK = 2;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  /**
   * Without a subcommand there is nothing to do, and this may be a hook configured by mistake as
   * {@code pushgate hook}: it must block the call, not let it through with exit 0.
   */
  @Override
  public Integer call() {
    spec.commandLine().getErr().println(
        "pushgate hook: a subcommand is needed; this is not the hook itself (that is"
            + " pushgate-hook, see docs/claude-code.md), so the tool call is blocked");
    spec.commandLine().usage(spec.commandLine().getErr());
    return BLOCK;
  }

  @Command(
      name = "install",
      mixinStandardHelpOptions = true,
      description = "Write the pushgate-hook script (POSIX sh + curl) into a directory, mode 0755."
          + " It forwards the hook input to the appliance and blocks the tool call (exit 2) when"
          + " the appliance cannot answer.",
      footer = {"", "Example:", "  pushgate hook install --to /usr/local/bin"})
  static final class Install implements Callable<Integer> {
    @Option(names = "--to", defaultValue = ".", paramLabel = "DIR",
        description = "Where to write pushgate-hook. Default: the current directory")
    Path dir;

    @Override
    public Integer call() throws IOException {
      System.out.println("wrote " + writeScript(dir));
      return 0;
    }
  }

  /** Writes {@code pushgate-hook} into {@code dir}, mode 0755, atomically; returns its path. */
  static Path writeScript(Path dir) throws IOException {
    return HookScript.write(dir);
  }
}
