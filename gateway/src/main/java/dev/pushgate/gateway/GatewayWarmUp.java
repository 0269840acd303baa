package dev.pushgate.gateway;

import dev.pushgate.policy.Decision;
import dev.pushgate.policy.PushRule;
import dev.pushgate.policy.PushRules;
import dev.pushgate.policy.RefPattern;
import dev.pushgate.policy.UpdateKind;
import dev.pushgate.types.RepoSlug;
import dev.pushgate.types.Secret;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jgit.http.server.GitServlet;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.lib.TreeFormatter;
import org.eclipse.jgit.transport.PushResult;
import org.eclipse.jgit.transport.ReceivePack;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.RemoteRefUpdate;
import org.eclipse.jgit.transport.Transport;
import org.eclipse.jgit.transport.TransportHttp;
import org.eclipse.jgit.transport.URIish;
import org.eclipse.jgit.transport.resolver.FileResolver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pushes through a throwaway gateway before the appliance says it is ready, so that the first
 * pushes of runs do not pay for class loading and interpreted code. Everything is its own: a
 * gateway on 127.0.0.1 with a temporary cache, an audit log that keeps nothing, no approvers and
 * an allow-all run whose credential is random, forwarding to a temporary bare repository served
 * on 127.0.0.1 with a dummy token. Nothing reaches the configured upstream, the audit, the ledger
 * or the metrics. A warm-up that fails or runs out of time is logged and given up: it never stops
 * a start.
 */
public final class GatewayWarmUp {
  private static final Logger log = LoggerFactory.getLogger(GatewayWarmUp.class);

  /** Pushes an appliance makes at start-up unless told otherwise. */
  public static final int DEFAULT_PUSHES = 6;
  /** No warm-up push starts after this; each one is bounded by {@link #PUSH_TIMEOUT}. */
  static final Duration DEFAULT_BOUND = Duration.ofSeconds(5);
  private static final Duration PUSH_TIMEOUT = Duration.ofSeconds(3);

  private static final RepoSlug REPO = new RepoSlug("warm-up", "repo");
  /** Updates of main are decided by the pack, as a branch whose force-pushes are denied is. */
  private static final PushRules RULES = PushRules.of(Decision.ALLOW, List.of(new PushRule(
      RefPattern.parse("refs/heads/main"), Set.of(UpdateKind.FORCE), Decision.DENY,
      "warm-up: no force-push to main")));
  private static final Secret DUMMY_TOKEN = Secret.of("warm-up-token-of-no-account");

  private final Path scratch;
  private final int pushes;
  private final Duration bound;
  private final Clock clock;
  private final String credential = randomCredential();
  private long commitTime = 1_700_000_000L;

  private GatewayWarmUp(Path scratch, int pushes, Duration bound, Clock clock) {
    this.scratch = scratch;
    this.pushes = pushes;
    this.bound = bound;
    this.clock = clock;
  }

  /**
   * Runs {@code pushes} warm-up pushes in a temporary directory under {@code tmpParent}, for at
   * most about {@code bound}; returns how many succeeded. Never throws: a failure is logged.
   */
  public static int run(int pushes, Path tmpParent, Duration bound) {
    if (pushes <= 0) {
      return 0;
    }
    long started = System.nanoTime();
    Path scratch = null;
    int done = 0;
    try {
      scratch = Files.createTempDirectory(tmpParent, "pushgate-warm-up-");
      done = new GatewayWarmUp(scratch, pushes, bound, Clock.systemUTC()).pushAll();
      log.info("warm-up: {} of {} pushes through a throwaway gateway in {} ms", done, pushes,
          Duration.ofNanos(System.nanoTime() - started).toMillis());
    } catch (Exception | LinkageError e) {
      log.info("warm-up given up after {} of {} pushes, starting anyway: {}", done, pushes,
          e.toString());
    } finally {
      deleteQuietly(scratch);
    }
    return done;
  }

  /** {@link #run(int, Path, Duration)} in the system's temporary directory. */
  public static int run(int pushes) {
    return run(pushes, Path.of(System.getProperty("java.io.tmpdir")), DEFAULT_BOUND);
  }

  private int pushAll() throws Exception {
    long deadline = System.nanoTime() + bound.toNanos();
    Path upstreamRoot = Files.createDirectories(scratch.resolve("upstream"));
    Server upstreamServer = null;
    Server gatewayServer = null;
    Gateway gateway = null;
    try (Repository upstream = bare(upstreamRoot.resolve(REPO.owner()).resolve(REPO.name()
            + ".git"));
        Repository client = bare(scratch.resolve("client.git"))) {
      // The same first commit on both sides, as in a clone.
      ObjectId base = commit(upstream, null);
      setRef(upstream, "refs/heads/main", base);
      setRef(client, "refs/heads/main", commit(client, null, commitTime));
      upstreamServer = serve(upstreamServlet(upstreamRoot));
      String upstreamUrl = upstreamServer.getURI().resolve("/" + REPO.owner() + "/" + REPO.name()
          + ".git").toString();
      gateway = new Gateway(new GatewayConfig(GatewayConfig.GITHUB_HOST,
          scratch.resolve("cache"), GatewayConfig.DEFAULT_MAX_PACK_BYTES, PUSH_TIMEOUT,
          PUSH_TIMEOUT, clock), this::authenticate, new ThrowawayUpstream(upstreamUrl),
          new AuditOfNothing(), Approvals.NONE, PushMetrics.NONE);
      gatewayServer = serve(gateway.handler());
      URIish uri = new URIish(gatewayServer.getURI().resolve(Gateway.CONTEXT_PATH + "/"
          + GatewayConfig.GITHUB_HOST + "/" + REPO + ".git").toString());
      int done = 0;
      for (int i = 0; i < pushes && System.nanoTime() < deadline; i++) {
        step(i, upstream, client, uri);
        done++;
      }
      return done;
    } finally {
      stop(gatewayServer);
      if (gateway != null) {
        gateway.close();
      }
      stop(upstreamServer);
    }
  }

  /**
   * The paths the first pushes of runs take, in turn: a branch created (streamed, the cache
   * synced from nothing), fast-forwarded (streamed, upstream unchanged), then main fast-forwarded
   * after upstream moved (decided by the pack: stored, then forwarded).
   */
  private void step(int i, Repository upstream, Repository client, URIish uri)
      throws Exception {
    String branch = "refs/heads/warm-" + (i / 3);
    switch (i % 3) {
      case 0 -> push(client, uri, branch, commit(client, idOf(client, "refs/heads/main")));
      case 1 -> push(client, uri, branch, commit(client, idOf(client, branch)));
      default -> {
        setRef(upstream, "refs/heads/moved", commit(upstream, idOf(upstream, "refs/heads/main")));
        push(client, uri, "refs/heads/main", commit(client, idOf(client, "refs/heads/main")));
      }
    }
  }

  private void push(Repository client, URIish uri, String ref, ObjectId tip) throws Exception {
    setRef(client, ref, tip);
    try (Transport t = Transport.open(client, uri)) {
      ((TransportHttp) t).setAdditionalHeaders(Map.of("Authorization", "Bearer " + credential));
      t.setTimeout((int) PUSH_TIMEOUT.toSeconds());
      PushResult r = t.push(NullProgressMonitor.INSTANCE,
          t.findRemoteRefUpdatesFor(List.of(new RefSpec(ref + ":" + ref))));
      RemoteRefUpdate.Status status = r.getRemoteUpdate(ref).getStatus();
      if (status != RemoteRefUpdate.Status.OK) {
        throw new IOException("push to " + ref + ": " + status);
      }
    }
  }

  private Optional<RunContext> authenticate(String presented) {
    return credential.equals(presented)
        ? Optional.of(new RunContext("warm-up", "warm-up", REPO, List.of(), RULES))
        : Optional.empty();
  }

  /** JGit's own servlet over the temporary bare repositories, pushed to without credentials. */
  private static ServletContextHandler upstreamServlet(Path root) {
    GitServlet git = new GitServlet();
    git.setRepositoryResolver(new FileResolver<>(root.toFile(), true));
    git.setReceivePackFactory((req, db) -> new ReceivePack(db));
    ServletContextHandler context = new ServletContextHandler("/");
    context.addServlet(new ServletHolder(git), "/*");
    return context;
  }

  private static Server serve(ServletContextHandler handler) throws Exception {
    QueuedThreadPool pool = new QueuedThreadPool(8, 2);
    pool.setName("pushgate-warm-up");
    pool.setDaemon(true);
    Server server = new Server(pool);
    ServerConnector connector = new ServerConnector(server, 1, 1);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    server.setHandler(handler);
    // Nothing to drain: the warm-up stops its servers once its last push has been answered.
    server.setStopTimeout(0);
    server.start();
    return server;
  }

  private static void stop(Server server) {
    if (server == null) {
      return;
    }
    try {
      server.stop();
      server.join();
    } catch (Exception e) {
      log.debug("warm-up server stop", e);
    }
  }

  private static Repository bare(Path dir) throws IOException {
    Repository db = new FileRepository(dir.toFile());
    db.create(true);
    StoredConfig config = db.getConfig();
    // JGit's auto-gc runs in a background thread that would outlive the warm-up.
    config.setBoolean("receive", null, "autogc", false);
    config.setInt("gc", null, "auto", 0);
    config.save();
    return db;
  }

  private ObjectId commit(Repository db, ObjectId parent) throws IOException {
    commitTime += 60;
    return commit(db, parent, commitTime);
  }

  private static ObjectId commit(Repository db, ObjectId parent, long commitTime)
      throws IOException {
    try (ObjectInserter ins = db.newObjectInserter()) {
      TreeFormatter tree = new TreeFormatter();
      tree.append("warm-up.txt", FileMode.REGULAR_FILE, ins.insert(Constants.OBJ_BLOB,
          ("warm-up " + commitTime + "\n").getBytes(StandardCharsets.UTF_8)));
      PersonIdent who = new PersonIdent("pushgate warm-up", "warm-up@pushgate.invalid",
          Instant.ofEpochSecond(commitTime), ZoneOffset.UTC);
      CommitBuilder c = new CommitBuilder();
      c.setTreeId(ins.insert(tree));
      if (parent != null) {
        c.setParentId(parent);
      }
      c.setAuthor(who);
      c.setCommitter(who);
      c.setMessage("warm-up\n");
      ObjectId id = ins.insert(c);
      ins.flush();
      return id;
    }
  }

  private static ObjectId idOf(Repository db, String ref) throws IOException {
    return db.exactRef(ref).getObjectId();
  }

  private static void setRef(Repository db, String ref, ObjectId id) throws IOException {
    RefUpdate u = db.updateRef(ref);
    u.setNewObjectId(id);
    u.setForceUpdate(true);
    RefUpdate.Result r = u.update();
    if (r != RefUpdate.Result.NEW && r != RefUpdate.Result.FORCED
        && r != RefUpdate.Result.FAST_FORWARD && r != RefUpdate.Result.NO_CHANGE) {
      throw new IOException("could not set " + ref + ": " + r);
    }
  }

  private static String randomCredential() {
    byte[] b = new byte[24];
    new SecureRandom().nextBytes(b);
    return "warm-up-" + HexFormat.of().formatHex(b);
  }

  private static void deleteQuietly(Path dir) {
    if (dir == null) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      List<Path> deepestFirst = new ArrayList<>(all.sorted(Comparator.reverseOrder()).toList());
      for (Path p : deepestFirst) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      log.info("warm-up: could not delete {}: {}", dir, e.toString());
    }
  }

  /** Upstream is the temporary repository, read and written with a token of no account. */
  private static final class ThrowawayUpstream implements UpstreamAccess {
    private final String url;

    ThrowawayUpstream(String url) {
      this.url = url;
    }

    @Override
    public String remoteUrl(RepoSlug repo) {
      return url;
    }

    @Override
    public Secret readToken(RunContext run, RepoSlug repo) {
      return DUMMY_TOKEN;
    }

    @Override
    public WriteTokenLease mintWriteToken(RunContext run, RepoSlug repo, boolean workflows) {
      return new WriteTokenLease() {
        @Override
        public Secret token() {
          return DUMMY_TOKEN;
        }

        @Override
        public void close() {}
      };
    }
  }

  /** A warm-up push is no run's action: its records are taken and kept nowhere. */
  private static final class AuditOfNothing implements AuditLog {
    private static final Handle NOTHING = new Handle() {};

    @Override
    public List<? extends Handle> record(List<PushRecord> records) {
      return records.stream().map(r -> NOTHING).toList();
    }

    @Override
    public void settle(Handle record, PushRecord.Outcome outcome, long durationMillis) {}
  }
}
