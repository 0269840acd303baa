package dev.pushgate.appliance.cli;

import ch.qos.logback.classic.Level;
import dev.pushgate.appliance.Appliance;
import dev.pushgate.appliance.DefaultRules;
import dev.pushgate.appliance.Settings;
import dev.pushgate.appliance.runs.Runs;
import dev.pushgate.demo.Demo;
import dev.pushgate.demo.DemoHost;
import dev.pushgate.demo.Story;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code pushgate demo}: the command around the {@code demo} module's story ({@link Demo}); this
 * appliance is its {@link DemoHost}, started in this process on a temporary data directory.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
        "Try pushgate: one agent run on a throw-away appliance, told with the real git client.",
        "Starts an appliance with its local forge on a temporary directory and walks through"
            + " one run: clone through a GitHub URL (through pushgate: the run holds no GitHub"
            + " token, only a sentinel GitHub refuses), push a branch (it lands), push"
            + " main (refused), an ask-first push approved by the demo's own approver, a force"
            + " push (refused), teardown, the run's credential refused, and the audit of refused"
            + " pushes.",
        "Needs git on the PATH; no network, no GitHub App. Exits 0 only when every step"
            + " behaved as described, 1 naming the step that did not."},
    footer = {"", "Examples:", "  pushgate demo",
        "  pushgate demo --keep       # keep the temporary directory to look around",
        "  pushgate demo --port 7171  # on a port of your choice (default: a free one)",
        "  pushgate demo --verbose    # with the appliance's own log lines (on stderr)"})
final class DemoCommand implements Callable<Integer> {
  @Option(names = "--keep",
      description = "Keep the temporary directory (data directory and clone) and say where it is.")
  boolean keep;

  @Option(names = "--verbose", description = "Show the appliance's log lines (on stderr).")
  boolean verbose;

  @Option(names = "--port", paramLabel = "N",
      description = "The throw-away appliance's port on 127.0.0.1 (default: 0, a free one).")
  int port;

  @Override
  public Integer call() throws Exception {
    PrintStream out = Stdio.out();
    if (!verbose) {
      quietLogs();
    }
    Story.Outcome outcome = Demo.tellOnce(new Host(), out, port, keep);
    return outcome.passed() ? 0 : 1;
  }

  /** The appliance's info lines would break up the story; its warnings and errors still show. */
  private static void quietLogs() {
    if (LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)
        instanceof ch.qos.logback.classic.Logger root) {
      root.setLevel(Level.WARN);
    }
  }

  /**
   * The appliance's settings for the demo: its defaults, on {@code port} (0: a free one), with a
   * short wait.
   */
  static Settings settings(Path dataDir, int port) {
    Settings d = Settings.defaults(dataDir);
    return new Settings(dataDir, "127.0.0.1", port, false, null, d.runTtl(), d.maxRunTtl(),
        d.refreshBefore(), d.forgeTokenLifetime(), d.maxPackBytes(), d.clientTimeout(),
        d.upstreamTimeout(), d.sweepInterval(), Duration.ofSeconds(5), d.sandbox(),
        Duration.ofSeconds(30), d.approverPollGrace(), d.hookAsk(), null, DefaultRules.NONE,
        d.writeTokensPerMinute(), d.limits(),
        d.passEnv(), d.auditSinks(), null, d.webhooks(), null);
  }

  /** This appliance as the demo's host: started in this process, reached over its socket. */
  private static final class Host implements DemoHost {
    @Override
    public Running start(Path dataDir, int port, PrintStream startup) throws Exception {
      Appliance appliance = Appliance.start(settings(dataDir, port), startup);
      ControlSocket control;
      try {
        control = ControlSocket.open(dataDir);
      } catch (Exception e) {
        appliance.close();
        throw e;
      }
      return new Running() {
        @Override
        public int port() {
          return appliance.port();
        }

        @Override
        public ControlApi control() {
          return control;
        }

        @Override
        public void close() throws Exception {
          try (appliance) {
            control.close();
          }
        }
      };
    }

    @Override
    public boolean githubApiBoundary() {
      return Runs.GITHUB_API_BOUNDARY;
    }

    @Override
    public String failure(Throwable e) {
      return Failure.message(e);
    }
  }
}
