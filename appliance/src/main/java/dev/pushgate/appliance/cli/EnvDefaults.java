package dev.pushgate.appliance.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code PUSHGATE_*} variables for the options of every command: {@code --foo-bar} takes its
 * default from {@code PUSHGATE_FOO_BAR}, so an admin command finds the appliance from the same
 * environment file as {@code serve} ({@code PUSHGATE_DATA_DIR}, {@code PUSHGATE_DATABASE_URL}).
 * A flag given wins. {@code serve} and {@code config check} use {@link ConfigFile}, which adds the
 * YAML file under the environment.
 */
final class EnvDefaults implements CommandLine.IDefaultValueProvider {
  /**
   * Set by the appliance in a run's environment or read by {@code pushgate-hook}, not by this
   * CLI; and {@code PUSHGATE_TEST_*}, the test suites' own. None of them is a misspelt option.
   */
  static final Set<String> NOT_OPTIONS = Set.of("PUSHGATE_CONFIG", "PUSHGATE_RUN_TOKEN",
      "PUSHGATE_HOOK_URL", "PUSHGATE_HOOK_TIMEOUT", "PUSHGATE_READ_TOKEN", "PUSHGATE_VIOLATIONS");

  private final Map<String, String> env;

  EnvDefaults(Map<String, String> env) {
    this.env = env;
  }

  @Override
  public String defaultValue(ArgSpec argSpec) {
    if (!(argSpec instanceof OptionSpec o) || o.usageHelp() || o.versionHelp()) {
      return null;
    }
    return env.get(ConfigFile.envName(ConfigFile.key(o)));
  }

  /** The variable of every option of every command. */
  static Set<String> known() {
    Set<String> names = new TreeSet<>();
    collect(new CommandLine(new Main()), names);
    return names;
  }

  private static void collect(CommandLine cli, Set<String> names) {
    for (OptionSpec o : cli.getCommandSpec().options()) {
      if (!o.usageHelp() && !o.versionHelp()) {
        names.add(ConfigFile.envName(ConfigFile.key(o)));
      }
    }
    cli.getSubcommands().values().forEach(sub -> collect(sub, names));
  }

  /**
   * The {@code PUSHGATE_*} variables no option takes, each with its likely meaning: reported as
   * an unknown key of the file is, since a misspelt variable is as silently ignored.
   */
  static List<String> unknown(Map<String, String> env) {
    Set<String> known = known();
    List<String> out = new ArrayList<>();
    for (String name : new TreeSet<>(env.keySet())) {
      if (name.startsWith(ConfigFile.ENV_PREFIX) && !known.contains(name)
          && !NOT_OPTIONS.contains(name) && !name.startsWith("PUSHGATE_TEST_")) {
        out.add(name + Suggest.hint(name, known));
      }
    }
    return out;
  }
}
