package dev.pushgate.gateway;

import jakarta.servlet.DispatcherType;
import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import org.eclipse.jgit.lib.Repository;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.util.Objects;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.util.component.LifeCycle;
import org.eclipse.jgit.http.server.GitServlet;

/**
 * The git gateway: JGit smart HTTP mounted at {@code /git}, behind run authentication. Pushes
 * (receive-pack) are judged and forwarded upstream with a write token minted for them; reads
 * (upload-pack: clone, fetch, ls-remote) are served from the gateway's cache, synced with upstream
 * first, so the run needs no token of its own. Its threads stop when its {@link #handler} stops,
 * or on {@link #close}.
 */
public final class Gateway implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Gateway.class);
  public static final String CONTEXT_PATH = "/git";
  /** Git requests one run may have in flight at once, unless the appliance says otherwise. */
  public static final int DEFAULT_REQUESTS_PER_RUN = 16;

  private final GatewayConfig config;
  private final RunAuthenticator authenticator;
  private final UpstreamAccess upstream;
  private final AuditLog audit;
  private final Approvals approvals;
  private final PushMetrics metrics;
  private int requestsPerRun = DEFAULT_REQUESTS_PER_RUN;
  private AdmissionLimits admission = AdmissionLimits.DEFAULTS;
  /** The gateway's admission, once {@link #handler()} made it. */
  private volatile GatewayAdmission admitted;
  private final GatewayThreads threads = new GatewayThreads();
  private final HeldPushes held = new HeldPushes();
  private UpstreamCache cache;
  private volatile PreMints preMints = PreMints.off();

  public Gateway(GatewayConfig config, RunAuthenticator authenticator, UpstreamAccess upstream,
      AuditLog audit, Approvals approvals, PushMetrics metrics) {
    this.config = Objects.requireNonNull(config, "config");
    this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
    this.upstream = Objects.requireNonNull(upstream, "upstream");
    this.audit = Objects.requireNonNull(audit, "audit");
    this.approvals = approvals == null ? Approvals.NONE : approvals;
    this.metrics = metrics == null ? PushMetrics.NONE : metrics;
  }

  /** At most {@code n} git requests of one run at once; more are refused with 429. */
  public Gateway limitRequestsPerRun(int n) {
    this.requestsPerRun = new RunSlots(n).perRun();
    return this;
  }

  /**
   * How many git requests of all runs the gateway works on at once, and how many may wait for one
   * repository and how long; more are shed at once with a message that says to retry.
   */
  public Gateway admit(AdmissionLimits limits) {
    this.admission = Objects.requireNonNull(limits, "limits");
    return this;
  }

  /** Git requests admitted now and not yet ended, of every run (0 before {@link #handler()}). */
  public int admittedRequests() {
    GatewayAdmission a = admitted;
    return a == null ? 0 : a.held();
  }

  /**
   * Waits, for at most {@code within}, until every push that asked a person has written its answer
   * and closed; whether all have. The appliance's stop calls it after it withdrew the questions,
   * before its connectors stop ({@link HeldPushes}).
   */
  public boolean awaitHeldPushesAnswered(Duration within) throws InterruptedException {
    return held.awaitAnswered(within);
  }

  /** A servlet context serving the gateway under {@link #CONTEXT_PATH}. */
  public ServletContextHandler handler() {
    int upstreamSeconds = (int) Math.min(Integer.MAX_VALUE,
        Math.max(1, config.upstreamTimeout().toSeconds()));
    if (cache != null) {
      throw new IllegalStateException("a gateway serves one handler");
    }
    // before anything serves: no fetch or receive can be writing a spool file yet
    CacheLeftovers.sweep(config.cacheDir());
    cache = new UpstreamCache(config.cacheDir(), upstreamSeconds, config.maxPackBytes(),
        metrics, admission);
    SecretScanner.standard(); // read and compile the detectors now, not in the first push
    UpstreamAccess budgeted = new BudgetedUpstream(upstream,
        new MintBudget(config.writeTokensPerMinute(), config.clock()), metrics);
    GatewayServices services = new GatewayServices(config, budgeted, audit, approvals, metrics,
        new Forwarder(upstreamSeconds), cache, threads, held);
    preMints = new PreMints(budgeted, threads.minting(), threads.ticker());
    GitServlet git = new GitServlet();
    git.setRepositoryResolver(new GatewayResolver(cache));
    git.setReceivePackErrorHandler(new ReceiveErrors(config.maxPackBytes() + (1 << 20)));
    git.setReceivePackFactory(new GatewayReceivePackFactory(services));
    git.setUploadPackFactory(new GatewayUploadPackFactory(cache));
    git.setUploadPackErrorHandler(new FetchErrors());
    ServletContextHandler context = new ServletContextHandler(CONTEXT_PATH);
    admitted = new GatewayAdmission(admission);
    context.addFilter(new FilterHolder(new GatewayFilter(services, authenticator, admitted,
        new RunSlots(requestsPerRun), preMints)), "/*",
        EnumSet.of(DispatcherType.REQUEST));
    context.addServlet(new ServletHolder("git", git), "/*");
    context.addEventListener(new LifeCycle.Listener() {
      @Override
      public void lifeCycleStopping(LifeCycle event) {
        // Judgements under way see it at their next step and end: nobody will get their answer.
        threads.close();
      }

      @Override
      public void lifeCycleStopped(LifeCycle event) {
        close();
      }
    });
    return context;
  }

  /**
   * Opens the caches this data directory holds, most recently written first, and reads their refs
   * and pack indexes ({@link UpstreamCache#warm}), while {@code more} says to go on: what the
   * first push to each after a start would otherwise do on its path. The number warmed; a cache
   * that cannot be read is skipped (its first push reports what is wrong).
   */
  public int warmCaches(java.util.function.BooleanSupplier more) throws IOException {
    UpstreamCache c = cache;
    if (c == null) {
      return 0;
    }
    int warmed = 0;
    for (RepoSlug repo : c.existing()) {
      if (!more.getAsBoolean()) {
        break;
      }
      try {
        c.warm(repo);
        warmed++;
      } catch (IOException | RuntimeException e) {
        log.debug("cache of {} not warmed: {}", repo, e.toString());
      }
    }
    return warmed;
  }

  /**
   * What moving a ref of {@code repository} from {@code oldId} to {@code newId} would change, read
   * off the gateway's cache, which holds a held push's objects: for approvers. Never fails; when it
   * cannot be computed the answer says why.
   */
  public Diffstat diffstat(String repository, String oldId, String newId) {
    return diffstat(repository, null, oldId, newId, null);
  }

  /**
   * {@link #diffstat(String, String, String)} with the diff marked with what the run's content
   * rules find in the new commits (null rules: nothing marked).
   */
  public Diffstat diffstat(String repository, String ref, String oldId, String newId,
      dev.pushgate.policy.ContentRules rules) {
    UpstreamCache c = cache;
    if (c == null) {
      return Diffstat.unavailable("the gateway is not serving");
    }
    RepoSlug repo;
    try {
      repo = RepoSlug.parse(repository);
    } catch (IllegalArgumentException e) {
      return Diffstat.unavailable("not a repository the gateway serves");
    }
    try {
      Optional<Repository> db = c.openExisting(repo);
      if (db.isEmpty()) {
        return Diffstat.unavailable("the gateway holds no objects of " + repo);
      }
      try (Repository r = db.get()) {
        return Diffstat.of(r, ref, oldId, newId, rules);
      }
    } catch (IOException | RuntimeException e) {
      log.warn("could not compute the diffstat of a held push to {}: {}", repo, e.toString());
      return Diffstat.unavailable("the gateway could not read the pushed objects; see its log");
    }
  }

  /**
   * What the API boundary of {@code run} uses to judge a ref move to commits it did not see: they
   * are fetched into this gateway's cache and judged there as a push of them is. Before the
   * gateway serves, every such move is refused as not judged.
   */
  public dev.pushgate.gateway.api.UnseenCommits unseenCommits(RunContext run) {
    UpstreamCache c = cache;
    return c == null ? dev.pushgate.gateway.api.UnseenCommits.NONE
        : new UnseenCommitsFetched(c, upstream, run);
  }

  /**
   * The run {@code runId} ended: the write tokens minted for its next pushes are revoked (its
   * teardown revokes every token of the run in any case), and what the gateway knew of its
   * pre-mints is forgotten.
   */
  public void runEnded(String runId) {
    preMints.runEnded(runId);
  }

  GatewayThreads threads() {
    return threads;
  }

  /** Stops the gateway's threads and its caches' maintenance; pushes still running fail. */
  @Override
  public void close() {
    preMints.close();
    threads.close();
    if (cache != null) {
      cache.close();
    }
  }
}
