package dev.pushgate.appliance.cli;

import dev.pushgate.appliance.Appliance;
import dev.pushgate.appliance.DefaultRules;
import dev.pushgate.appliance.Limits;
import dev.pushgate.appliance.Settings;
import dev.pushgate.appliance.audit.SinkSettings;
import dev.pushgate.appliance.control.RunApi;
import dev.pushgate.appliance.logging.LogLevel;
import dev.pushgate.approvals.webhooks.WebhookSettings;
import dev.pushgate.appliance.store.Database;
import dev.pushgate.broker.AppKeyLoader;
import dev.pushgate.broker.GitHubAppConfig;
import dev.pushgate.gitconfig.GitHost;
import dev.pushgate.sandbox.PassedVariables;
import dev.pushgate.sandbox.SandboxSwitch;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pushgate serve}: runs the appliance until stopped. */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = "Run the appliance: the push gateway on loopback, the control API on a Unix"
        + " socket, and the local forge when no GitHub App is configured.",
    footer = {"", "Examples:", "  pushgate serve",
        "  pushgate serve --data-dir /var/lib/pushgate --port 7070",
        "  pushgate serve --github-app-id 123456 --github-app-key /etc/pushgate/app.pem",
        "  PUSHGATE_DATABASE_URL=postgresql://pushgate:PASSWORD@db.internal:5432/pushgate pushgate serve"})
final class ServeCommand implements Callable<Integer> {
  @Option(names = "--data-dir", defaultValue = "pushgate-data",
      description = "Data directory (database, ledger key, caches, control socket). Default: ${DEFAULT-VALUE}")
  Path dataDir;

  @Option(names = "--port", defaultValue = "7070",
      description = "Loopback port for the gateway and the local forge (0 picks a free one). Default: ${DEFAULT-VALUE}")
  int port;

  @Option(names = "--bind", defaultValue = "127.0.0.1", description = "Address to listen on. Default: ${DEFAULT-VALUE}")
  String bind;

  @Option(names = "--allow-non-loopback", description = "Allow --bind to a non-loopback address.")
  boolean allowNonLoopback;

  @Option(names = "--run-ttl", defaultValue = "8h", converter = Units.DurationConverter.class,
      description = "Default lifetime of a run. Default: ${DEFAULT-VALUE}")
  Duration runTtl;

  @Option(names = "--forge-token-lifetime", defaultValue = "1h",
      converter = Units.DurationConverter.class,
      description = "Lifetime of the local forge's installation tokens. Default: ${DEFAULT-VALUE}")
  Duration forgeTokenLifetime;

  @Option(names = "--refresh-before", defaultValue = "10m",
      converter = Units.DurationConverter.class,
      description = "Re-issue a run's read token this long before it expires. Default: ${DEFAULT-VALUE}")
  Duration refreshBefore;

  @Option(names = "--max-pack-size", defaultValue = "2g", converter = Units.SizeConverter.class,
      description = "Largest pack one push may send. Default: ${DEFAULT-VALUE}")
  long maxPackBytes;

  @Option(names = "--max-write-tokens-per-minute", defaultValue = "20", paramLabel = "N",
      description = "Write tokens one run may have the gateway mint in a minute (a burst of N, then N a minute); a push past it is refused. Default: ${DEFAULT-VALUE}")
  int maxWriteTokensPerMinute;

  @Option(names = "--client-timeout", defaultValue = "2m",
      converter = Units.DurationConverter.class,
      description = "How long the gateway waits on a silent git client before it ends the push. Default: ${DEFAULT-VALUE}")
  Duration clientTimeout;

  @Option(names = "--upstream-timeout", defaultValue = "5m",
      converter = Units.DurationConverter.class,
      description = "How long the gateway waits on a silent upstream (sync or forward). Default: ${DEFAULT-VALUE}")
  Duration upstreamTimeout;

  @Option(names = "--sweep-interval", defaultValue = "5s", converter = Units.DurationConverter.class,
      description = "How often expired runs are ended and failed revocations retried. Default: ${DEFAULT-VALUE}")
  Duration sweepInterval;

  @Option(names = "--sandbox", paramLabel = "on|off",
      description = "Wrap runs in the OS sandbox when the host offers one (on, the default), or"
          + " never (off). Also CC_SERVER_SANDBOX.")
  String sandbox;

  @Option(names = "--approval-timeout", defaultValue = "5m",
      converter = Units.DurationConverter.class,
      description = "How long an ask-first push is held for an approver before it is denied. Default: ${DEFAULT-VALUE}")
  Duration approvalTimeout;

  @Option(names = "--approver-poll-grace", defaultValue = "10s",
      converter = Units.DurationConverter.class,
      description = "How long after a long poll of /v1/approvals an approver still counts as"
          + " connected; with none connected, an ask-first push is denied at once."
          + " Default: ${DEFAULT-VALUE}")
  Duration approverPollGrace;

  @Option(names = "--hook-ask", defaultValue = "approvers", paramLabel = "approvers|passthrough",
      description = "What the Claude Code hook does with ask: hold it for pushgate's approvers"
          + " (default), or pass it through to Claude Code.")
  String hookAsk;

  @Option(names = "--max-connections", defaultValue = "0", paramLabel = "N",
      description = "Connections the loopback port and the sandbox socket hold at once; past"
          + " it, idle ones are closed after 1 s. 0: half the file descriptor limit, at most 4096."
          + " Default: ${DEFAULT-VALUE}")
  int maxConnections;

  @Option(names = "--max-run-requests", defaultValue = "16", paramLabel = "N",
      description = "Git requests one run may have in flight at once; more get 429."
          + " Default: ${DEFAULT-VALUE}")
  int maxRunRequests;

  @Option(names = "--max-run-hook-calls", defaultValue = "16", paramLabel = "N",
      description = "Claude Code hook calls one run may have in flight at once, held questions"
          + " included; more are denied. Default: ${DEFAULT-VALUE}")
  int maxRunHookCalls;

  @Option(names = "--max-run-questions", defaultValue = "8", paramLabel = "N",
      description = "Questions one run may have waiting for an approver at once; more are denied"
          + " unasked. Default: ${DEFAULT-VALUE}")
  int maxRunQuestions;

  @Option(names = "--max-git-requests", defaultValue = "128", paramLabel = "N",
      description = "Git requests of all runs the gateway works on at once; more are shed at once"
          + " with 429 (or a refusal per ref) that says to retry. Default: ${DEFAULT-VALUE}")
  int maxGitRequests;

  @Option(names = "--max-repository-waiters", defaultValue = "64", paramLabel = "N",
      description = "Git requests that may wait at once for one repository while another syncs"
          + " it from upstream; more are shed at once. Default: ${DEFAULT-VALUE}")
  int maxRepositoryWaiters;

  @Option(names = "--repository-wait", defaultValue = "20s",
      converter = Units.DurationConverter.class,
      description = "How long a git request waits for its repository before it is shed."
          + " Default: ${DEFAULT-VALUE}")
  Duration repositoryWait;

  @Option(names = "--hook-body-timeout", defaultValue = "10s",
      converter = Units.DurationConverter.class,
      description = "How long a hook call's whole body may take to arrive before the call is"
          + " denied. Default: ${DEFAULT-VALUE}")
  Duration hookBodyTimeout;

  @Option(names = "--log-format", defaultValue = "text", paramLabel = "text|json",
      description = "Log lines as text (default) or one JSON object a line. Secrets are redacted in both.")
  String logFormat;

  @Option(names = "--log-level", defaultValue = "info", paramLabel = "error|warn|info|debug",
      description = "The least severe log lines written. Also PUSHGATE_LOG_LEVEL."
          + " Default: ${DEFAULT-VALUE}")
  String logLevel;

  @Option(names = "--database-url", paramLabel = "URL",
      description = "Where the ledger and audit log live: SQLite in the data directory (default),"
          + " a SQLite file path, or postgresql://USER:PASSWORD@HOST:PORT/DATABASE for a fleet."
          + " Also PUSHGATE_DATABASE_URL, which keeps the password off the command line.")
  String databaseUrl;

  @Option(names = "--audit-file", paramLabel = "FILE",
      description = "Also append every audit record to FILE as a JSON line, forced to disk before"
          + " the decision is answered; a decision whose line cannot be written is refused"
          + " (docs/audit.md).")
  Path auditFile;

  @Option(names = "--audit-syslog", paramLabel = "HOST:PORT",
      description = "Also send every audit record to syslog at HOST:PORT (RFC 5424 over UDP,"
          + " best effort), e.g. 127.0.0.1:514.")
  String auditSyslog;

  @Option(names = "--webhooks", paramLabel = "JSON",
      description = "Where approval events (a question asked, a question ended) are posted: a"
          + " JSON list of {\"url\": ..., \"format\": \"generic\"|\"slack\", \"secret\": ...}"
          + " (docs/operations.md#webhooks). Best as the file's webhooks: list or"
          + " PUSHGATE_WEBHOOKS: the URLs and secrets stay off the command line.")
  String webhooks;

  @Option(names = "--github-app-id", description = "GitHub App ID or client ID; with --github-app-key, serve against GitHub instead of the local forge.")
  String githubAppId;

  @Option(names = "--github-app-key", description = "The GitHub App's private key (PEM, mode 0600).")
  Path githubAppKey;

  @Option(names = "--github-api-url", defaultValue = "https://api.github.com",
      description = "GitHub API base URL (GitHub Enterprise Server: https://HOST/api/v3). Default: ${DEFAULT-VALUE}")
  URI githubApiUrl;

  @Option(names = "--github-host", defaultValue = "https://github.com",
      description = "Where repositories are fetched and pushed (GitHub Enterprise Server:"
          + " https://HOST); the runs' pushes to this host go through the gateway."
          + " Default: ${DEFAULT-VALUE}")
  URI githubHost;

  @Option(names = "--runtime-dir", paramLabel = "DIR",
      description = "Where the gateway socket for sandboxed runs lives (made 0750 when missing;"
          + " it must be the appliance user's alone). Default: a new directory under the JVM's"
          + " temporary directory. The systemd unit gives its RuntimeDirectory, /run/pushgate.")
  Path runtimeDir;

  @picocli.CommandLine.Mixin MicroVmOptions microVm = new MicroVmOptions();

  @Option(names = "--config", paramLabel = "FILE",
      description = "YAML configuration file. Default: DATA-DIR/pushgate.yaml when it exists."
          + " Precedence: flags > PUSHGATE_* environment > file > defaults.")
  Path config;

  @Option(names = "--pass-env", split = ",", paramLabel = "NAME",
      description = "A variable of the launcher's environment that runs get, on top of PATH, HOME,"
          + " USER, SHELL, LANG, LC_*, TERM, TZ, TMPDIR and git's author and committer; every"
          + " other variable is dropped. Repeatable, or comma-separated. Example: ANTHROPIC_API_KEY")
  List<String> passEnv = new ArrayList<>();

  @Option(names = "--rules", paramLabel = "FILE",
      description = "Workspace rules (YAML or JSON) for runs whose request brings none.")
  Path rules;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  /** The command line after {@code serve}, as given: a reload parses it again. */
  String[] args = new String[0];

  @Override
  public Integer call() throws Exception {
    Settings settings = settings();
    LogLevel.apply(logLevel);
    Appliance appliance = Appliance.start(settings, System.out);
    Runtime.getRuntime().addShutdownHook(new Thread(appliance::close, "pushgate-shutdown"));
    new Reloader(args, appliance, spec).onHangUp();
    appliance.join();
    return 0;
  }

  /**
   * The address to listen on: it must resolve, and be loopback unless allowed. The appliance
   * checks the same when it binds; checked here too so that {@code config check} and a reload
   * refuse it, as they share this method with a start.
   */
  private void checkBind(boolean localForge) {
    java.net.InetAddress address;
    try {
      address = java.net.InetAddress.getByName(bind);
    } catch (java.net.UnknownHostException e) {
      throw new IllegalArgumentException("--bind " + bind + " is not an address of this host");
    }
    if (!address.isLoopbackAddress() && !allowNonLoopback) {
      throw new IllegalArgumentException("refusing to listen on " + bind + ": the gateway is a"
          + " loopback service. Use 127.0.0.1, or pass --allow-non-loopback if you really mean to"
          + " expose it");
    }
    if (!address.isLoopbackAddress() && localForge) {
      throw new IllegalArgumentException("refusing to listen on " + bind + ": the local forge"
          + " serves on loopback only (its tokens would travel in clear). Give the GitHub App"
          + " (--github-app-id and --github-app-key) to listen elsewhere");
    }
  }

  /**
   * The settings these options make; every value is checked here, before anything starts. {@code
   * serve}, its reload and {@code config check} all call this one method, so they refuse alike.
   */
  Settings settings() throws Exception {
    if (!logFormat.equals("text") && !logFormat.equals("json")) {
      throw new IllegalArgumentException("--log-format takes text or json, not: " + logFormat);
    }
    LogLevel.check(logLevel);
    GitHubAppConfig github = null;
    if (githubAppId != null || githubAppKey != null) {
      if (githubAppId == null || githubAppKey == null) {
        throw new IllegalArgumentException(
            "--github-app-id and --github-app-key go together; give both, or neither for the local forge");
      }
      github = GitHubAppConfig.of(githubAppId, githubAppKey).withApiBaseUrl(githubApiUrl)
          .withGitHost(githubHost);
      // the runs' git config and the gateway name this host: refused here, before anything starts
      GitHost.of(github.gitHost().toString());
      AppKeyLoader.load(githubAppKey); // a missing, open or foreign key file, named now
    }
    checkBind(github == null);
    String database = databaseUrl != null ? databaseUrl : System.getenv("PUSHGATE_DATABASE_URL");
    if (database != null) {
      Database.describeUrl(database); // a bad URL is named (redacted) before anything starts
    }
    Settings d = Settings.defaults(dataDir);
    Settings settings = new Settings(dataDir, bind, port, allowNonLoopback, github, runTtl,
        d.maxRunTtl(), refreshBefore, forgeTokenLifetime, maxPackBytes, clientTimeout,
        upstreamTimeout, sweepInterval, d.shutdownGrace(),
        SandboxSwitch.resolve(sandbox, System.getenv(SandboxSwitch.ENV)), approvalTimeout,
        approverPollGrace,
        switch (hookAsk) {
          case "approvers" -> RunApi.HookAsk.APPROVERS;
          case "passthrough" -> RunApi.HookAsk.PASSTHROUGH;
          default -> throw new IllegalArgumentException(
              "--hook-ask takes approvers or passthrough, not: " + hookAsk);
        },
        database,
        rules == null ? DefaultRules.NONE : DefaultRules.read(rules), maxWriteTokensPerMinute,
        new Limits(maxConnections, maxRunRequests, maxRunHookCalls, maxRunQuestions,
            hookBodyTimeout, new dev.pushgate.gateway.AdmissionLimits(maxGitRequests,
                maxRepositoryWaiters, repositoryWait)),
        PassedVariables.of(passEnv), new SinkSettings(auditFile, auditSyslog), runtimeDir,
        WebhookSettings.parse(webhooks), sandboxSource(),
        microVm.host());
    return settings;
  }

  /**
   * Where the sandbox setting came from, for the start-up line: the flag, {@code
   * PUSHGATE_SANDBOX}, the configuration file or {@code CC_SERVER_SANDBOX}, as {@link
   * ConfigFile#sourceOf} tells them apart (the same answer {@code config check} prints); null
   * when the setting is the default.
   */
  private String sandboxSource() {
    if (sandbox == null) {
      String cc = System.getenv(SandboxSwitch.ENV);
      return cc == null || cc.isEmpty() ? null : SandboxSwitch.ENV + "=" + cc.strip();
    }
    String value = sandbox.strip();
    if (!(spec.commandLine().getDefaultValueProvider() instanceof ConfigFile file)
        || args == null) {
      return null; // not started by Main: where it came from is not known
    }
    return switch (file.sourceOf(spec.findOption(SandboxSwitch.FLAG), args)) {
      case FLAG -> SandboxSwitch.FLAG + " " + value;
      case ENV -> ConfigFile.envName("sandbox") + "=" + value;
      case FILE -> "sandbox: " + value + " in " + file.file();
      case DEFAULT -> null;
    };
  }
}
