package dev.pushgate.appliance.api;

import dev.pushgate.broker.BrokerException;
import dev.pushgate.gateway.MintBudget;
import dev.pushgate.gateway.RunContext;
import dev.pushgate.gateway.UpstreamException;
import dev.pushgate.gateway.WriteTokenLease;
import dev.pushgate.gateway.api.ApiBoundary;
import dev.pushgate.gateway.api.ApiJudge;
import dev.pushgate.gateway.api.ApiSentinel;
import dev.pushgate.gateway.api.ApiTokens;
import dev.pushgate.gateway.api.BoundaryRun;
import dev.pushgate.gateway.api.RunCa;
import dev.pushgate.gateway.api.SystemCaBundle;
import dev.pushgate.sandbox.ApiInterception;
import dev.pushgate.sandbox.EgressProxy;
import dev.pushgate.sandbox.HostResolver;
import dev.pushgate.sandbox.LocalLauncher;
import dev.pushgate.types.BoundaryHandle;
import dev.pushgate.types.RepoSlug;
import dev.pushgate.types.Secret;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every live run's place on the GitHub API boundary (docs/github-api.md): the one listener every
 * run shares, started with the first run; each run is opened on it at the run's start with its own
 * CA and handle, handed to each launch of the run as the proxy's interception, closed at the run's
 * end.
 */
public final class ApiBoundaries implements AutoCloseable {
  /** The run CA outlives the run's TTL by this much, for a clock that drifts. */
  static final Duration CA_MARGIN = Duration.ofMinutes(15);
  /** The system's trusted CAs, which the run's bundle starts with. */
  static final Path SYSTEM_BUNDLE = Path.of("/etc/ssl/certs/ca-certificates.crt");

  private static final Logger log = LoggerFactory.getLogger(ApiBoundaries.class);

  /** What the appliance's run lifecycle lends the boundaries: its tokens. */
  public interface RunTokens {
    Secret readToken(RunContext run) throws BrokerException, Exception;

    WriteTokenLease mintWriteToken(RunContext run, RepoSlug repo) throws BrokerException, Exception;
  }

  /**
   * A run's place on the boundary, where its proxies send the API names, and its login on the
   * shared loopback proxy: the one the runs used by hand (their {@code env} loaded into a shell,
   * no launcher) and the launches without an OS sandbox reach the API through. A launch in a
   * sandbox gives its process a proxy of its own, inside, and these variables are replaced.
   */
  private record Open(BoundaryRun boundary, ApiInterception interception, Secret proxyLogin) {
    boolean logsIn(String password) {
      return proxyLogin.matches(password);
    }
  }

  private final ApiBoundary.Shared shared;
  private final Function<RunContext, ApiJudge> judges;
  private final RunTokens tokens;
  private final MintBudget budget;
  private final Map<String, Open> open = new ConcurrentHashMap<>();
  private final SystemCaBundle systemBundle = new SystemCaBundle(SYSTEM_BUNDLE);
  /** The listener every run shares; started with the first run, stopped with the appliance. */
  private ApiBoundary listener;
  /**
   * The loopback proxy the runs used by hand and the launches without an OS sandbox share, on the
   * listener's threads; started with the first run.
   */
  private EgressProxy sharedProxy;

  /**
   * @param judges the judge of each run's calls, made from its context (the GitHub API judge)
   * @param writeTokensPerMinute the most write tokens a run's API calls may have minted a minute
   */
  public ApiBoundaries(ApiBoundary.Shared shared, Function<RunContext, ApiJudge> judges,
      RunTokens tokens, int writeTokensPerMinute, Clock clock) {
    this.shared = shared;
    this.judges = judges;
    this.tokens = tokens;
    this.budget = new MintBudget(writeTokensPerMinute, clock);
  }

  /**
   * Opens {@code run} on the boundary and returns what the run's environment gets: the sentinel
   * in {@code GH_TOKEN} and {@code GITHUB_TOKEN}, the CA variables naming the files written into
   * {@code runDir}, and, when {@code byHand} (a run without a sandbox plan, which no launcher
   * gives a proxy), the variables ({@code HTTPS_PROXY}, …) of the loopback proxy the runs used
   * by hand share, with the run's own login in the URL.
   */
  public Map<String, String> open(RunContext run, Duration ttl, Path runDir, boolean byHand)
      throws IOException {
    RunCa ca = RunCa.create(run.runId(), shared.upstream().hostNames(), ttl.plus(CA_MARGIN));
    Path caFile = runDir.resolve("github-api-ca.pem");
    Path bundle = runDir.resolve("ca-bundle.pem");
    String caPem = ca.certificatePem(); // once: PEM-encoding the certificate is not free
    Files.writeString(caFile, caPem, StandardCharsets.US_ASCII);
    systemBundle.writeWith(bundle, caPem);
    String sentinel = ApiSentinel.newValue();
    ApiBoundary on = listener();
    BoundaryRun boundary = on.open(ca, new ApiBoundary.RunApi(run.runId(),
        run.workspaceId(), ApiSentinel.of(sentinel), judges.apply(run), tokensOf(run)));
    EgressProxy proxy;
    try {
      proxy = sharedProxy();
    } catch (IOException | RuntimeException e) {
      boundary.close();
      throw e;
    }
    Secret login = Secret.of(BoundaryHandle.newValue());
    // A sandbox's proxy tunnels to the address with the handle; the shared proxy, in this
    // process, hands its connections over; a launch without an OS sandbox gives its process the
    // shared proxy with the run's login.
    ApiInterception interception = new ApiInterception(shared.upstream().hostNames(),
        boundary.address(), boundary.handle(), endPoint -> on.takeOver(boundary, endPoint),
        new ApiInterception.ProxyLogin(proxy.port(), run.runId(), login));
    Open previous = open.put(run.runId(), new Open(boundary, interception, login));
    if (previous != null) {
      end(previous);
    }
    Map<String, String> env = new LinkedHashMap<>();
    if (byHand) {
      LocalLauncher.proxyEnvironment(env, proxy.port(), run.runId(), login.reveal());
    }
    env.put("GH_TOKEN", sentinel);
    env.put("GITHUB_TOKEN", sentinel);
    env.put("SSL_CERT_FILE", bundle.toString());
    env.put("CURL_CA_BUNDLE", bundle.toString());
    env.put("REQUESTS_CA_BUNDLE", bundle.toString());
    env.put("GIT_SSL_CAINFO", bundle.toString());
    env.put("NODE_EXTRA_CA_CERTS", caFile.toString());
    log.info("run {}: GitHub API boundary on {} for {}{}", run.runId(), boundary.address(),
        shared.upstream().hostNames(),
        byHand ? ", the shared proxy of runs used by hand on 127.0.0.1:" + proxy.port() : "");
    return env;
  }

  /** Where the run's proxy sends the API host names; null when the run has no boundary. */
  public ApiInterception interception(String runId) {
    Open o = open.get(runId);
    return o == null ? null : o.interception();
  }

  /** The run ended. */
  public void close(String runId) {
    Open o = open.remove(runId);
    if (o != null) {
      end(o);
    }
  }

  /** Closes the run's place on the boundary and its tunnels through the shared proxy. */
  private void end(Open o) {
    o.boundary().close();
    EgressProxy shared;
    synchronized (this) {
      shared = sharedProxy;
    }
    if (shared != null) {
      // Its tunnels to other hosts were judged once, at their CONNECT: none outlives the run.
      shared.closeTunnelsOf(o.interception());
    }
  }

  @Override
  public void close() {
    for (String id : java.util.List.copyOf(open.keySet())) {
      close(id);
    }
    ApiBoundary l;
    EgressProxy p;
    synchronized (this) {
      l = listener;
      listener = null;
      p = sharedProxy;
      sharedProxy = null;
    }
    if (p != null) {
      p.close();
    }
    if (l != null) {
      l.close();
    }
  }

  private synchronized EgressProxy sharedProxy() throws IOException {
    if (sharedProxy == null) {
      sharedProxy = EgressProxy.startShared(HostResolver.SYSTEM, (user, password) -> {
        Open o = open.get(user);
        return o != null && o.logsIn(password) ? o.interception() : null;
      }, listener().threads());
      log.info("the runs used by hand and those without an OS sandbox share the loopback proxy"
          + " on 127.0.0.1:{}", sharedProxy.port());
    }
    return sharedProxy;
  }

  private synchronized ApiBoundary listener() throws IOException {
    if (listener == null) {
      listener = ApiBoundary.start(shared);
      log.info("GitHub API boundary on {} for every run", listener.address());
    }
    return listener;
  }

  private ApiTokens tokensOf(RunContext run) {
    return new ApiTokens() {
      @Override
      public Secret readToken() throws UpstreamException {
        try {
          return tokens.readToken(run);
        } catch (Exception e) {
          throw new UpstreamException("pushgate has no read token for this run: "
              + e.getClass().getSimpleName());
        }
      }

      @Override
      public WriteTokenLease writeToken(String repository) throws UpstreamException {
        RepoSlug repo;
        try {
          repo = RepoSlug.parse(repository);
        } catch (IllegalArgumentException e) {
          throw new UpstreamException("not a repository: " + repository);
        }
        if (!run.mayReach(repo)) {
          throw new UpstreamException(repository + " is not this run's repository");
        }
        budget.spend(run.runId());
        try {
          return tokens.mintWriteToken(run, repo);
        } catch (Exception e) {
          throw new UpstreamException("pushgate could not mint a write token: "
              + e.getClass().getSimpleName());
        }
      }
    };
  }
}
