package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import dev.pushgate.types.Secret;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.internal.storage.file.GC;
import org.eclipse.jgit.lib.BatchRefUpdate;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.RepositoryCache;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.transport.FetchResult;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.Transport;
import org.eclipse.jgit.transport.TransportHttp;
import org.eclipse.jgit.transport.UsernamePasswordCredentialsProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One bare repository per upstream repository, kept in step with upstream so that a client's thin
 * pack resolves and non-fast-forward updates are recognised. Only branches and tags are mirrored.
 *
 * <p>When upstream moved, an advertisement need not wait for the objects ({@link #syncAhead}): it
 * shows upstream's refs as listed, and the cache fetches their objects while the client computes
 * and sends its pack. The push that follows waits for that fetch ({@link #awaitFetch}) before
 * JGit reads the cache, so JGit checks the commands' old ids against refs that hold what was
 * advertised and completes a thin pack against objects the cache has; a fetch that failed fails
 * that push, with nothing forwarded.
 */
final class UpstreamCache {
  private static final Logger log = LoggerFactory.getLogger(UpstreamCache.class);
  static final int COMPACT_ABOVE_PACKS = 40;
  /** The default of the gateway's bound on a push, which bounds the quick fetch too. */
  static final long DEFAULT_MAX_FETCH_BYTES = 2L << 30;
  private static final List<RefSpec> MIRRORED =
      List.of(new RefSpec("+refs/heads/*:refs/heads/*"), new RefSpec("+refs/tags/*:refs/tags/*"));

  private final Path root;
  private final int timeoutSeconds;
  private final long maxFetchBytes;
  private final UpstreamFetch fetcher;
  private final PushMetrics metrics;
  private final RepositoryWaits waits;
  private final ConcurrentHashMap<String, ReentrantLock> locks = new ConcurrentHashMap<>();
  /** Which syncs of each repository began and which left it in step ({@link SyncTurns}). */
  private final ConcurrentHashMap<String, SyncTurns> syncTurns = new ConcurrentHashMap<>();
  private final Set<String> compacting = ConcurrentHashMap.newKeySet();
  /** Fetches being served from each repository's cache ({@link #reading}). */
  private final ConcurrentHashMap<String, Integer> readers = new ConcurrentHashMap<>();
  /** Compaction is rare and must not load both cores. */
  private final ThreadPoolExecutor maintenance =
      oneThreadWhenBusy("pushgate-cache-gc", Thread.MIN_PRIORITY);

  /** Ref updates upstream took, per repository, not yet written to its cache. */
  private final ConcurrentHashMap<String, Queue<ReceiveCommand>> landed = new ConcurrentHashMap<>();
  /** Writes them after the pushes are answered. */
  private final ThreadPoolExecutor refWriter =
      oneThreadWhenBusy("pushgate-cache-refs", Thread.NORM_PRIORITY);

  /**
   * The latest fetch an advertisement did not wait for, per repository. A done one is removed; a
   * failed one stays, so that the push which follows its advertisement fails, until the next sync
   * of the repository decides afresh.
   */
  private final ConcurrentHashMap<String, CompletableFuture<Void>> fetching =
      new ConcurrentHashMap<>();
  /**
   * Runs those fetches, for different repositories at once: up to 4 threads, gone a second after
   * their fetch (upstream moving is the rarer case). A fifth at once runs in its advertisement's
   * request instead, as a sync did before.
   */
  private final ThreadPoolExecutor fetchers = new ThreadPoolExecutor(0, 4, 1, TimeUnit.SECONDS,
      new SynchronousQueue<>(), r -> {
        Thread t = new Thread(r, "pushgate-cache-fetch");
        t.setDaemon(true);
        return t;
      });

  UpstreamCache(Path root, int timeoutSeconds, PushMetrics metrics) {
    this(root, timeoutSeconds, DEFAULT_MAX_FETCH_BYTES, metrics);
  }

  /**
   * @param maxFetchBytes the largest answer the quick fetch reads; past it JGit's fetch, which is
   *     not bounded, brings the objects
   */
  UpstreamCache(Path root, int timeoutSeconds, long maxFetchBytes, PushMetrics metrics) {
    this(root, timeoutSeconds, maxFetchBytes, metrics, AdmissionLimits.DEFAULTS);
  }

  /** @param limits how many requests may wait for one repository's lock, and how long */
  UpstreamCache(Path root, int timeoutSeconds, long maxFetchBytes, PushMetrics metrics,
      AdmissionLimits limits) {
    this.waits = new RepositoryWaits(limits);
    this.root = root;
    this.timeoutSeconds = timeoutSeconds;
    this.maxFetchBytes = maxFetchBytes;
    this.metrics = metrics;
    this.fetcher = new UpstreamFetch(new UpstreamHttp(timeoutSeconds), maxFetchBytes);
  }

  /**
   * Opens the cache of {@code repo}, creating it when missing. The caller closes it. The instance
   * is shared by concurrent requests (JGit's {@link RepositoryCache}), so its pack list and refs
   * are read once, not once per request.
   */
  Repository open(RepoSlug repo) throws IOException {
    Path dir = directoryOf(repo);
    if (!Files.isRegularFile(dir.resolve("HEAD"))) {
      ReentrantLock lock = lockOf(repo);
      lock.lock();
      try {
        create(dir);
      } finally {
        lock.unlock();
      }
    }
    Repository db = RepositoryCache.open(CacheRepository.key(dir.toFile()), true);
    StoredConfig config = db.getConfig();
    // In memory, once per instance (and again if JGit reloads the file), also for caches made
    // before these were written at creation: the cache is compacted by compactLater() under its
    // lock, never by JGit's background auto-gc after a receive.
    if (config.getInt("protocol", null, "version", -1) != 0) {
      config.setBoolean("receive", null, "autogc", false);
      config.setInt("gc", null, "auto", 0);
      config.setInt("gc", null, "autopacklimit", 0);
      // Protocol v0 lists the refs in the answer to the first request; v2 needs a second
      // request (ls-refs), which doubled the time of the sync made before every push. v2's ref
      // prefixes would only pay off on repositories with very many refs outside heads and tags.
      config.setInt("protocol", null, "version", 0);
    }
    return db;
  }

  /**
   * Opens the cache of {@code repo} if there is one, never creating it: for readers that are not
   * serving a push. The caller closes it.
   */
  java.util.Optional<Repository> openExisting(RepoSlug repo) throws IOException {
    if (!Files.isRegularFile(directoryOf(repo).resolve("HEAD"))) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(open(repo));
  }

  private static void create(Path dir) throws IOException {
    if (Files.isRegularFile(dir.resolve("HEAD"))) {
      return;
    }
    Files.createDirectories(dir.getParent());
    try (Repository created = new FileRepository(dir.toFile())) {
      created.create(true);
      StoredConfig config = created.getConfig();
      // Objects received from a client stay unreachable until upstream accepts them; never
      // let a gc race a push that is being forwarded.
      config.setBoolean("receive", null, "autogc", false);
      config.setInt("gc", null, "auto", 0);
      config.setInt("gc", null, "autopacklimit", 0);
      config.save();
    }
  }

  /**
   * Brings the cache's branches and tags to upstream's, removing what upstream removed. When
   * upstream's refs are those of the cache already, which is the common case of a run pushing
   * again, this is one request for upstream's ref list; when upstream moved, one more, for the
   * objects the cache lacks ({@link UpstreamFetch}), and the refs move in one batch.
   */
  void sync(RepoSlug repo, String remoteUrl, Secret token)
      throws UpstreamException, RepositoryBusy {
    syncAhead(repo, remoteUrl, token);
    awaitFetch(repo);
  }

  /**
   * Syncs the cache for an advertisement. Empty when the cache holds upstream's refs on return:
   * they were in step, the cache had every object already, or the ref list could not be read and
   * JGit's fetch ran here. Otherwise upstream's branches and tags as just listed, to be
   * advertised, while their objects are fetched in the background: whatever then reads the
   * cache's refs or objects for a push calls {@link #awaitFetch} first.
   */
  Optional<Map<String, ObjectId>> syncAhead(RepoSlug repo, String remoteUrl, Secret token)
      throws UpstreamException, RepositoryBusy {
    long asked = System.nanoTime();
    SyncTurns turns = syncTurns.computeIfAbsent(repo.key(), k -> new SyncTurns());
    long arrived = turns.begun();
    ReentrantLock lock = lockOf(repo);
    lockWithNoFetchPending(repo, lock);
    long start = System.nanoTime();
    try {
      writeLanded(repo);
      if (turns.answers(arrived)) {
        log.debug("cache of {} synced meanwhile by a sync that began after this request", repo);
        return Optional.empty();
      }
      fetching.remove(repo.key()); // one that failed: this sync decides afresh
      long turn = turns.begin();
      String[] head = {null};
      Optional<Map<String, ObjectId>> listed =
          UpstreamRefList.read(remoteUrl, token, timeoutSeconds, h -> head[0] = h);
      if (head[0] != null) {
        followHead(repo, head[0]);
      }
      if (listed.isEmpty()) {
        onSynced(repo, asked, start, fetch(repo, remoteUrl, token, start));
        turns.inStep(turn);
        return Optional.empty();
      }
      try (Repository cache = open(repo)) {
        Map<String, ObjectId> mirrored = mirrored(cache);
        if (mirrored.equals(listed.get())) {
          onSynced(repo, asked, start, false);
          turns.inStep(turn);
          return Optional.empty();
        }
        if (wanted(cache, listed.get()).isEmpty()) {
          moveRefs(cache, listed.get());
          onSynced(repo, asked, start, true);
          turns.inStep(turn);
          return Optional.empty();
        }
      } catch (IOException | RuntimeException e) {
        throw failed(repo, start, e);
      }
      CompletableFuture<Void> fetched = new CompletableFuture<>();
      fetching.put(repo.key(), fetched);
      try {
        fetchers.execute(() -> fetchAhead(repo, remoteUrl, token, listed.get(), asked, fetched,
            () -> turns.inStep(turn)));
      } catch (RejectedExecutionException e) {
        // four fetches at once already: this one here, before its advertisement (the lock is
        // reentrant), which fails if it failed
        fetchAhead(repo, remoteUrl, token, listed.get(), asked, fetched,
            () -> turns.inStep(turn));
        awaitFetch(repo);
        return Optional.empty();
      }
      return listed;
    } finally {
      if (!fetching.containsKey(repo.key())) {
        compactIfCrowded(repo); // else once the fetch has added its pack
      }
      lock.unlock();
    }
  }

  /**
   * Brings {@code id} and every object it reaches into the cache, upstream's branches and tags
   * synced first: for a ref move through the API to commits no push brought, which are then
   * judged off the cache as a push's are. Upstream must serve the object by its id (GitHub does,
   * for any object of the repository).
   *
   * @throws UpstreamException when upstream cannot be read or does not send the object
   */
  void fetchObject(RepoSlug repo, String remoteUrl, Secret token, ObjectId id)
      throws UpstreamException, RepositoryBusy {
    sync(repo, remoteUrl, token);
    ReentrantLock lock = lockOf(repo);
    lockWithNoFetchPending(repo, lock);
    try (Repository cache = open(repo)) {
      if (!cache.getObjectDatabase().has(id)) {
        fetcher.fetch(cache, remoteUrl, token, List.of(id),
            new HashSet<>(mirrored(cache).values()));
      }
    } catch (IOException | RuntimeException e) {
      throw new UpstreamException("could not fetch " + id.name() + " from " + repo
          + " upstream: " + e.getMessage(), e);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Points the cache's HEAD where upstream's points, so that a clone from the cache checks out
   * upstream's default branch; under the lock. A failure leaves HEAD as it was: the cache is
   * only a cache, and pushes never read its HEAD.
   */
  private void followHead(RepoSlug repo, String branch) {
    try (Repository cache = open(repo)) {
      Ref head = cache.exactRef(Constants.HEAD);
      if (head != null && head.isSymbolic() && head.getTarget().getName().equals(branch)) {
        return;
      }
      RefUpdate ru = cache.updateRef(Constants.HEAD);
      ru.disableRefLog();
      ru.link(branch);
    } catch (IOException e) {
      log.warn("could not point the cache's HEAD of {} at {}: {}", repo, branch, e.getMessage());
    }
  }

  /**
   * Marks a fetch of {@code repo} served from the cache until the answer is closed: compaction,
   * which deletes the packs it replaces, waits for a repository nobody is reading. Taken under the
   * repository's lock, so a compaction either started before (and finished) or sees the reader.
   */
  AutoCloseable reading(RepoSlug repo) {
    ReentrantLock lock = lockOf(repo);
    lock.lock();
    try {
      readers.merge(repo.key(), 1, Integer::sum);
    } finally {
      lock.unlock();
    }
    boolean[] closed = {false};
    return () -> {
      if (!closed[0]) {
        closed[0] = true;
        readers.computeIfPresent(repo.key(), (k, n) -> n <= 1 ? null : n - 1);
      }
    };
  }

  /**
   * Waits for the fetch a {@link #syncAhead} of {@code repo} left running, if any, and fails if it
   * failed. No deadline of its own: each of the fetch's reads is bounded by the upstream timeout,
   * as the sync's were when the advertisement waited for it.
   */
  void awaitFetch(RepoSlug repo) throws UpstreamException {
    CompletableFuture<Void> pending = fetching.get(repo.key());
    if (pending == null) {
      return;
    }
    try {
      pending.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof UpstreamException u ? u
          : new UpstreamException("could not read " + repo + " upstream", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UpstreamException("interrupted while reading " + repo + " upstream", e);
    }
  }

  /** Requests waiting for {@code repo}'s lock now. */
  int waiting(RepoSlug repo) {
    return waits.waiting(repo);
  }

  /**
   * Takes {@code lock} once no fetch of {@code repo} is pending, so that at most one is, and a
   * sync never decides on refs that a pending fetch is about to move (nor moves them back to an
   * older list after it); within the bounded wait of {@link RepositoryWaits}.
   */
  private void lockWithNoFetchPending(RepoSlug repo, ReentrantLock lock) throws RepositoryBusy {
    waits.lockWithNoFetchPending(repo, lock, () -> fetching.get(repo.key()));
  }

  /**
   * Fetches what {@code listed} needs and moves the cache's refs to it, then runs {@code inStep};
   * under the lock.
   */
  private void fetchAhead(RepoSlug repo, String remoteUrl, Secret token,
      Map<String, ObjectId> listed, long asked, CompletableFuture<Void> done, Runnable inStep) {
    ReentrantLock lock = lockOf(repo);
    lock.lock();
    long start = System.nanoTime();
    try {
      writeLanded(repo);
      follow(repo, remoteUrl, token, listed, start);
      onSynced(repo, asked, start, true);
      inStep.run();
      fetching.remove(repo.key(), done);
      done.complete(null);
    } catch (UpstreamException | RuntimeException e) {
      done.completeExceptionally(e);
    } finally {
      compactIfCrowded(repo);
      lock.unlock();
      if (!done.isDone()) { // an Error: no push waits for ever
        done.completeExceptionally(new UpstreamException("the fetch of " + repo + " failed", null));
      }
    }
  }

  private void onSynced(RepoSlug repo, long asked, long start, boolean fetched) {
    metrics.onSync(java.time.Duration.ofNanos(System.nanoTime() - asked), true, fetched);
    log.debug("synced cache of {} in {} ms ({})", repo, (System.nanoTime() - start) / 1_000_000,
        fetched ? "fetched" : "unchanged");
  }

  private UpstreamException failed(RepoSlug repo, long start, Exception e) {
    // The refs did not move: the cache has at most objects no ref reaches, and the next sync
    // asks again.
    metrics.onSync(java.time.Duration.ofNanos(System.nanoTime() - start), false, false);
    return new UpstreamException("could not read " + repo + " upstream: " + e.getMessage(), e);
  }

  /**
   * Mirrors upstream's branches and tags with JGit's fetch, which reads the ref list again;
   * whether a ref moved. Under the lock.
   */
  private boolean fetch(RepoSlug repo, String remoteUrl, Secret token, long start)
      throws UpstreamException {
    for (int attempt = 1; ; attempt++) {
      try (Repository cache = open(repo); Git git = Git.wrap(cache)) {
        // JGit's fetch writes the refs itself, and fetches nothing the cache has: a ref it moves
        // may name an object of a push's pack, not forced yet (as moveRefs does first).
        CacheRepository.forceReceived(cache);
        FetchResult result = git.fetch()
            .setRemote(remoteUrl)
            .setRefSpecs(MIRRORED)
            .setRemoveDeletedRefs(true)
            .setTimeout(timeoutSeconds)
            .setTransportConfigCallback(t -> authenticate(t, token))
            .call();
        return !result.getTrackingRefUpdates().isEmpty();
      } catch (GitAPIException | IOException | RuntimeException e) {
        // A ref lock held for a moment by another writer fails the fetch: try again.
        if (attempt < 3 && mentionsLock(e)) {
          sleep(50L * attempt);
          continue;
        }
        metrics.onSync(java.time.Duration.ofNanos(System.nanoTime() - start), false, false);
        throw new UpstreamException("could not read " + repo + " upstream: " + e.getMessage(), e);
      }
    }
  }

  /**
   * Records that upstream took {@code commands}, so that the next advertisement shows them
   * without a fetch. They are written in the background, after the push is answered, which spares
   * the push a ref update on disk. Whatever holds the repository's lock (a sync, a compaction)
   * writes what is still pending first: no advertisement predates a push answered before it was
   * asked for, and no compaction drops the objects of a push whose ref is not written yet.
   */
  void landed(RepoSlug repo, List<ReceiveCommand> commands) {
    if (commands.isEmpty()) {
      return;
    }
    landed.computeIfAbsent(repo.key(), k -> new ConcurrentLinkedQueue<>()).addAll(commands);
    try {
      refWriter.execute(() -> {
        ReentrantLock lock = lockOf(repo);
        lock.lock();
        try {
          writeLanded(repo);
        } finally {
          lock.unlock();
        }
      });
    } catch (RejectedExecutionException e) {
      // Never fails the push, which has landed: the next sync writes what is pending.
      log.warn("could not schedule the cache ref update of {}: {}", repo, e.toString());
    }
  }

  /** Under the repository's lock. */
  private void writeLanded(RepoSlug repo) {
    Queue<ReceiveCommand> pending = landed.get(repo.key());
    if (pending == null || pending.isEmpty()) {
      return;
    }
    try (Repository cache = open(repo)) {
      // The pushes' packs first: no ref of the cache names an object a crash could lose.
      CacheRepository.forceReceived(cache);
      for (ReceiveCommand c; (c = pending.poll()) != null; ) {
        setRef(cache, c);
      }
    } catch (IOException e) {
      log.warn("could not record a push in the cache of {}: {}", repo, e.getMessage());
    }
  }

  private static void setRef(Repository cache, ReceiveCommand cmd) {
    try {
      RefUpdate ru = cache.updateRef(cmd.getRefName());
      ru.disableRefLog();
      ru.setForceUpdate(true);
      if (cmd.getType() == ReceiveCommand.Type.DELETE) {
        ru.delete();
      } else {
        ru.setExpectedOldObjectId(null);
        ru.setNewObjectId(cmd.getNewId());
        ru.update();
      }
    } catch (IOException e) {
      // The cache is only a cache: the next sync finds it differs and fetches from upstream.
      log.warn("could not update the cache ref {}: {}", cmd.getRefName(), e.getMessage());
    }
  }

  /**
   * Moves the cache's branches and tags to those upstream listed, with the objects they need; under
   * the lock. The ref list read for the question "did upstream move?" is the one the cache follows,
   * so a fetch costs one more request, not JGit's two. JGit's fetch remains for a pack past the
   * bound of the quick fetch (a first sync of a large repository); it reads the list again.
   */
  private void follow(RepoSlug repo, String remoteUrl, Secret token,
      Map<String, ObjectId> listed, long start) throws UpstreamException {
    try (Repository cache = open(repo)) {
      Set<ObjectId> wants = wanted(cache, listed);
      if (!wants.isEmpty()) {
        // Every ref tip of the cache is whole: fetched, or received with its connectivity checked.
        fetcher.fetch(cache, remoteUrl, token, wants, new HashSet<>(mirrored(cache).values()));
      }
      moveRefs(cache, listed);
    } catch (SideBandPackIn.TooLarge e) {
      log.info("the fetch of {} is larger than {} bytes; fetching it with JGit", repo,
          maxFetchBytes);
      fetch(repo, remoteUrl, token, start);
    } catch (IOException | RuntimeException e) {
      throw failed(repo, start, e);
    }
  }

  /** The ids upstream listed whose objects the cache lacks. */
  private static Set<ObjectId> wanted(Repository cache, Map<String, ObjectId> listed)
      throws IOException {
    Set<ObjectId> wants = new LinkedHashSet<>();
    for (ObjectId id : listed.values()) {
      if (!cache.getObjectDatabase().has(id)) {
        wants.add(id);
      }
    }
    return wants;
  }

  /** {@link #moveRefsOnce}, again while another writer holds a ref's lock for a moment. */
  private static void moveRefs(Repository cache, Map<String, ObjectId> listed)
      throws IOException {
    // Upstream may have moved to objects a push brought into the cache: force them first.
    CacheRepository.forceReceived(cache);
    for (int attempt = 1; !moveRefsOnce(cache, listed); attempt++) {
      // A ref lock held for a moment by another writer fails the batch whole: try again.
      if (attempt == 3) {
        throw new IOException("the cache's refs stayed locked");
      }
      sleep(50L * attempt);
    }
  }

  /** Forces the cache's branches and tags to {@code listed}, all or none; false on a lock. */
  private static boolean moveRefsOnce(Repository cache, Map<String, ObjectId> listed)
      throws IOException {
    Map<String, ObjectId> mirrored = mirrored(cache);
    BatchRefUpdate batch = cache.getRefDatabase().newBatchUpdate();
    batch.setAllowNonFastForwards(true);
    batch.disableRefLog();
    listed.forEach((name, id) -> {
      ObjectId old = mirrored.getOrDefault(name, ObjectId.zeroId());
      if (!old.equals(id)) {
        batch.addCommand(new ReceiveCommand(old, id, name));
      }
    });
    mirrored.forEach((name, old) -> {
      if (!listed.containsKey(name)) {
        batch.addCommand(new ReceiveCommand(old, ObjectId.zeroId(), name));
      }
    });
    if (batch.getCommands().isEmpty()) {
      return true;
    }
    try (RevWalk walk = new RevWalk(cache)) {
      batch.execute(walk, NullProgressMonitor.INSTANCE);
    }
    for (ReceiveCommand c : batch.getCommands()) {
      if (c.getResult() == ReceiveCommand.Result.LOCK_FAILURE) {
        return false;
      }
      if (c.getResult() != ReceiveCommand.Result.OK) {
        throw new IOException("could not move the cache's " + c.getRefName() + ": "
            + c.getResult());
      }
    }
    return true;
  }

  private static Map<String, ObjectId> mirrored(Repository cache) throws IOException {
    Map<String, ObjectId> mirrored = new HashMap<>();
    for (Ref r : cache.getRefDatabase().getRefsByPrefix(Constants.R_HEADS, Constants.R_TAGS)) {
      if (r.getObjectId() != null) {
        mirrored.put(r.getName(), r.getObjectId());
      }
    }
    return mirrored;
  }

  /**
   * Every push leaves one pack in the cache and every fetch another. JGit searches each for every
   * object a push brings, and lists them all again whenever one was added. Past
   * {@link #COMPACT_ABOVE_PACKS}, counted at every sync, the cache is repacked in the background,
   * under the same lock as a sync. A push in flight is safe: JGit keeps the pack it received with
   * a .keep file until the push is answered, forwarding and any wait for an approver included.
   * What a refused push left behind is unreachable and goes.
   */
  private void compactIfCrowded(RepoSlug repo) {
    if (!compacting.add(repo.key())) {
      return; // a count or a compaction is queued or running
    }
    // Counted in the background too: the pack directory changed with the last push, so JGit
    // would list it again here, on the way to the advertisement.
    maintenance.execute(() -> {
      try {
        if (packFiles(repo) > COMPACT_ABOVE_PACKS) {
          compact(repo);
        }
      } finally {
        compacting.remove(repo.key());
      }
    });
  }

  private void compact(RepoSlug repo) {
    ReentrantLock lock = lockOf(repo);
    lock.lock();
    long start = System.nanoTime();
    try (Repository cache = open(repo)) {
      writeLanded(repo);
      if (readers.containsKey(repo.key())) {
        // replaced packs would go from under a clone; the next sync counts again
        log.debug("not compacting the cache of {} while a fetch reads it", repo);
        return;
      }
      int before = packFiles(repo);
      GC gc = new GC((FileRepository) cache);
      // Replaced packs go at once, or each later compaction would find them all again.
      gc.setPackExpireAgeMillis(0);
      // Objects only: packing refs would race the advertisements read outside the lock (a ref
      // briefly read from the old packed-refs after its loose file went), and an advertisement
      // older than upstream fails the push as stale.
      gc.repack();
      log.info("compacted the cache of {}: {} packs -> {} in {} ms", repo, before,
          packFiles(repo), (System.nanoTime() - start) / 1_000_000);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      log.warn("could not compact the cache of {}: {}", repo, e.getMessage());
    } finally {
      lock.unlock();
    }
  }

  private int packFiles(RepoSlug repo) {
    int n = 0;
    try (DirectoryStream<Path> packs =
        Files.newDirectoryStream(directoryOf(repo).resolve("objects/pack"), "*.pack")) {
      for (Path ignored : packs) {
        n++;
      }
    } catch (IOException e) {
      log.debug("could not count the packs of the cache of {}: {}", repo, e.getMessage());
    }
    return n;
  }

  /**
   * Sends {@code token} as GitHub expects it for git over HTTPS. Up front over HTTP: GitHub, like
   * the local forge, answers 401 to a request without it, and waiting for that costs a round trip
   * on every request.
   */
  static void authenticate(Transport transport, Secret token) {
    transport.setCredentialsProvider(
        new UsernamePasswordCredentialsProvider("x-access-token", token.reveal()));
    if (transport instanceof TransportHttp http) {
      http.setPreemptiveBasicAuthentication("x-access-token", token.reveal());
    }
  }

  private static boolean mentionsLock(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = t.getMessage();
      if (m != null && m.toLowerCase(Locale.ROOT).contains("lock")) {
        return true;
      }
    }
    return false;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Stops compaction, ref writing and fetching; refs not written yet are fetched by the next sync,
   * and a push waiting for a fetch that was stopped fails.
   */
  void close() {
    maintenance.shutdownNow();
    refWriter.shutdownNow();
    fetchers.shutdownNow();
    fetching.values().forEach(f -> f.completeExceptionally(
        new UpstreamException("the gateway is stopping", null)));
  }

  /** One thread at most, gone when idle. */
  private static ThreadPoolExecutor oneThreadWhenBusy(String name, int priority) {
    return new ThreadPoolExecutor(0, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      t.setPriority(priority);
      return t;
    });
  }

  private ReentrantLock lockOf(RepoSlug repo) {
    return locks.computeIfAbsent(repo.key(), k -> new ReentrantLock());
  }

  private Path directoryOf(RepoSlug repo) {
    // RepoSlug forbids separators and dot segments, so this stays under root.
    return root.resolve(repo.owner().toLowerCase(Locale.ROOT))
        .resolve(repo.name().toLowerCase(Locale.ROOT) + ".git");
  }
}
