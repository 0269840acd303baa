package dev.pushgate.appliance.runs;

import dev.pushgate.appliance.store.Ledger;
import dev.pushgate.broker.BrokerException;
import dev.pushgate.broker.GitHubApp;
import dev.pushgate.gateway.RunAuthenticator;
import dev.pushgate.appliance.api.ApiBoundaries;
import dev.pushgate.gateway.RunContext;
import dev.pushgate.gateway.WriteTokenLease;
import dev.pushgate.gitconfig.GitHost;
import dev.pushgate.gitconfig.PushUrlRewrite;
import dev.pushgate.gateway.api.ApiHosts;
import dev.pushgate.gateway.api.ApiJudge;
import dev.pushgate.gateway.api.ApiJudgement;
import dev.pushgate.gateway.api.DefaultBranches;
import dev.pushgate.gateway.api.GitHubApiJudge;
import dev.pushgate.policy.Boundary;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Mode;
import dev.pushgate.policy.RulesException;
import dev.pushgate.policy.WorkspaceRules;
import dev.pushgate.sandbox.FilesystemPolicy;
import dev.pushgate.sandbox.SandboxPlan;
import dev.pushgate.types.RepoSlug;
import dev.pushgate.types.Secret;
import dev.pushgate.types.UntrustedText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The run lifecycle: a run gets a read-only token, a gateway credential and a git config at
 * start; at its end (teardown, TTL, or found orphaned after a crash) every credential it had is
 * revoked and confirmed, retried until upstream says it is gone. The tokens themselves (issue,
 * refresh, revocation and its retries) are {@link RunCredentials}' work.
 */
public final class Runs implements RunAuthenticator {
  private static final Logger log = LoggerFactory.getLogger(Runs.class);

  /**
   * Whether runs get issue 16's GitHub API boundary (docs/github-api.md): a run's {@code GH_TOKEN}
   * and {@code GITHUB_TOKEN} hold a sentinel GitHub refuses, the real read token stays in the
   * appliance, and the run's proxy sends the GitHub API hosts to the run's boundary, which judges
   * each call and swaps the sentinel for the real token. On. The system property
   * {@code pushgate.github-api-boundary=false} turns it off for tests of what came before it; a
   * run then holds its real read token (a weakening: docs/github-api.md).
   */
  public static final boolean GITHUB_API_BOUNDARY = Boolean.parseBoolean(
      System.getProperty("pushgate.github-api-boundary", "true"));

  /** The backend of a run without a sandbox plan. */
  private static final String NO_SANDBOX = "none";

  /** The name of a run's git config in its directory. */
  public static final String GIT_CONFIG = "gitconfig";

  /** Fixed settings of the lifecycle. */
  public record Settings(
      Path runsDir,
      Duration defaultTtl,
      Duration maxTtl,
      Duration refreshBefore,
      RunFiles files,
      RunSandbox sandbox,
      String hookUrl,
      WorktreePushUrls pushUrls,
      GitHost gitHost) {}

  /** Writes and checks a run's files (its git config). */
  public interface RunFiles {
    /**
     * Writes the run's git config into {@code dir} and returns its path. Not synced to the disk:
     * {@link #restoreGitConfig} checks it at every start before the run is resumed.
     */
    Path writeGitConfig(Path dir, String runCredential) throws IOException;

    /**
     * At start-up: the run credential the git config at {@code file} holds, the file rewritten
     * (synced) when it holds one but not exactly what {@link #writeGitConfig} writes for it now;
     * empty when it holds none (missing, or cut short by a power loss before it reached the disk).
     */
    Optional<String> restoreGitConfig(Path file) throws IOException;
  }

  /**
   * What a started run is told. {@code env} holds the read token the run is meant to hold;
   * {@code pushUrlRewrites} are the explicit push URLs of its workdir now sent to the gateway.
   */
  public record StartedRun(
      String runId, Instant expiresAt, String gitConfigPath, String runCredential,
      Map<String, String> env, SandboxPlan sandbox, List<PushUrlRewrite> pushUrlRewrites,
      RepoSlug repository) {}

  /** A credential and what became of it at teardown. */
  public record Revocation(String kind, String repository, boolean revoked, String error) {}

  /** What a teardown did. */
  public record Teardown(String runId, String reason, List<Revocation> credentials,
      boolean gitConfigRemoved) {}

  /**
   * What the run's own hooks are judged by; {@code boundaries} is what is judged at pushgate's
   * boundary for it ({@link RunBoundary}), which the hook lets through.
   */
  public record RunPolicy(RunContext context, String mode, WorkspaceRules rules,
      Set<Boundary> boundaries) {}


  private final Ledger ledger;
  private final RunCredentials credentials;
  private final Clock clock;
  private final Settings settings;
  private final RunDirectories directories;
  private final Map<String, LiveRun> byId = new ConcurrentHashMap<>();
  private final Map<String, String> idByCredentialHash = new ConcurrentHashMap<>();
  private final EndListeners endListeners = new EndListeners();
  private final EndListeners endRecordedListeners = new EndListeners();
  /** Whether other appliances share the ledger, and may end this one's runs (a fleet). */
  private volatile boolean ledgerShared;
  /** The runs' GitHub API boundaries, when {@link #GITHUB_API_BOUNDARY} is on. */
  private volatile ApiBoundaries apiBoundaries;

  public Runs(Ledger ledger, GitHubApp broker, Clock clock, Settings settings) {
    this.ledger = ledger;
    this.credentials = new RunCredentials(ledger, broker, clock, settings.refreshBefore());
    this.clock = clock;
    this.settings = settings;
    this.directories = new RunDirectories(settings.runsDir(), settings.files());
  }

  /**
   * Starts a run. Nothing is left behind when it fails: what was issued is revoked. A run whose
   * sandbox may not launch is refused before anything is issued.
   */
  public StartedRun create(NewRun req) throws RunRequestException, RunNotLaunched {
    List<RepoSlug> all = new ArrayList<>();
    all.add(req.repository());
    all.addAll(req.attachedRepositories());
    for (RepoSlug r : all) {
      credentials.checkInstalled(r);
    }
    Instant now = clock.instant();
    Duration ttl = req.ttl() == null ? settings.defaultTtl() : req.ttl();
    if (ttl.isNegative() || ttl.isZero() || ttl.compareTo(settings.maxTtl()) > 0) {
      throw new RunRequestException(RunRequestException.Status.BAD_REQUEST,
          "ttlSeconds must be between 1 and " + settings.maxTtl().toSeconds());
    }
    String runId = RunId.next();
    String credential = Credentials.newRunCredential();
    Path dir = settings.runsDir().resolve(runId);
    Path gitConfigPath = dir.resolve(GIT_CONFIG);
    if (req.sandbox() != null) {
      // Planned before anything is issued: a bad request creates nothing, and neither does a run
      // that may not launch, whose live credentials a launcher would have to remember to delete.
      SandboxPlan preview = settings.sandbox().plan(req, runId, Map.of());
      if (!preview.verdict().launches()) {
        throw new RunNotLaunched(preview);
      }
    }
    List<PushUrlRewrite> rewrites = List.of();
    if (req.sandbox() != null) {
      WorktreePushUrls.Outcome pushUrls =
          settings.pushUrls().rewrite(Path.of(req.sandbox().workdir()));
      if (pushUrls.refusal() != null) {
        throw new RunNotLaunched(settings.sandbox().plan(req, runId, Map.of(), pushUrls.refusal()));
      }
      rewrites = pushUrls.rewrites();
      for (PushUrlRewrite r : rewrites) {
        log.info("run {}: remote.{}.pushurl {} rewritten to {}", runId, r.remote(), r.from(),
            r.to());
      }
    }
    Ledger.RunRow row = new Ledger.RunRow(runId, req.workspaceId(), req.sessionId(),
        req.agentId(), req.mode(), req.repository().toString(), null,
        RunRows.attachedJson(req.attachedRepositories()),
        req.rulesJson(), Credentials.hash(credential), gitConfigPath.toString(),
        req.sandbox() == null ? NO_SANDBOX : null, now, now.plus(ttl), null, null);
    try {
      ledger.insertRun(row);
    } catch (SQLException e) {
      log.error("cannot record run {}", runId, e);
      throw new RunRequestException(RunRequestException.Status.INTERNAL,
          "the appliance cannot write its ledger; no run was started");
    }
    LiveRun run = new LiveRun(row, RunRows.contextOf(row, req.rules()), req.rules(),
        new RunCredentials.Held(runId));
    // Minted while the files and the run CA are made; the answer waits for it (and its record).
    RunCredentials.ReadMint mint = credentials.startReadToken(run.tokens, req.repository());
    try {
      Path gitConfig;
      Map<String, String> boundaryEnv = Map.of();
      ApiBoundaries boundaries = apiBoundaries;
      try {
        Files.createDirectories(dir);
        gitConfig = settings.files().writeGitConfig(dir, credential);
        if (GITHUB_API_BOUNDARY && boundaries != null) {
          // The sentinel in GH_TOKEN's place; the read token stays here (docs/github-api.md).
          // a run without a sandbox plan may be used by hand: its env names the shared proxy
          boundaryEnv = boundaries.open(run.context, ttl, dir, req.sandbox() == null);
        }
      } catch (IOException | RuntimeException e) {
        awaitQuietly(mint); // a token minted meanwhile is in the ledger, so abandon revokes it
        throw e;
      }
      Secret readToken = mint.await();
      byId.put(runId, run);
      idByCredentialHash.put(row.credentialHash(), runId);
      Map<String, String> env = new LinkedHashMap<>();
      env.put("GIT_CONFIG_GLOBAL", gitConfig.toString());
      env.put("GH_TOKEN", readToken.reveal());
      env.putAll(boundaryEnv);
      env.put("GIT_TERMINAL_PROMPT", "0");
      // gh finds its repository in `git remote -v`, which shows the gateway's URL (docs/launcher.md).
      env.put("GH_REPO", settings.gitHost().ghRepo(req.repository().toString()));
      env.put("PUSHGATE_RUN_TOKEN", credential);
      env.put("PUSHGATE_HOOK_URL", settings.hookUrl());
      SandboxPlan plan = req.sandbox() == null ? null : settings.sandbox().plan(req, runId, env);
      if (plan != null && env.containsKey("GITHUB_TOKEN") && boundaries != null
          && GITHUB_API_BOUNDARY) {
        plan = ApiBoundaryNote.added(plan);
      }
      run.filesystem = plan == null ? null : plan.filesystem();
      if (plan != null) {
        // A run without a plan has its backend in the row inserted above: one commit fewer.
        String backend = plan.effectiveBackend().id();
        ledger.setBackend(runId, backend);
        // the live row is what GET /v1/runs shows: without this it said no backend until a restart
        run.row = run.row.withBackend(backend);
        run.context = RunRows.contextOf(run.row, req.rules());
      }
      log.info("run {} started: workspace={} repository={} mode={} expires={}", runId,
          req.workspaceId(), req.repository(), req.mode(), row.expiresAt());
      return new StartedRun(runId, row.expiresAt(), gitConfig.toString(), credential, env, plan,
          rewrites, req.repository());
    } catch (RunRequestException e) {
      abandon(runId, "failed to start");
      throw e;
    } catch (BrokerException e) {
      abandon(runId, "failed to start");
      throw new RunRequestException(RunCredentials.upstreamStatus(e),
          "could not issue the run's read token: " + e.getMessage());
    } catch (IOException | SQLException | RuntimeException e) {
      log.error("run {} failed to start", runId, e);
      abandon(runId, "failed to start");
      throw new RunRequestException(RunRequestException.Status.INTERNAL,
          "the run could not be started: " + e.getClass().getSimpleName());
    }
  }


  private static void awaitQuietly(RunCredentials.ReadMint mint) {
    try {
      mint.await();
    } catch (BrokerException | RuntimeException e) {
      log.debug("a failed run's read token was not minted either: {}", e.getMessage());
    }
  }

  /** Ends a run and revokes everything it held. Idempotent. */
  public Teardown end(String runId, String reason) throws RunRequestException {
    Optional<Ledger.RunRow> row;
    try {
      row = ledger.run(runId);
    } catch (SQLException e) {
      throw new RunRequestException(RunRequestException.Status.INTERNAL,
          "the appliance cannot read its ledger");
    }
    if (row.isEmpty()) {
      throw new RunRequestException(RunRequestException.Status.NOT_FOUND, "no run " + runId);
    }
    forget(runId);
    try {
      ledger.endRun(runId, reason, clock.instant());
      endRecordedListeners.tell(runId);
    } catch (SQLException e) {
      log.error("cannot record the end of run {}", runId, e);
    }
    List<Revocation> revocations = credentials.revokeAll(runId);
    boolean removed = directories.remove(runId);
    log.info("run {} ended ({}): {} credential(s) revoked, {} pending", runId, reason,
        revocations.stream().filter(Revocation::revoked).count(),
        revocations.stream().filter(r -> !r.revoked()).count());
    return new Teardown(runId, reason, revocations, removed);
  }

  public Optional<Ledger.RunRow> find(String runId) throws SQLException {
    return ledger.run(runId);
  }

  public List<Ledger.RunRow> live() {
    return byId.values().stream().map(r -> r.row)
        .sorted(Comparator.comparing(Ledger.RunRow::createdAt)).toList();
  }


  /**
   * Gives every run started from now on its GitHub API boundary, when {@link
   * #GITHUB_API_BOUNDARY} is on; each is closed when its run ends.
   */
  public void useApiBoundaries(ApiBoundaries boundaries) {
    this.apiBoundaries = boundaries;
    onEnded(boundaries::close);
  }

  /** Where the run's proxy sends the GitHub API host names; null when it has no boundary. */
  public dev.pushgate.sandbox.ApiInterception apiInterception(String runId) {
    ApiBoundaries b = apiBoundaries;
    return b == null ? null : b.interception(runId);
  }

  /**
   * The ledger is shared by a fleet: another appliance may end this one's runs (a teardown on
   * any host). From now on every authentication also reads the run's row, so that such an end
   * holds here at once, before the fleet's notice of it arrives; a row that cannot be read
   * authenticates nobody.
   */
  public void shareLedger() {
    ledgerShared = true;
  }

  /** The live runs of every appliance sharing the ledger; this one's alone for a single host. */
  public List<Ledger.RunRow> liveEverywhere() throws SQLException {
    return ledgerShared ? ledger.liveRunsOfEveryHost(clock.instant()) : live();
  }

  /** The ids of the runs live here. */
  public Set<String> liveIds() {
    return java.util.Set.copyOf(byId.keySet());
  }

  /**
   * Another appliance ended run {@code runId} in the shared ledger: if it is live here, it ends
   * here as a teardown would (nothing authenticates as it, its questions are withdrawn, its
   * credentials revoked, its files removed). Idempotent.
   */
  public boolean endedElsewhere(String runId) {
    if (!byId.containsKey(runId)) {
      return false;
    }
    forget(runId);
    List<Revocation> revocations = credentials.revokeAll(runId);
    directories.remove(runId);
    log.info("run {} ended on another appliance: {} credential(s) revoked here, {} pending",
        runId, revocations.stream().filter(Revocation::revoked).count(),
        revocations.stream().filter(r -> !r.revoked()).count());
    return true;
  }

  @Override
  public Optional<RunContext> authenticate(String credential) {
    String id = idByCredentialHash.get(Credentials.hash(credential));
    LiveRun run = id == null ? null : byId.get(id);
    if (run == null || !run.row.live(clock.instant()) || endedInSharedLedger(id)) {
      return Optional.empty();
    }
    return Optional.of(run.context);
  }

  private boolean endedInSharedLedger(String runId) {
    if (!ledgerShared) {
      return false;
    }
    try {
      return ledger.hasEnded(runId);
    } catch (SQLException e) {
      log.warn("run {}: cannot read its row in the shared ledger, so it is refused: {}", runId,
          e.getMessage());
      return true;
    }
  }

  /** The mode and rules of the live run holding {@code credential}. */
  public Optional<RunPolicy> policyOf(String credential) {
    return authenticate(credential).map(c -> {
      LiveRun run = byId.get(c.runId());
      // the backend is the run's own, recorded when it started and kept across a restart
      return new RunPolicy(c, run.row.mode(), run.rules, RunBoundary.forBackend(run.row.backend()));
    });
  }

  /**
   * The file-system rules of the sandbox of the run this credential belongs to, which tell what
   * a refusal in its tools' output hit; empty for a run without one (or planned before a restart).
   */
  public Optional<FilesystemPolicy> filesystemOf(String credential) {
    return authenticate(credential).map(c -> byId.get(c.runId())).map(r -> r.filesystem);
  }

  /** The run's current read token, re-issued when it is close to expiry. */
  public Secret currentReadToken(RunContext context) throws BrokerException, RunRequestException {
    return credentials.currentReadToken(liveRun(context.runId()).tokens, context.repository());
  }

  /** A token that can read {@code repo} for this run: its own read token, or one per attachment. */
  public Secret readToken(RunContext context, RepoSlug repo) throws BrokerException, RunRequestException {
    if (repo.sameAs(context.repository())) {
      return currentReadToken(context);
    }
    return credentials.syncToken(liveRun(context.runId()).tokens, repo);
  }

  /** Mints a write token for one push; closing the lease revokes it. */
  public WriteTokenLease mintWriteToken(RunContext context, RepoSlug repo, boolean workflows)
      throws BrokerException, RunRequestException {
    return credentials.mintWriteToken(liveRun(context.runId()).tokens, repo, workflows);
  }

  /** Waits a little for revocations under way; what is left is revoked at teardown. */
  public void close() {
    credentials.close();
  }

  /**
   * At start-up: ends runs that expired while the appliance was down, takes back the live ones,
   * and revokes every credential of an ended run. Logs a summary.
   */
  public void recover() throws SQLException {
    Instant now = clock.instant();
    int ended = 0;
    int resumed = 0;
    for (Ledger.RunRow row : ledger.unendedRuns()) {
      if (!RunId.isWellFormed(row.id())) {
        // Not a row this appliance wrote: its id must not name a file (runs/../../victim).
        log.error("ledger: run {} has an id pushgate never makes (run_ and 24 hex digits), so"
            + " it is not resumed and no file is touched for it; it is ended in the ledger and"
            + " its credentials revoked", UntrustedText.printable(row.id()));
        ledger.endRun(row.id(), "refused: not a run id", now);
        ended++;
        continue;
      }
      if (!row.live(now)) {
        ledger.endRun(row.id(), "expired", now);
        directories.remove(row.id());
        ended++;
        continue;
      }
      try {
        if (!directories.gitConfigSurvived(row)) {
          // Written unsynced at creation (docs/benchmarks.md): without it the run's git would
          // reach the git host with no rewrite and whatever credential helper the host has.
          log.warn("run {}: its git config is not the one written for it (a power loss before it"
              + " reached the disk?); the run is ended", row.id());
          ledger.endRun(row.id(), "could not be resumed: its git config did not survive", now);
          directories.remove(row.id());
          ended++;
          continue;
        }
        WorkspaceRules rules = RunRows.rulesOf(row);
        LiveRun run = new LiveRun(row, RunRows.contextOf(row, rules), rules,
            credentials.resume(row, now));
        byId.put(row.id(), run);
        idByCredentialHash.put(row.credentialHash(), row.id());
        resumed++;
        credentials.revokeCutShortWrites(row.id());
      } catch (IOException | RulesException | RuntimeException e) {
        log.warn("run {} cannot be resumed ({}); ending it", row.id(), e.getMessage());
        ledger.endRun(row.id(), "could not be resumed", now);
        directories.remove(row.id());
        ended++;
      }
    }
    RunCredentials.Revoked orphans = credentials.revokeOrphans(byId::containsKey);
    log.info("recovery: {} run(s) resumed, {} ended, {} credential(s) revoked, {} still pending",
        resumed, ended, orphans.confirmed(), orphans.pending());
  }

  /**
   * The periodic pass: ends expired runs, retries revocations that failed, re-issues read tokens
   * close to expiry.
   */
  public void sweep() {
    Instant now = clock.instant();
    for (LiveRun run : List.copyOf(byId.values())) {
      if (!run.row.live(now)) {
        try {
          end(run.row.id(), "expired");
        } catch (RunRequestException e) {
          log.warn("could not end expired run {}: {}", run.row.id(), e.getMessage());
        }
      } else {
        try {
          currentReadToken(run.context);
        } catch (BrokerException | RunRequestException e) {
          log.warn("run {}: could not refresh its read token: {}", run.row.id(), e.getMessage());
        }
      }
    }
    credentials.retryFailedWriteRevocations();
    try {
      credentials.revokeOrphans(byId::containsKey);
    } catch (SQLException e) {
      log.error("cannot read the ledger to retry revocations", e);
    }
  }

  private void abandon(String runId, String reason) {
    forget(runId);
    try {
      ledger.endRun(runId, reason, clock.instant());
    } catch (SQLException e) {
      log.error("cannot record the end of run {}", runId, e);
    }
    credentials.revokeAll(runId);
    directories.remove(runId);
  }

  private void forget(String runId) {
    LiveRun run = byId.remove(runId);
    if (run != null) {
      idByCredentialHash.remove(run.row.credentialHash());
    }
    endListeners.tell(runId);
  }


  /**
   * {@code listener} hears the id of every run this appliance tore down or expired, once its end
   * is in the ledger, where another appliance sharing it reads it.
   */
  public void onEndRecorded(Consumer<String> listener) {
    endRecordedListeners.add(listener);
  }

  /**
   * {@code listener} hears the id of every run that ends (teardown, TTL, a failed start), once
   * nothing authenticates as it any more and before its credentials are revoked.
   */
  public void onEnded(Consumer<String> listener) {
    endListeners.add(listener);
  }

  /**
   * The judge of a live run's GitHub API calls: its rules and mode, its repositories. A call of a
   * run this appliance does not hold (not yet, or no longer) is denied (fail closed). {@code unseen}
   * judges the commits a ref move names by id, as a push of them.
   */
  public ApiJudge apiJudgeOf(RunContext context, ApiHosts hosts,
      dev.pushgate.gateway.api.UnseenCommits unseen) {
    // Read per call: the boundary is opened while the run is created, before the run is held
    // here (its read token is minted meanwhile), and the boundaries in force follow the run's
    // backend, known only once its sandbox is planned. The judge is made again whenever the run
    // or its row is another object than last time, and only then: made per call, it cost every
    // call its rule tables and lost the GraphQL documents it had parsed (issue 33).
    AtomicReference<RunJudge> last = new AtomicReference<>();
    return call -> {
      LiveRun run = byId.get(context.runId());
      if (run == null) {
        return new ApiJudgement(List.of(new ApiJudgement.ApiAction("unknown", null,
            call.path(), Decision.DENY, "this run is not held by this appliance")), false);
      }
      Ledger.RunRow row = run.row;
      RunJudge judge = last.get();
      if (judge == null || judge.run() != run || judge.row() != row) {
        judge = new RunJudge(run, row, new GitHubApiJudge(run.rules, Mode.fromId(row.mode()),
            RunBoundary.forBackend(row.backend()), context.repository(),
            context.attachedRepositories(), hosts, DefaultBranches.UNKNOWN, unseen));
        last.set(judge);
      }
      return judge.judge().judge(call);
    };
  }

  /** A run's API judge, and the run and row it was made from (compared by identity). */
  private record RunJudge(LiveRun run, Ledger.RunRow row, ApiJudge judge) {}

  /** The content rules of a live run of this appliance; empty for any other. */
  public Optional<dev.pushgate.policy.ContentRules> contentRulesOf(String runId) {
    LiveRun run = byId.get(runId);
    return run == null || !run.row.live(clock.instant()) ? Optional.empty()
        : Optional.of(run.context.content());
  }

  /** Whether {@code runId} names a run that has not ended. */
  public boolean isLive(String runId) {
    LiveRun run = byId.get(runId);
    return run != null && run.row.live(clock.instant());
  }

  private LiveRun liveRun(String runId) throws RunRequestException {
    LiveRun run = byId.get(runId);
    if (run == null || !run.row.live(clock.instant())) {
      throw new RunRequestException(RunRequestException.Status.NOT_FOUND,
          "run " + runId + " has ended");
    }
    return run;
  }
}
