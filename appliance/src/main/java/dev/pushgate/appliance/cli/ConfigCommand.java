package dev.pushgate.appliance.cli;

import dev.pushgate.appliance.DataDirectory;
import dev.pushgate.appliance.Settings;
import dev.pushgate.types.Redaction;
import dev.pushgate.appliance.store.Database;
import dev.pushgate.approvals.webhooks.WebhookSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/** {@code pushgate config}: check a configuration before serving with it. */
@Command(
    name = "config",
    mixinStandardHelpOptions = true,
    description = "Check the configuration serve would run with.",
    footer = {"", "Example:", "  pushgate config check --config /etc/pushgate/pushgate.yaml"},
    subcommands = {ConfigCommand.Check.class})
final class ConfigCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "check",
      mixinStandardHelpOptions = true,
      description = "Validate the YAML file, the PUSHGATE_* environment and the defaults together,"
          + " with exactly the checks serve makes before it starts (the GitHub App's id and key,"
          + " the bind address, the database URL, the rules file), and print the effective configuration (secrets redacted) with where each value"
          + " comes from. Exits non-zero, naming the problem, when anything is wrong.",
      footer = {"", "Examples:", "  pushgate config check --config /etc/pushgate/pushgate.yaml",
          "  PUSHGATE_PORT=7171 pushgate config check --data-dir /var/lib/pushgate"})
  static final class Check implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE", description = "The YAML file to check.")
    Path config;

    @Option(names = "--data-dir", paramLabel = "DIR",
        description = "The data directory (its pushgate.yaml is read when --config is not given).")
    Path dataDir;

    @Override
    public Integer call() throws Exception {
      List<String> args = new ArrayList<>();
      if (config != null) {
        args.add("--config");
        args.add(config.toString());
      }
      if (dataDir != null) {
        args.add("--data-dir");
        args.add(dataDir.toString());
      }
      String[] argv = args.toArray(String[]::new);
      // A --data-dir that came from PUSHGATE_DATA_DIR is passed on, but shown as from the environment.
      String[] typed = spec.commandLine().getParseResult().hasMatchedOption("--data-dir") ? argv
          : config == null ? new String[0] : new String[] {"--config", config.toString()};
      ServeCommand serve = new ServeCommand();
      CommandLine cli = new CommandLine(serve);
      ConfigFile file = ConfigFile.load(argv, System.getenv(), Main.optionNames(cli));
      cli.setDefaultValueProvider(file);
      try {
        cli.parseArgs(argv);
      } catch (CommandLine.ParameterException e) {
        throw new IllegalArgumentException(e.getMessage() + " (from "
            + (file.file() == null ? "the environment" : file.file() + " or the environment") + ")");
      }
      Settings settings = serve.settings();
      DataDirectory.check(settings.dataDir());
      System.out.println("# configuration file: "
          + (file.file() == null ? "none (defaults and environment only)" : file.file()));
      List<OptionSpec> listed = cli.getCommandSpec().options().stream()
          .filter(o -> !o.usageHelp() && !o.versionHelp() && !ConfigFile.key(o).equals("config"))
          .toList();
      int width = listed.stream().mapToInt(o -> ConfigFile.key(o).length() + 1).max().orElse(1);
      for (OptionSpec o : listed) {
        String key = ConfigFile.key(o);
        System.out.printf("%-" + width + "s %-40s # %s%n", key + ":", shown(o, key),
            file.sourceOf(o, typed).name().toLowerCase(java.util.Locale.ROOT));
      }
      System.out.println("# ok");
      return 0;
    }

    /** A value as the file or a flag would give it, so that it can be copied back (90s, 2g). */
    private static String shown(OptionSpec o, String key) {
      Object value = o.getValue();
      if (value == null) {
        return "~";
      }
      if (value instanceof java.time.Duration d) {
        return Units.format(d);
      }
      if (o.converters().length > 0 && o.converters()[0] instanceof Units.SizeConverter) {
        return Units.formatBytes((Long) value);
      }
      if (value instanceof List<?> list) {
        return String.join(",", list.stream().map(String::valueOf).toList());
      }
      if (key.equals("webhooks")) {
        return WebhookSettings.parse(String.valueOf(value)).describe(); // URLs are secrets
      }
      return key.equals("database-url") ? Database.describeUrl(String.valueOf(value))
          : Redaction.redact(String.valueOf(value));
    }
  }
}
