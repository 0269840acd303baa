package dev.pushgate.appliance.cli;

import java.util.Map;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code pushgate} command. */
@Command(
    name = "pushgate",
    mixinStandardHelpOptions = true,
    version = "pushgate 0.1.0",
    description = "Git push gateway and credential broker for AI coding-agent runs.",
    subcommands = {DemoCommand.class, ServeCommand.class, ForgeCommand.class,
        ApprovalsCommand.class,
        ConfigCommand.class, ExecCommand.class, LaunchCommand.class, ShellCommand.class,
        AuditCommand.class,
        RunsCommand.class,
        HookCommand.class,
        RewritePushUrlsCommand.class,
        CommandLine.HelpCommand.class},
    footer = {"", "Examples:", "  pushgate serve --data-dir ./pushgate-data --port 7070",
        "  pushgate forge create acme/widget --data-dir ./pushgate-data"})
public final class Main implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    chooseLogFormat(args);
    System.exit(run(args));
  }

  /**
   * {@code --log-format json} (or {@code PUSHGATE_LOG_FORMAT=json}, as for every flag) must take
   * effect before the first logger exists, so it is read here, ahead of the command line parser
   * (which also knows the option, for --help). The flag wins over the variable.
   */
  static void chooseLogFormat(String[] args) {
    chooseLogFormat(args, System.getenv());
  }

  static void chooseLogFormat(String[] args, Map<String, String> env) {
    if ("json".equals(logFormat(args, env))) {
      System.setProperty("logback.configurationFile", "logback-json.xml");
    }
  }

  /** The log format asked for: the last {@code --log-format}, else the variable, else null. */
  static String logFormat(String[] args, Map<String, String> env) {
    String chosen = null;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      String value = a.startsWith("--log-format=") ? a.substring(13)
          : a.equals("--log-format") && i + 1 < args.length ? args[i + 1] : null;
      if (value != null) {
        chosen = value;
      }
    }
    return chosen != null ? chosen : env.get("PUSHGATE_LOG_FORMAT");
  }

  /**
   * Every message printed for a failure is redacted (it may quote a database URL or a token) and
   * plain ({@link Failure}): no stack trace, no class name.
   */
  static int run(String... args) {
    CommandLine cli = new CommandLine(new Main());
    // every command's options, admin commands' too; serve's own provider below adds its file
    cli.setDefaultValueProvider(new EnvDefaults(System.getenv()));
    if (args.length > 0 && args[0].equals("serve")) {
      CommandLine serve = cli.getSubcommands().get("serve");
      try {
        serve.setDefaultValueProvider(ConfigFile.load(args, System.getenv(), optionNames(serve)));
        ((ServeCommand) serve.getCommand()).args =
            java.util.Arrays.copyOfRange(args, 1, args.length);
      } catch (IllegalArgumentException | java.io.IOException e) {
        cli.getErr().println("pushgate: " + Failure.message(e));
        return 2;
      }
    }
    cli.setParameterExceptionHandler((e, argv) -> {
      e.getCommandLine().getErr().println("pushgate: "
          + (e instanceof CommandLine.UnmatchedArgumentException u
              ? unmatched(u) : Failure.message(e)));
      e.getCommandLine().getErr().println("See: pushgate "
          + e.getCommandLine().getCommandSpec().qualifiedName(" ").replaceFirst("^pushgate ?", "")
          + " --help");
      return 2;
    });
    cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      commandLine.getErr().println("pushgate: " + Failure.message(e));
      return 1;
    });
    return cli.execute(args);
  }

  /** An option or subcommand name: shown back; anything else may be a value. */
  private static final java.util.regex.Pattern NAME =
      java.util.regex.Pattern.compile("-{0,2}[A-Za-z][A-Za-z0-9-]{0,39}");

  /**
   * What picocli did not take, naming options and words but never a value: an unknown option's
   * value may be a secret (a Slack webhook's path is its key), so it is counted, not echoed.
   */
  static String unmatched(CommandLine.UnmatchedArgumentException e) {
    java.util.List<String> names = new java.util.ArrayList<>();
    int hidden = 0;
    for (String arg : e.getUnmatched()) {
      String name = arg.startsWith("-") ? arg.replaceFirst("=.*", "") : arg;
      if (NAME.matcher(name).matches()) {
        names.add("'" + name + "'");
      }
      if (!name.equals(arg) || !NAME.matcher(name).matches()) {
        hidden++;
      }
    }
    boolean options = names.stream().anyMatch(n -> n.startsWith("'-"));
    String what = options ? "unknown option" : "unexpected argument";
    String shown = names.isEmpty() ? "" : (names.size() == 1 ? what : what + "s") + " "
        + String.join(", ", names);
    String values = hidden == 0 ? "" : (hidden == 1 ? "1 value" : hidden + " values")
        + " not shown (it may be a secret)";
    if (hidden > 1) {
      values = values.replace("(it may", "(they may");
    }
    if (shown.isEmpty()) {
      return hidden == 1 ? "an unexpected argument, not shown (it may be a secret)"
          : hidden + " unexpected arguments, not shown (they may be secrets)";
    }
    return shown + didYouMean(e) + (values.isEmpty() ? "" : "; " + values);
  }

  /** The option or subcommand a misspelt argument most likely meant, as a hint. */
  static String didYouMean(CommandLine.UnmatchedArgumentException e) {
    if (e.getUnmatched().isEmpty()) {
      return "";
    }
    String arg = e.getUnmatched().get(0);
    CommandLine.Model.CommandSpec spec = e.getCommandLine().getCommandSpec();
    if (arg.startsWith("-")) {
      java.util.List<String> names = spec.options().stream()
          .flatMap(o -> java.util.Arrays.stream(o.names())).filter(n -> n.startsWith("--"))
          .toList();
      return Suggest.hint(arg.replaceFirst("=.*", ""), names);
    }
    return Suggest.hint(arg, spec.subcommands().keySet());
  }

  /** The long option names of a command, without their dashes. */
  static java.util.List<String> optionNames(CommandLine command) {
    return command.getCommandSpec().options().stream()
        .map(o -> o.longestName().replaceFirst("^--", "")).toList();
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
