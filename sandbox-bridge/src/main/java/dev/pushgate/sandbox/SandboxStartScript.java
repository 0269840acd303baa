package dev.pushgate.sandbox;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The shell a launch's sandbox starts with: the script bwrap runs (the env file read, the run's
 * writable git config, the network bridges up, then the command) and the env file's lines.
 */
final class SandboxStartScript {
  private static final Pattern SHELL_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private SandboxStartScript() {}

  /**
   * The script bwrap runs: reads the variables kept off the command line, starts one socat per
   * bridge, waits until each listens, says it is ready, then becomes the command.
   */
  static String script(BubblewrapArgv.Layout layout) {
    StringBuilder s = new StringBuilder();
    s.append("set -u\n");
    if (layout.envFile()) {
      s.append(". ").append(quote(BubblewrapArgv.GUEST_ENV_FILE)).append('\n');
    }
    s.append(writableGitConfig(!layout.judgedConfigs().isEmpty()));
    StringBuilder hexPorts = new StringBuilder();
    if (!layout.bridges().isEmpty()) {
      s.append(BRIDGE_LOG_FILTER);
    }
    for (Bridge b : layout.bridges()) {
      s.append(quote(layout.tools().socat())).append(" TCP-LISTEN:").append(b.guestPort())
          .append(",bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:").append(b.guestSocket())
          .append(" 2>&1 | bridge_log &\n");
      hexPorts.append(' ').append(String.format(Locale.ROOT, "%04X", b.guestPort()));
    }
    if (!layout.bridges().isEmpty()) {
      s.append("up() { while read -r _ a _ s _; do")
          .append(" [ \"$a\" = \"0100007F:$1\" ] && [ \"$s\" = 0A ] && return 0;")
          .append(" done < /proc/net/tcp; return 1; }\n")
          .append("n=0\n")
          .append("for p in").append(hexPorts).append("; do\n")
          .append("  until up \"$p\"; do\n")
          .append("    n=$((n+1))\n")
          .append("    if [ \"$n\" -gt 2000 ]; then echo \"pushgate: a network bridge of the")
          .append(" sandbox did not start (port 0x$p)\" >&2; exit 125; fi\n")
          .append("    ").append(quote(layout.tools().sleep())).append(" 0.005\n")
          .append("  done\n")
          .append("done\n");
    }
    s.append("printf '%s\\n' ").append(quote(BubblewrapArgv.READY + " " + layout.nonce()))
        .append(" >&2\n");
    s.append("exec \"$@\"\n");
    return s.toString();
  }

  /**
   * The shell function every bridge's messages pass through on their way to the command's standard
   * error. A client that closes its end first (gh does, after the answer it needed) leaves socat
   * writing or reading a connection that is gone: {@code E write(6, …): Broken pipe}, {@code E
   * read(…): Connection reset by peer}, {@code E shutdown(…): Transport endpoint is not
   * connected}. Those are the end of a connection, not a failure, and are dropped; every other line
   * (a bridge that cannot listen or connect) goes on as it was.
   */
  static final String BRIDGE_LOG_FILTER = "bridge_log() { while IFS= read -r l; do case \"$l\" in"
      + " *' socat['*'] E write('*'): Broken pipe'|*' socat['*'] E read('*'): Connection reset by"
      + " peer'|*' socat['*'] E write('*'): Connection reset by peer'|*' socat['*'] E shutdown('*'):"
      + " Transport endpoint is not connected') ;; *) printf '%s\\n' \"$l\" >&2 ;; esac;"
      + " done; }\n";

  /**
   * The script's lines that give the run a git config it can write: a file on the sandbox's own
   * tmpfs that includes the run's read-only one (the gateway rewrite, its header, the identity),
   * which then becomes {@code GIT_CONFIG_GLOBAL}, so {@code git config --global user.name X}
   * works and wins over what it includes. A path git's include syntax cannot hold as written
   * (a quote, a backslash) leaves the run's config as it is.
   *
   * @param upstreamsStored whether the repositories' configs take an upstream (the name-deny layer
   *     judges them): then {@code branch.autoSetupMerge} goes back to git's default, which the
   *     run's config sets off where git could not store what it sets up
   */
  static String writableGitConfig(boolean upstreamsStored) {
    return "case \"${GIT_CONFIG_GLOBAL:-}\" in\n"
        + "  ''|*'\"'*|*'\\'*) ;;\n"
        + "  *) printf '# The run'\\''s git config: yours to change; it ends with the run.\\n"
        + "[include]\\n\\tpath = \"%s\"\\n"
        + (upstreamsStored ? "[branch]\\n\\tautoSetupMerge = true\\n" : "")
        + "' \"$GIT_CONFIG_GLOBAL\" > " + BubblewrapArgv.GUEST_GIT_CONFIG
        + " && GIT_CONFIG_GLOBAL=" + BubblewrapArgv.GUEST_GIT_CONFIG
        + " && export GIT_CONFIG_GLOBAL ;;\n"
        + "esac\n";
  }

  /** Whether the shell can export a variable of this name (the env file's only way to set it). */
  static boolean exportable(String name) {
    return SHELL_NAME.matcher(name).matches();
  }

  /** The env file's line for one variable. */
  static String exportLine(String name, String value) {
    return "export " + name + "=" + quote(value) + "\n";
  }

  /** Single-quotes a value for the shell. */
  static String quote(String value) {
    return "'" + value.replace("'", "'\\''") + "'";
  }
}
