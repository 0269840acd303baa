package dev.pushgate.appliance;

import dev.pushgate.approvals.ApprovalDesk;
import dev.pushgate.approvals.webhooks.Webhooks;
import dev.pushgate.approvals.GatewayApprovals;
import dev.pushgate.appliance.audit.Sinks;
import dev.pushgate.appliance.control.ControlApi;
import dev.pushgate.appliance.control.RunApi;
import dev.pushgate.appliance.web.ApprovalsPage;
import dev.pushgate.approvals.signin.Sessions;
import dev.pushgate.approvals.signin.SignInTokens;
import dev.pushgate.approvals.fleet.Fleet;
import dev.pushgate.appliance.api.ApiBoundaries;
import dev.pushgate.forge.ForgeAppKey;
import dev.pushgate.forge.ForgeRepositories;
import dev.pushgate.forge.ForgeTokens;
import dev.pushgate.forge.LocalForge;
import dev.pushgate.appliance.launch.HookScript;
import dev.pushgate.appliance.launch.Launches;
import dev.pushgate.appliance.runs.RunGitConfigFiles;
import dev.pushgate.appliance.runs.RunSandbox;
import dev.pushgate.appliance.runs.RunUpstream;
import dev.pushgate.appliance.runs.Runs;
import dev.pushgate.appliance.runs.WorktreePushUrls;
import dev.pushgate.appliance.store.ApprovalStore;
import dev.pushgate.appliance.store.AuditChain;
import dev.pushgate.appliance.store.AuditStore;
import dev.pushgate.appliance.store.Database;
import dev.pushgate.appliance.store.FleetStore;
import dev.pushgate.appliance.store.ForgeTokenRows;
import dev.pushgate.appliance.store.HostId;
import dev.pushgate.appliance.store.Ledger;
import dev.pushgate.appliance.store.SecretBox;
import dev.pushgate.broker.AppCheck;
import dev.pushgate.broker.GitHubApp;
import dev.pushgate.broker.GitHubAppConfig;
import dev.pushgate.gateway.Gateway;
import dev.pushgate.gateway.GatewayConfig;
import dev.pushgate.gateway.UpstreamKeepAlive;
import dev.pushgate.http.HttpServer;
import dev.pushgate.gitconfig.GitHost;
import dev.pushgate.sandbox.LocalLauncher;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.unixdomain.server.UnixDomainServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jgit.util.FS;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: the database, the ledger and audit log, the broker, the run lifecycle,
 * the gateway and (without a GitHub App) the local forge, served on loopback; the control API on
 * a Unix socket only the appliance's user can open.
 */
public final class Appliance implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Appliance.class);

  /** How often the GitHub App's readiness is decided (docs/operations.md#readiness). */
  static final Duration READINESS_INTERVAL = Duration.ofSeconds(30);

  private final Settings settings;
  private final Duration readinessInterval;
  private final Readiness readiness = new Readiness();
  private final AppCheck appCheck = new AppCheck();
  private final Clock clock = Clock.systemUTC();
  private final List<AutoCloseable> resources = new ArrayList<>();
  private Server server;
  private Server control;
  /** The local forge as the gateway's upstream, on threads of its own; null with a GitHub App. */
  private Server forgeUpstream;
  private ScheduledExecutorService sweeper;
  private Runs runs;
  private ApprovalDesk desk;
  private Launches launches;
  private Gateway gateway;
  private ApprovalsPage approvalsPage;
  private FirstPushWarmup warmup;
  private int port;
  private volatile boolean ready;
  /** The rules of runs that bring none; a reload replaces them. */
  private final java.util.concurrent.atomic.AtomicReference<DefaultRules> defaultRules =
      new java.util.concurrent.atomic.AtomicReference<>();

  private Appliance(Settings settings, Duration readinessInterval) {
    this.settings = settings;
    this.readinessInterval = readinessInterval;
    this.defaultRules.set(settings.defaultRules());
  }

  /**
   * Applies what a reload (SIGHUP) may change while runs, pushes and questions go on: the default
   * rules of runs created from now on, and the approval timeout of questions asked from now on.
   * Everything else in {@code next} waits for a restart. {@code next} was checked as a start
   * checks its settings.
   */
  public void reload(Settings next) {
    defaultRules.set(next.defaultRules());
    desk.retime(next.approvalTimeout());
  }

  /** The settings keys {@link #reload} applies; the others need a restart. */
  public static final java.util.Set<String> RELOADABLE = java.util.Set.of("rules",
      "approval-timeout");

  /** Starts everything, or nothing: a failure stops what had started. */
  public static Appliance start(Settings settings, PrintStream out) throws Exception {
    return start(settings, out, READINESS_INTERVAL);
  }

  /** As {@link #start(Settings, PrintStream)}, deciding the App's readiness every {@code every}. */
  static Appliance start(Settings settings, PrintStream out, Duration every) throws Exception {
    Appliance a = new Appliance(settings, every);
    try {
      a.doStart(out);
      return a;
    } catch (IOException e) {
      a.close();
      throw portTaken(e, settings.bindHost(), settings.port());
    } catch (Exception e) {
      a.close();
      throw e;
    }
  }

  /**
   * Jetty's "Failed to bind to /127.0.0.1:7070" as what to do: the port is another program's (or
   * another appliance's), and {@code --port} picks another.
   */
  static IOException portTaken(IOException e, String host, int port) {
    Throwable cause = e;
    while (cause != null && !(cause instanceof java.net.BindException)) {
      cause = cause.getCause();
    }
    if (cause == null) {
      return e;
    }
    return new IOException("cannot listen on " + host + ":" + port + " (" + cause.getMessage()
        + "): another pushgate or another program has it. Stop that one, or start this one with"
        + " --port N (--port 0 picks a free port)", e);
  }

  /** The steps of a start, in order; each one adds what it opens to what {@link #close} stops. */
  private void doStart(PrintStream out) throws Exception {
    prepareProcess();
    Path dir = openDataDirectory();
    Store store = openStore(dir);
    Listeners listeners = openListeners(dir);
    ContextHandlerCollection contexts = new ContextHandlerCollection();
    Upstream upstream = chooseUpstream(dir, store.db(), listeners.base(), contexts);
    Metrics metrics = new Metrics();
    resources.add(metrics);
    GitHubApp broker = startBroker(upstream.brokerConfig(), metrics);
    RunSandbox sandbox = probeSandbox(dir, listeners);
    checkReadiness(store.db(), sandbox);
    startRuns(dir, store, broker, sandbox, upstream, listeners.base(), metrics);
    joinFleet(store);
    startGateway(dir, store, upstream, metrics, contexts);
    serveHttp(listeners, contexts, store.audit(), metrics);
    // after the server: the local forge's App API is served by it
    appCheck.start(broker, readinessInterval);
    runs.recover();
    Path socket = startControlApi(dir, store.audit(), upstream, listeners, sandbox.microVm());
    startSweeper();
    ready = true;
    announce(out, listeners, upstream, socket, store.db(), store.sinks(), sandbox);
    // after "ready": beside the first requests rather than before them (issue 33)
    warmup = FirstPushWarmup.start(gateway);
  }

  /** What the data directory holds for the appliance's life: the database and what lives in it. */
  private record Store(Database db, Ledger ledger, AuditStore audit, AuditChain chain,
      Sinks sinks) {}

  /** Where runs reach the appliance: the loopback port ({@code base}) and the sandboxes' socket. */
  private record Listeners(String base, UnixDomainServerConnector sandboxConnector,
      Path sandboxSockets, Path gatewaySocket) {}

  /**
   * Where runs' repositories live: the local forge, or a GitHub App's API and git host. {@code
   * gitHost} is the host whose pushes the runs' git config sends to the gateway, under its own
   * name: the local forge stands in for github.com, a GitHub App's git host is GitHub's or its
   * GHES's.
   */
  private record Upstream(GitHubAppConfig brokerConfig, String gitBaseUrl, String runFetchBase,
      GitHost gitHost, String forgeLine) {}

  private void prepareProcess() throws IOException {
    // JGit measures timestamp resolution on the common pool and waits for it; with 2 cores a
    // busy common pool would stall pushes.
    FS.FileStoreAttributes.setBackground(true);
    HostGitConfig.ignore();
    // before the gateway's first upstream request: the JDK reads it once
    UpstreamKeepAlive.apply();
    checkBindAddress();
  }

  private Path openDataDirectory() throws IOException {
    Path dir = DataDirectory.prepare(settings.dataDir());
    // First of all it holds, so closed last; and before anything is changed in the directory:
    // one another serve holds (its data or its runtime directory) is left as it is.
    resources.add(ServeLock.hold(dir, dir.resolve(DataDirectory.CONTROL_SOCKET),
        ServeLock.Kind.DATA));
    restrict(dir, "rwx------");
    return dir;
  }

  private Store openStore(Path dir) throws Exception {
    Database db = settings.databaseUrl() == null
        ? Database.open(dir.resolve("pushgate.db"))
        : Database.open(settings.databaseUrl());
    resources.add(db);
    if (settings.databaseUrl() == null) {
      restrict(dir.resolve("pushgate.db"), "rw-------");
    }
    String host = HostId.openOrCreate(dir.resolve("host.id"));
    Sinks sinks = settings.auditSinks().open(host);
    resources.add(sinks);
    // One chain for every audit writer of this appliance: decisions, outcomes, approvals, tokens.
    AuditChain chain = new AuditChain(db, host, sinks);
    Ledger ledger =
        new Ledger(db, SecretBox.openOrCreate(dir.resolve("ledger.key")), host, chain);
    return new Store(db, ledger, new AuditStore(chain), chain, sinks);
  }

  /** Binds the loopback port (so that {@link #port} is known) and prepares the sandbox socket. */
  private Listeners openListeners(Path dataDir) throws IOException {
    // The gateway's admitted requests and a reserve it cannot take (Limits.requestThreads).
    server = HttpServer.named("pushgate-http").threads(settings.limits().requestThreads(), 8)
        .stopTimeout(settings.shutdownGrace()).build();
    ServerConnector connector =
        HttpServer.tcp(server, settings.bindHost(), settings.port(), Duration.ofMinutes(2));
    connector.open();
    port = connector.getLocalPort();
    // The same handlers on a Unix socket that sandboxed runs are given, bridged inside to
    // 127.0.0.1:PORT (docs/sandbox.md). Outside the private data directory, so that the sandbox
    // user can reach it; it grants no more than the loopback port does.
    RuntimeDirectory runtime = RuntimeDirectory.open(settings.runtimeDir(), dataDir);
    Path sandboxSockets = runtime.dir();
    Path gatewaySocket = runtime.gatewaySocket();
    if (!runtime.temporary() && !Files.isSameFile(sandboxSockets, dataDir)) {
      // Closed after the socket is removed (resources close last first). A runtime directory
      // that is the data directory is held by the data directory's lock already.
      resources.add(ServeLock.hold(sandboxSockets, gatewaySocket, ServeLock.Kind.RUNTIME));
    }
    // a socket left by an appliance that crashed: binding over it would fail
    Files.deleteIfExists(gatewaySocket);
    resources.add(runtime::clean);
    UnixDomainServerConnector sandboxConnector =
        HttpServer.unixSocket(server, gatewaySocket, Duration.ofMinutes(2));
    // File descriptors are finite: past the cap no connection is accepted, and idle ones are
    // closed after a second, so that a flood of idle sockets gives way to requests that do
    // something. The control API is a server of its own and is not counted.
    NetworkConnectionLimit connectionLimit =
        new NetworkConnectionLimit(settings.limits().connections(), connector, sandboxConnector);
    connectionLimit.setEndPointIdleTimeout(Duration.ofSeconds(1).toMillis());
    server.addBean(connectionLimit);
    String base = "http://" + hostForUrl(settings.bindHost()) + ":" + port;
    return new Listeners(base, sandboxConnector, sandboxSockets, gatewaySocket);
  }

  /** Without a GitHub App, the local forge: its handler is the first one served. */
  private Upstream chooseUpstream(Path dir, Database db, String base,
      ContextHandlerCollection contexts) throws Exception {
    if (settings.github() != null) {
      GitHubAppConfig brokerConfig = settings.github();
      String gitBaseUrl = brokerConfig.gitHost().toString();
      return new Upstream(brokerConfig, gitBaseUrl, null, GitHost.of(gitBaseUrl),
          "GitHub App " + brokerConfig.appId() + " at " + brokerConfig.apiBaseUrl()
              + " (git host " + gitBaseUrl + ")");
    }
    ForgeRepositories repos = new ForgeRepositories(dir.resolve("forge"));
    ForgeAppKey appKey = ForgeAppKey.openOrCreate(dir.resolve("forge-app.pem"));
    LocalForge forge = new LocalForge(repos,
        new ForgeTokens(new ForgeTokenRows(db), clock, settings.forgeTokenLifetime()), appKey, clock);
    contexts.addHandler(forge.handler());
    String forgeUrl = base + LocalForge.CONTEXT_PATH;
    // What the gateway and the broker call, on a port and threads of their own: a sync or a
    // mint never waits for the request threads that wait on it (issue 35).
    String gitBaseUrl = serveForgeUpstream(forge) + LocalForge.CONTEXT_PATH;
    GitHubAppConfig brokerConfig = GitHubAppConfig.of(ForgeAppKey.APP_ID, appKey.privateKeyFile())
        .withApiBaseUrl(URI.create(gitBaseUrl + LocalForge.API_PATH))
        .withGitHost(URI.create(gitBaseUrl));
    return new Upstream(brokerConfig, gitBaseUrl, forgeUrl + "/", GitHost.GITHUB,
        "local forge at " + forgeUrl + "/ (the gateway's upstream at " + gitBaseUrl + "/)");
  }

  /**
   * The local forge on a loopback port of its own with its own request threads, for the
   * gateway's syncs, fetches and forwards and the broker's mints; the base URL. Without it, a
   * crowd of pushes to one repository held every request thread while the sync they waited for
   * needed one of them to be served (issue 35).
   */
  private String serveForgeUpstream(LocalForge forge) throws Exception {
    // As many as the gateway admits, each of which may be one request upstream, and a few for
    // the broker's mints and the API boundaries' calls.
    forgeUpstream = HttpServer.named("pushgate-forge")
        .threads(settings.limits().admission().admitted() + 16, 4).build();
    ServerConnector connector = HttpServer.tcp(forgeUpstream, settings.bindHost(), 0, null);
    forgeUpstream.setHandler(forge.handler());
    forgeUpstream.start();
    return "http://" + hostForUrl(settings.bindHost()) + ":" + connector.getLocalPort();
  }

  private GitHubApp startBroker(GitHubAppConfig brokerConfig, Metrics metrics) throws Exception {
    OkHttpClient http = new OkHttpClient.Builder().addInterceptor(metrics.githubCalls())
        .addInterceptor(appCheck.observer()).build();
    resources.add(() -> {
      http.dispatcher().executorService().shutdown();
      http.connectionPool().evictAll();
    });
    resources.add(appCheck);
    return GitHubApp.create(brokerConfig, http, clock);
  }

  /** {@code /readyz}: the start and stop, the database, the App, the sandbox. */
  private void checkReadiness(Database db, RunSandbox sandbox) throws IOException {
    DatabaseCheck database = new DatabaseCheck(db, Duration.ofSeconds(2));
    resources.add(database);
    readiness.check("appliance", () -> ready ? null : "starting or stopping")
        .check("database", database).check("github-app", appCheck)
        .check("sandbox", sandbox::notReady)
        .note("microvm", () -> sandbox.microVm().summary());
  }

  private RunSandbox probeSandbox(Path dir, Listeners listeners) {
    // The data directory holds the control socket, the keys and the forge; the socket directory
    // the gateway socket: a run never mounts either.
    return RunSandbox.probeHost(settings.sandbox(), List.of(dir, listeners.sandboxSockets()),
        settings.passEnv(), settings.microVm());
  }

  /** The run lifecycle and the approval desk its ask-first pushes and hooks wait at. */
  private void startRuns(Path dir, Store store, GitHubApp broker, RunSandbox sandbox,
      Upstream upstream, String base, Metrics metrics) {
    GitHost gitHost = upstream.gitHost();
    String fetchBase = upstream.runFetchBase();
    Runs.RunFiles files = new RunGitConfigFiles(base, gitHost, fetchBase);
    runs = new Runs(store.ledger(), broker, clock, new Runs.Settings(dir.resolve("runs"),
        settings.runTtl(), settings.maxRunTtl(), settings.refreshBefore(), files, sandbox,
        base + RunApi.HOOK_PATH, new WorktreePushUrls(base, gitHost), gitHost));
    desk = new ApprovalDesk(clock, settings.approvalTimeout(), Duration.ofSeconds(5),
        settings.approverPollGrace(), metrics.counting(new ApprovalStore(store.chain(), clock)),
        runs::isLive,
        settings.limits().questionsPerRun());
    runs.onEnded(desk::cancelRun);
    if (!settings.webhooks().webhooks().isEmpty()) {
      // closed after the desk: the ends of the questions it withdraws still go out
      Webhooks webhooks = new Webhooks(settings.webhooks(), Webhooks.Tuning.DEFAULT,
          metrics::onWebhookDelivery);
      resources.add(webhooks);
      desk.observe(webhooks);
      log.info("approval events go to webhooks: {}", settings.webhooks().describe());
    }
    metrics.gauge("pushgate.approvals.pending", "Questions waiting for an approver",
        () -> desk.heldHere(null).size());
    metrics.gauge("pushgate.runs.live", "Runs not yet ended", () -> runs.live().size());
  }

  private void startGateway(Path dir, Store store, Upstream upstream, Metrics metrics,
      ContextHandlerCollection contexts) {
    GitHost gitHost = upstream.gitHost();
    String gitBaseUrl = upstream.gitBaseUrl();
    AuditStore audit = store.audit();
    gateway = new Gateway(
        new GatewayConfig(gitHost.segment(), dir.resolve("cache"),
            settings.maxPackBytes(), settings.clientTimeout(), settings.upstreamTimeout(), clock,
            settings.writeTokensPerMinute()),
        runs, new RunUpstream(runs, gitBaseUrl), audit, new GatewayApprovals(desk), metrics)
        .limitRequestsPerRun(settings.limits().requestsPerRun())
        .admit(settings.limits().admission());
    contexts.addHandler(gateway.handler());
    runs.onEnded(gateway::runEnded); // the tokens minted for a run's next pushes go with it
    metrics.gauge("pushgate.git.requests.admitted",
        "Git requests the gateway has admitted and not yet ended", gateway::admittedRequests);
    if (Runs.GITHUB_API_BOUNDARY) {
      ApiBoundaries boundaries = GitHubApiBoundaries.wire(upstream.brokerConfig(), runs, desk,
          audit, gateway, settings.writeTokensPerMinute(), clock);
      resources.add(boundaries);
      runs.useApiBoundaries(boundaries);
      log.info("GitHub API boundary on: runs hold a sentinel, not a GitHub token");
    }
  }

  /** The loopback port and the sandbox socket: gateway, forge, health, metrics, the runs' API. */
  private void serveHttp(Listeners listeners, ContextHandlerCollection contexts, AuditStore audit,
      Metrics metrics) throws Exception {
    contexts.addHandler(HealthEndpoints.healthz(() -> ready));
    contexts.addHandler(HealthEndpoints.readyz(readiness));
    contexts.addHandler(HealthEndpoints.plainText("/metrics", metrics::scrape));
    ContextHandler runApi =
        new ContextHandler(new RunApi(runs, desk, settings.hookAsk(), audit, clock,
            settings.limits().hookCallsPerRun(), settings.limits().hookBodyTimeout())
            .countingHookDecisions(metrics::onHookDecision), "/v1");
    contexts.addHandler(runApi);
    contexts.addHandler(approvalsPage(audit));
    // Graceful stop: new requests are refused while those in flight finish (or fail) cleanly.
    server.setHandler(new GracefulHandler(
        new SandboxSocket(listeners.sandboxConnector(), settings.github() == null, contexts)));
    server.start();
    restrict(listeners.gatewaySocket(), "rw-rw-rw-");
  }

  /**
   * The approvers' web page (docs/approvals.md): sessions start from links the control API
   * issues. Behind {@link SandboxSocket}, which does not serve it to sandboxes.
   */
  private Handler approvalsPage(AuditStore audit) {
    approvalsPage = new ApprovalsPage(desk, audit,
        q -> gateway.diffstat(q.repository(), q.ref(), q.oldId(), q.newId(),
            runs.contentRulesOf(q.runId()).orElse(null)),
        new RunAskers(runs),
        new SignInTokens(clock, SignInTokens.DEFAULT_LIFETIME),
        new Sessions(clock, Sessions.DEFAULT_IDLE, Sessions.DEFAULT_ABSOLUTE),
        settings.bindHost(), port, Duration.ofSeconds(10));
    ContextHandler context = new ContextHandler(approvalsPage, ApprovalsPage.PATH);
    context.setAllowNullPathInContext(true);
    return context;
  }

  /**
   * On PostgreSQL, this appliance is one of a fleet: questions, approvers and run teardowns are
   * shared with the others on the database (docs/operations.md#a-fleet-on-one-database).
   */
  private void joinFleet(Store store) throws Exception {
    if (store.db().dialect() != Database.Dialect.POSTGRESQL) {
      return;
    }
    runs.shareLedger();
    FleetStore tables = FleetStore.open(store.db(), store.chain().host());
    Fleet fleet = Fleet.join(tables, desk, new Fleet.RunsHere() {
      @Override
      public java.util.Set<String> liveIds() {
        return runs.liveIds();
      }

      @Override
      public boolean endedElsewhere(String runId) {
        return runs.endedElsewhere(runId);
      }
    });
    resources.add(fleet);
    runs.onEndRecorded(fleet::runEnded);
  }

  /** The control API on a Unix socket in the data directory, which only our user can open. */
  private Path startControlApi(Path dir, AuditStore audit, Upstream upstream, Listeners listeners,
      dev.pushgate.sandbox.MicroVmStatus microVm)
      throws Exception {
    Path socket = dir.resolve(DataDirectory.CONTROL_SOCKET);
    // a socket left by an appliance that crashed (a live one's was refused by the ServeLock)
    Files.deleteIfExists(socket);
    control = HttpServer.named("pushgate-control").threads(64, 2).build();
    HttpServer.unixSocket(control, socket, null);
    launches = new Launches(runs, new LocalLauncher(LocalLauncher.Settings.defaults()),
        HookScript.write(dir.resolve("launch")), gatewayUrl(listeners, upstream),
        listeners.gatewaySocket(), Launches.DEFAULT_MAX);
    runs.onEnded(launches::onRunEnded);
    control.setHandler(new ControlApi(runs, audit, desk, gatewayUrl(listeners, upstream),
        upstream.gitHost().baseUrl(), defaultRules::get, listeners.gatewaySocket(), launches,
        microVm).servingApprovalsPage(approvalsPage));
    control.start();
    restrict(socket, "rw-------");
    return socket;
  }

  /** Ends expired runs, retries revocations and refreshes read tokens, every sweep interval. */
  private void startSweeper() {
    sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "pushgate-sweeper");
      t.setDaemon(true);
      return t;
    });
    long every = settings.sweepInterval().toMillis();
    sweeper.scheduleWithFixedDelay(runs::sweep, every, every, TimeUnit.MILLISECONDS);
  }

  private void announce(PrintStream out, Listeners listeners, Upstream upstream, Path socket,
      Database db, Sinks sinks, RunSandbox sandbox) {
    out.println("pushgate gateway at " + gatewayUrl(listeners, upstream));
    out.println("pushgate control API on " + socket);
    out.println("pushgate gateway socket for sandboxes at " + listeners.gatewaySocket());
    out.println("pushgate upstream: " + upstream.forgeLine());
    out.println("pushgate database: " + db.describe());
    out.println("pushgate audit sinks: " + sinks);
    out.println(sandbox.startupLine(settings.sandboxSource()));
    out.println(sandbox.microVmLine());
    out.flush();
    // the same checks as /readyz, so that this line and its answer agree
    String problems = readiness.problems();
    if (problems == null) {
      log.info("pushgate ready on {}", listeners.base());
    } else {
      log.warn("pushgate serving on {} but not ready ({}/readyz answers 503): {}",
          listeners.base(), listeners.base(), problems);
    }
  }

  private static String gatewayUrl(Listeners listeners, Upstream upstream) {
    return listeners.base() + Gateway.CONTEXT_PATH + "/" + upstream.gitHost().segment() + "/";
  }

  public int port() {
    return port;
  }

  /** Blocks until the appliance stops. */
  public void join() throws InterruptedException {
    server.join();
  }

  @Override
  public void close() {
    long began = System.nanoTime();
    ready = false;
    // server is null when start-up failed before the listeners were made (an untrusted data
    // directory, say): the error that stopped it must reach the operator, not a null dereference.
    if (server != null && server.isStarted()) {
      log.info("pushgate stopping: held pushes are refused, pushes in flight finish");
    } else {
      log.info("pushgate did not start: closing what had opened");
    }
    if (warmup != null) {
      warmup.stop();
    }
    if (desk != null) {
      desk.close("the appliance is shutting down");
    }
    awaitHeldPushesAnswered();
    if (server != null) {
      // The grace bounds the whole stop (systemd's TimeoutStopSec allows twice the default): the
      // server's graceful stop gets what the held pushes left of it.
      long left = settings.shutdownGrace().toMillis()
          - Duration.ofNanos(System.nanoTime() - began).toMillis();
      server.setStopTimeout(Math.max(1, left));
    }
    if (sweeper != null) {
      sweeper.shutdownNow();
    }
    if (launches != null) {
      launches.close(); // the commands launched over the control API end with the appliance
    }
    stop(control);
    stop(server);
    stop(forgeUpstream); // after the server: pushes finishing during its stop forward upstream
    if (runs != null) {
      runs.close(); // before the database closes: revocations under way still record
    }
    for (int i = resources.size() - 1; i >= 0; i--) {
      try {
        resources.get(i).close();
      } catch (Exception e) {
        log.warn("error while closing: {}", e.getMessage());
      }
    }
  }

  /**
   * Before the connectors stop: their graceful stop cuts every connection's idle timeout to a
   * second, and a held push's connection has been silent since its last progress line, so a
   * refusal being written as the stop began was cut off (Gateway#awaitHeldPushesAnswered).
   */
  private void awaitHeldPushesAnswered() {
    if (gateway == null) {
      return;
    }
    try {
      if (!gateway.awaitHeldPushesAnswered(settings.shutdownGrace())) {
        log.warn("stopping before every held push's refusal was written: still writing after {}",
            settings.shutdownGrace());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void checkBindAddress() throws IOException {
    InetAddress address = InetAddress.getByName(settings.bindHost());
    if (!address.isLoopbackAddress() && !settings.allowNonLoopback()) {
      throw new IllegalArgumentException("refusing to listen on " + settings.bindHost()
          + ": the gateway is a loopback service. Use 127.0.0.1, or pass --allow-non-loopback"
          + " if you really mean to expose it");
    }
  }

  private static String hostForUrl(String host) {
    return host.contains(":") ? "[" + host + "]" : host;
  }

  private static void restrict(Path p, String mode) throws IOException {
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode));
  }

  private static void stop(Server s) {
    if (s == null) {
      return;
    }
    try {
      s.stop();
    } catch (Exception e) {
      log.warn("error while stopping the server: {}", e.getMessage());
    }
  }
}
