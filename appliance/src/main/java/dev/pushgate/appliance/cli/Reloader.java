package dev.pushgate.appliance.cli;

import dev.pushgate.appliance.Appliance;
import dev.pushgate.appliance.Settings;
import dev.pushgate.types.Redaction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code serve}'s reload (SIGHUP, {@code systemctl reload}): reads the configuration file again
 * with the same command line and environment, checks it exactly as a start does, and applies what
 * {@link Appliance#reload} can change live. An invalid configuration is logged and ignored: the
 * running one stays, and nothing in flight is touched. Log lines name keys, never values, which
 * may be secrets.
 */
final class Reloader {
  private static final Logger log = LoggerFactory.getLogger(Reloader.class);

  private final String[] args;
  private final Appliance appliance;
  private Map<String, String> running;

  Reloader(String[] args, Appliance appliance, CommandSpec started) {
    this.args = args.clone();
    this.appliance = appliance;
    this.running = values(started);
  }

  /** One reload at a time: two signals in a row are two reloads, in order. */
  synchronized boolean reload() {
    ServeCommand fresh = new ServeCommand();
    CommandLine cli = new CommandLine(fresh);
    Settings next;
    try {
      ConfigFile file = ConfigFile.load(args, System.getenv(), Main.optionNames(cli));
      cli.setDefaultValueProvider(file);
      cli.parseArgs(args);
      next = fresh.settings();
    } catch (Exception e) {
      log.warn("pushgate: reload refused, the running configuration stays: {}",
          Redaction.redact(String.valueOf(e.getMessage())));
      return false;
    }
    Map<String, String> read = values(cli.getCommandSpec());
    List<String> waiting = new ArrayList<>();
    for (Map.Entry<String, String> e : read.entrySet()) {
      if (!Appliance.RELOADABLE.contains(e.getKey())
          && !Objects.equals(e.getValue(), running.get(e.getKey()))) {
        waiting.add(e.getKey());
      }
    }
    appliance.reload(next);
    // what needs a restart keeps its running value, so it is still "changed" at the next reload
    for (String key : waiting) {
      read.put(key, running.get(key));
    }
    running = read;
    log.info("pushgate: configuration reloaded; applied: {}{}", String.join(", ",
        Appliance.RELOADABLE.stream().sorted().toList()), waiting.isEmpty() ? ""
            : "; changed but applied only at restart: " + String.join(", ", waiting));
    return true;
  }

  /**
   * Reloads on SIGHUP, which otherwise ends the JVM as SIGTERM does. {@code sun.misc.Signal}
   * (module jdk.unsupported) is the only way the JDK offers to handle a signal; it stays
   * supported for this use (JEP 260). Its handler runs on a thread of its own. A SIGHUP ignored by
   * whoever started the JVM (nohup) stays ignored: the JVM installs no handler for it, silently,
   * so that is said at start rather than found out at the first reload that does nothing.
   */
  void onHangUp() {
    sun.misc.SignalHandler before =
        sun.misc.Signal.handle(new sun.misc.Signal("HUP"), signal -> reload());
    if (before == sun.misc.SignalHandler.SIG_IGN) {
      log.warn("pushgate: SIGHUP was ignored when pushgate started (nohup?), so a reload by"
          + " signal (kill -HUP, systemctl reload) does nothing; restart to apply a changed"
          + " configuration, or start pushgate without ignoring SIGHUP");
    }
  }

  private static Map<String, String> values(CommandSpec spec) {
    Map<String, String> out = new LinkedHashMap<>();
    for (OptionSpec o : spec.options()) {
      if (!o.usageHelp() && !o.versionHelp()) {
        out.put(ConfigFile.key(o), String.valueOf((Object) o.getValue()));
      }
    }
    return out;
  }
}
