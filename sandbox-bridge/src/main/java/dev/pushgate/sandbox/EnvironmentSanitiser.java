package dev.pushgate.sandbox;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Builds the environment a run's process starts with. The sanitised form (ACP, the harness bash
 * tool, and Claude Code under a native wrapper) is an allowlist: of the launcher's variables only
 * the basics ({@link #basic}) and the names the operator passes ({@link PassedVariables}) are
 * kept, so a secret of the operator's (a cloud key, a vault token, the database URL) never
 * reaches the agent because somebody forgot to list it. The run's own variables are then added.
 * Claude Code without a sandbox inherits the host environment.
 */
public final class EnvironmentSanitiser {
  /** Variables every run may have from its launcher: locale, terminal, who and where it is. */
  static final Set<String> BASIC_NAMES =
      Set.of(
          "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "COLORTERM",
          "TZ", "TMPDIR",
          // Who commits: the agent's commits carry the operator's chosen identity.
          "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL");

  /** The locale categories, LC_ALL, LC_CTYPE, …. */
  static final String LOCALE_PREFIX = "LC_";

  /**
   * Never kept, not even when the operator names them. Whole families: every name starting with
   * one of these (compared without regard to case).
   */
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

  /** Whether a launcher variable of this name is one of the basics every run gets. */
  public static boolean basic(String name) {
    return BASIC_NAMES.contains(name) || name.startsWith(LOCALE_PREFIX);
  }

  /** Whether this name may never be passed to a run, whoever asks for it. */
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

  /** {@link #sanitise(EnvironmentVariables, EnvironmentVariables, PassedVariables)}, no names passed. */
  public static EnvironmentVariables sanitise(
      EnvironmentVariables host, EnvironmentVariables additions) {
    return sanitise(host, additions, PassedVariables.NONE);
  }

  /**
   * The launcher's basics and the variables the operator passes, then the run's additions (which
   * win, and are taken as given: they are the appliance's own, such as {@code GIT_CONFIG_GLOBAL},
   * {@code GH_TOKEN} and the proxy variables).
   */
  public static EnvironmentVariables sanitise(
      EnvironmentVariables host, EnvironmentVariables additions, PassedVariables passed) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : host.asMap().entrySet()) {
      String name = e.getKey();
      if ((basic(name) || passed.contains(name)) && !removes(name)) {
        out.put(name, e.getValue());
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
