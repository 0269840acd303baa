package dev.pushgate.sandbox;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Builds the environment a run's process starts with. The sanitised form (ACP, the harness bash
 * tool, and Claude Code under a native wrapper) drops the dynamic-linker and interpreter injection
 * vectors, the host's own git and GitHub credentials, and git's config overrides, then adds the
 * run's variables. Claude Code without a sandbox inherits the host environment.
 */
public final class EnvironmentSanitiser {
  /** Whole families: every name starting with one of these (compared without regard to case). */
  static final List<String> REMOVED_PREFIXES =
      List.of(
          "LD_", // LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT, …: every variable ld.so reads
          "DYLD_", // the macOS equivalent
          "GIT_CONFIG", // GIT_CONFIG, _GLOBAL, _SYSTEM, _NOSYSTEM, _COUNT, _KEY_n, _VALUE_n, _PARAMETERS
          "BASH_FUNC_"); // exported bash functions, run by every bash that starts

  /** Single names (compared without regard to case). */
  static final Set<String> REMOVED_NAMES =
      Set.of(
          // Interpreters that load code named by the environment.
          "NODE_OPTIONS", "NODE_PATH",
          "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONWARNINGS", "PYTHONBREAKPOINT",
          "PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB",
          "RUBYOPT", "RUBYLIB",
          "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
          "GCONV_PATH", "OPENSSL_CONF",
          // Shells that run files or code named by the environment.
          "BASH_ENV", "ENV", "ZDOTDIR", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "PS4",
          // git: programs it runs, and where it looks for the repository.
          "GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT", "GIT_EXEC_PATH", "GIT_ASKPASS",
          "SSH_ASKPASS", "GIT_PROXY_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_TEMPLATE_DIR",
          "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR",
          // The host's own credentials: a run holds only what the broker issued it.
          "SSH_AUTH_SOCK", "GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN",
          "GITHUB_ENTERPRISE_TOKEN");

  private EnvironmentSanitiser() {}

  /** Whether the sanitised environment drops a host variable of this name. */
  public static boolean removes(String name) {
    String upper = name.toUpperCase(Locale.ROOT);
    if (REMOVED_NAMES.contains(upper)) {
      return true;
    }
    for (String prefix : REMOVED_PREFIXES) {
      if (upper.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The host environment without the removed variables, then the run's additions (which win, and
   * are taken as given: they are the appliance's own, such as {@code GIT_CONFIG_GLOBAL}, {@code
   * GH_TOKEN} and the proxy variables).
   */
  public static EnvironmentVariables sanitise(
      EnvironmentVariables host, EnvironmentVariables additions) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : host.asMap().entrySet()) {
      if (!removes(e.getKey())) {
        out.put(e.getKey(), e.getValue());
      }
    }
    out.putAll(additions.asMap());
    return EnvironmentVariables.of(out);
  }

  /**
   * The host environment as it is, then the run's additions. Only git's config overrides are
   * dropped, because {@code GIT_CONFIG_COUNT} or {@code GIT_CONFIG_PARAMETERS} from the host would
   * override the run's own git config (the one given as {@code GIT_CONFIG_GLOBAL}).
   */
  public static EnvironmentVariables inherit(
      EnvironmentVariables host, EnvironmentVariables additions) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : host.asMap().entrySet()) {
      if (!e.getKey().toUpperCase(Locale.ROOT).startsWith("GIT_CONFIG")) {
        out.put(e.getKey(), e.getValue());
      }
    }
    out.putAll(additions.asMap());
    return EnvironmentVariables.of(out);
  }
}
