package dev.pushgate.appliance;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code pushgate} command. */
@Command(
    name = "pushgate",
    mixinStandardHelpOptions = true,
    version = "pushgate 0.1.0",
    description = "Git push gateway and credential broker for AI coding-agent runs.",
    subcommands = {ServeCommand.class, ForgeCommand.class, ApprovalsCommand.class,
        RewritePushUrlsCommand.class,
        CommandLine.HelpCommand.class},
    footer = {"", "Examples:", "  pushgate serve --data-dir ./pushgate-data --port 7070",
        "  pushgate forge create acme/widget --data-dir ./pushgate-data"})
public final class Main implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(run(args));
  }

  static int run(String... args) {
    CommandLine cli = new CommandLine(new Main());
    cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      commandLine.getErr().println("pushgate: " + e.getMessage());
      return 1;
    });
    return cli.execute(args);
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
