package dev.pushgate.gateway;

import dev.pushgate.types.RepoSlug;
import dev.pushgate.types.Secret;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.transport.FetchResult;
import org.eclipse.jgit.transport.ReceiveCommand;
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
  /** The default of the gateway's bound on a push, which bounds the quick fetch too. */
  static final long DEFAULT_MAX_FETCH_BYTES = 2L << 30;

  private final CacheRepositories repositories;
  private final LandedRefs landed;
  private final CacheCompaction compaction;
  private final int timeoutSeconds;
  private final long maxFetchBytes;
  private final UpstreamFetch fetcher;
  private final PushMetrics metrics;
  private final RepositoryWaits waits;
  private final CacheRefsAhead refsAhead = new CacheRefsAhead();
  /** Which syncs of each repository began and which left it in step ({@link SyncTurns}). */
  private final ConcurrentHashMap<String, SyncTurns> syncTurns = new ConcurrentHashMap<>();

  /**
   * The latest fetch an advertisement did not wait for, per repository. A done one is removed; a
   * failed one stays, so that the push which follows its advertisement fails, until the next sync
   * of the repository decides afresh.
   */
  private final ConcurrentHashMap<String, CompletableFuture<Void>> fetching =
      new ConcurrentHashMap<>();
  /**
   * Upstream's symbolic refs per repository, as the latest sync listed them: unknown when it could
   * not read the list. Every push of the repository is judged with them ({@link #symrefs}).
   */
  private final ConcurrentHashMap<String, UpstreamSymrefs> symrefs = new ConcurrentHashMap<>();
  /** Of those fetches, the ones a fetch's advertisement started, which a client may read. */
  private final ConcurrentHashMap<String, FetchStream> streams = new ConcurrentHashMap<>();
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
    this.repositories = new CacheRepositories(root);
    this.landed = new LandedRefs(repositories);
    this.compaction = new CacheCompaction(repositories, landed);
    this.timeoutSeconds = timeoutSeconds;
    this.maxFetchBytes = maxFetchBytes;
    this.metrics = metrics;
    this.fetcher = new UpstreamFetch(new UpstreamHttp(timeoutSeconds), maxFetchBytes);
  }

  /** {@link CacheRepositories#open}: the cache of {@code repo}, created when missing. */
  Repository open(RepoSlug repo) throws IOException {
    return repositories.open(repo);
  }

  /** {@link CacheRepositories#openExisting}: never creating it. */
  Optional<Repository> openExisting(RepoSlug repo) throws IOException {
    return repositories.openExisting(repo);
  }

  /** {@link CacheRepositories#existing}: the caches on disk, most recently written first. */
  List<RepoSlug> existing() throws IOException {
    return repositories.existing();
  }

  /**
   * Opens the cache of {@code repo} and reads its refs and its packs' indexes, as the first push
   * to it after a start would: the instance stays in JGit's {@link
   * org.eclipse.jgit.lib.RepositoryCache}, so that push finds them read. Reads only; takes no
   * lock (a fetch or compaction under way changes nothing this keeps: JGit rescans).
   */
  void warm(RepoSlug repo) throws IOException {
    Optional<Repository> opened = repositories.openExisting(repo);
    if (opened.isEmpty()) {
      return;
    }
    try (Repository db = opened.get()) {
      db.getRefDatabase().getRefs();
      CacheRepository.readPacks(db);
    }
  }

  /**
   * {@link LandedRefs#landed}: upstream took {@code commands}, with the push's pack if it is held
   * in memory; written after the answer.
   */
  void landed(RepoSlug repo, List<ReceiveCommand> commands, Optional<ReceivedInMemory> pack) {
    landed.landed(repo, commands, pack);
  }

  /** {@link LandedRefs#writeInBackground}: once the push is answered. */
  void writeLanded(RepoSlug repo) {
    landed.writeInBackground(repo);
  }

  /** {@link CacheCompaction#compactWithBitmaps}: what a run reaches went past its bound. */
  void compactWithBitmaps(RepoSlug repo) {
    compaction.compactWithBitmaps(repo);
  }

  /** {@link LandedRefs#writeInBackgroundThen}: a pushed pack's {@code .keep} deleted. */
  void unkeepAfterLandedRefs(RepoSlug repo, Runnable unkeep) {
    landed.writeInBackgroundThen(repo, unkeep);
  }

  /** {@link CacheCompaction#reading}: no compaction while a fetch reads the cache. */
  AutoCloseable reading(RepoSlug repo) {
    return compaction.reading(repo);
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
   * Syncs the cache for an advertisement: upstream's branches and tags as this sync listed them,
   * to be advertised as they are. The cache holds them on return when they were in step or it had
   * every object already (the advertisement then reads nothing of the cache's again); otherwise
   * their objects are fetched in the background, and whatever then reads the cache's refs or
   * objects for a push calls {@link #awaitFetch} first. Empty when this sync listed nothing: a
   * sync that began after it answered it, or the ref list could not be read and JGit's fetch ran
   * here; the cache holds upstream's refs then.
   */
  Optional<Map<String, ObjectId>> syncAhead(RepoSlug repo, String remoteUrl, Secret token)
      throws UpstreamException, RepositoryBusy {
    return syncAhead(repo, remoteUrl, token, false);
  }

  /**
   * Syncs the cache for a fetch's advertisement as {@link #syncAhead} does for a push's: when
   * upstream moved, the objects are fetched in the background, and {@link #inFlight} has upstream's
   * refs to advertise meanwhile and the pack as it arrives, for the client whose request it
   * serves ({@link StreamedFetch}). Any other request of the fetch waits for the cache ({@link
   * #awaitFetch}).
   */
  void syncForFetch(RepoSlug repo, String remoteUrl, Secret token)
      throws UpstreamException, RepositoryBusy {
    syncAhead(repo, remoteUrl, token, true);
  }

  /**
   * Upstream's symbolic branches and tags of {@code repo} as its latest sync listed them; unknown
   * before the first or after one that could not read the list. One list for every door that
   * writes to {@code repo}: a push's judge and the API boundary's read this same one.
   */
  UpstreamSymrefs symrefs(RepoSlug repo) {
    return symrefs.getOrDefault(repo.key(), UpstreamSymrefs.unknown(repo));
  }

  /**
   * Upstream's symbolic refs of {@code repo} listed now, kept as {@link #symrefs}: for each API
   * ref write (no request precedes it, and the list of the repository's last git sync may be any
   * age: an alias made since would be judged by its name), and for a push whose client sent no
   * advertisement request since the gateway started (git always does). One ref-list request;
   * the cache's refs are left to the next sync. Unknown, so refused, when upstream cannot be read.
   */
  UpstreamSymrefs symrefsListedNow(RepoSlug repo, String remoteUrl, Secret token) {
    Optional<UpstreamRefList.Listing> listing =
        UpstreamRefList.list(remoteUrl, token, timeoutSeconds, false);
    if (listing.isEmpty()) {
      return UpstreamSymrefs.unknown(repo);
    }
    UpstreamSymrefs read = UpstreamSymrefs.listed(repo, listing.get().symrefs());
    symrefs.put(repo.key(), read);
    return read;
  }

  /** The fetch of {@code repo} a fetch's advertisement started and is still under way, if any. */
  Optional<FetchStream> inFlight(RepoSlug repo) {
    return Optional.ofNullable(streams.get(repo.key()));
  }

  private Optional<Map<String, ObjectId>> syncAhead(RepoSlug repo, String remoteUrl, Secret token,
      boolean forFetch) throws UpstreamException, RepositoryBusy {
    long asked = System.nanoTime();
    SyncTurns turns = syncTurns.computeIfAbsent(repo.key(), k -> new SyncTurns());
    long arrived = turns.begun();
    ReentrantLock lock = repositories.lockOf(repo);
    lockWithNoFetchPending(repo, lock);
    long start = System.nanoTime();
    // The locked part is a method of its own so that javac does not copy this finally into each
    // of its five returns: as one method it was too large for C1 ("out of virtual registers"),
    // and ran in the interpreter until C2 took it, some 5,000 pushes later (docs/benchmarks.md,
    // "The JIT's steady state").
    try {
      return syncLocked(repo, remoteUrl, token, forFetch, turns, arrived, asked, start);
    } finally {
      if (!fetching.containsKey(repo.key())) {
        compaction.compactIfCrowded(repo); // else once the fetch has added its pack
      }
      lock.unlock();
    }
  }

  /** {@link #syncAhead}'s work under the repository's lock, from {@code start}. */
  private Optional<Map<String, ObjectId>> syncLocked(RepoSlug repo, String remoteUrl,
      Secret token, boolean forFetch, SyncTurns turns, long arrived, long asked, long start)
      throws UpstreamException, RepositoryBusy {
    landed.write(repo);
    if (turns.answers(arrived)) {
      log.debug("cache of {} synced meanwhile by a sync that began after this request", repo);
      return Optional.empty();
    }
    fetching.remove(repo.key()); // one that failed: this sync decides afresh
    long turn = turns.begin();
    CacheRefsAhead.Reading mirroredAhead;
    try {
      mirroredAhead = refsAhead.start(repositories, repo); // while upstream answers the list
    } catch (IOException | RuntimeException e) {
      throw failed(repo, start, e);
    }
    Optional<UpstreamRefList.Listing> listing =
        UpstreamRefList.list(remoteUrl, token, timeoutSeconds, forFetch);
    symrefs.put(repo.key(), listing
        .map(l -> UpstreamSymrefs.listed(repo, l.symrefs()))
        .orElseGet(() -> UpstreamSymrefs.unknown(repo)));
    listing.map(UpstreamRefList.Listing::head).ifPresent(h -> followHead(repo, h));
    Optional<Map<String, ObjectId>> listed = listing.map(UpstreamRefList.Listing::refs);
    if (listed.isEmpty()) {
      onSynced(repo, asked, start, fetch(repo, remoteUrl, token, start));
      turns.inStep(turn);
      return Optional.empty();
    }
    FetchStream stream = null;
    try (Repository cache = open(repo)) {
      Map<String, ObjectId> mirrored = mirroredAhead.refs();
      if (mirrored.equals(listed.get())) {
        onSynced(repo, asked, start, false);
        turns.inStep(turn);
        return listed;
      }
      if (MirroredRefs.wanted(cache, listed.get()).isEmpty()) {
        MirroredRefs.move(cache, listed.get());
        onSynced(repo, asked, start, true);
        turns.inStep(turn);
        return listed;
      }
      if (forFetch) {
        stream = new FetchStream(FetchStream.advertised(listed.get(), listing.get().peeled(),
                listing.get().head()),
            PackSpool.in(cache.getDirectory().toPath()));
      }
    } catch (IOException | RuntimeException e) {
      throw failed(repo, start, e);
    }
    CompletableFuture<Void> fetched = new CompletableFuture<>();
    fetching.put(repo.key(), fetched);
    FetchStream streamed = stream;
    if (streamed != null) {
      streams.put(repo.key(), streamed);
    }
    try {
      fetchers.execute(() -> fetchAhead(repo, remoteUrl, token, listed.get(), asked, fetched,
          () -> turns.inStep(turn), streamed));
    } catch (RejectedExecutionException e) {
      // four fetches at once already: this one here, before its advertisement (the lock is
      // reentrant), which fails if it failed; nobody reads it as it arrives
      if (streamed != null) {
        streams.remove(repo.key(), streamed);
        streamed.askedNothing("the fetch ran before the advertisement");
      }
      fetchAhead(repo, remoteUrl, token, listed.get(), asked, fetched,
          () -> turns.inStep(turn), null);
      awaitFetch(repo);
      return Optional.empty();
    }
    return listed;
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
    ReentrantLock lock = repositories.lockOf(repo);
    lockWithNoFetchPending(repo, lock);
    try (Repository cache = open(repo)) {
      if (!cache.getObjectDatabase().has(id)) {
        fetcher.fetch(cache, remoteUrl, token, List.of(id),
            new HashSet<>(MirroredRefs.of(cache).values()));
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
      if (headLinks(cache, branch)) {
        return;
      }
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
   * Whether the cache's HEAD file already links to {@code branch}, read as git writes it, without
   * resolving the link: JGit's {@link Repository#exactRef} also reads the branch, first as a loose
   * ref file, which a compacted cache does not have (its refs are packed), at the cost of four
   * exceptions on every push. Anything else, a detached HEAD or another spelling, answers false
   * and leaves the check to JGit.
   */
  private static boolean headLinks(Repository cache, String branch) throws IOException {
    byte[] head = Files.readAllBytes(cache.getDirectory().toPath().resolve(Constants.HEAD));
    return Arrays.equals(head,
        ("ref: " + branch + "\n").getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The fetch a {@link #syncAhead} of {@code repo} left running, if it is still under way (and
   * hurried, as {@link #awaitFetch} would): for a push to read its pack ahead meanwhile.
   */
  Optional<Future<Void>> fetchUnderWay(RepoSlug repo) {
    CompletableFuture<Void> pending = fetching.get(repo.key());
    if (pending == null || pending.isDone()) {
      return Optional.empty();
    }
    hurry(repo);
    return Optional.of(pending);
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
    hurry(repo);
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
    hurry(repo);
    waits.lockWithNoFetchPending(repo, lock, () -> fetching.get(repo.key()));
  }

  /**
   * A fetch waiting for its client's request ({@link FetchStream#haves}) asks upstream now: a
   * push, another sync or a client served from the cache waits for it.
   */
  private void hurry(RepoSlug repo) {
    FetchStream stream = streams.get(repo.key());
    if (stream != null) {
      stream.hurry();
    }
  }

  /**
   * Fetches what {@code listed} needs and moves the cache's refs to it, then runs {@code inStep};
   * under the lock.
   */
  private void fetchAhead(RepoSlug repo, String remoteUrl, Secret token,
      Map<String, ObjectId> listed, long asked, CompletableFuture<Void> done, Runnable inStep,
      FetchStream stream) {
    ReentrantLock lock = repositories.lockOf(repo);
    lock.lock();
    long start = System.nanoTime();
    try {
      landed.write(repo);
      follow(repo, remoteUrl, token, listed, start, stream);
      onSynced(repo, asked, start, true);
      inStep.run();
      fetching.remove(repo.key(), done);
      done.complete(null);
    } catch (UpstreamException | RuntimeException e) {
      done.completeExceptionally(e);
    } finally {
      if (stream != null) {
        // no effect once the cache had the whole pack: the client has it too
        stream.askedNothing("the gateway's fetch from upstream failed; nothing was stored,"
            + " try again");
        streams.remove(repo.key(), stream);
      }
      compaction.compactIfCrowded(repo);
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
        // may name an object of a push's pack, not forced yet (as MirroredRefs.move does first).
        CacheRepository.forceReceived(cache);
        FetchResult result = git.fetch()
            .setRemote(remoteUrl)
            .setRefSpecs(MirroredRefs.SPECS)
            .setRemoveDeletedRefs(true)
            .setTimeout(timeoutSeconds)
            .setTransportConfigCallback(t -> authenticate(t, token))
            .call();
        return !result.getTrackingRefUpdates().isEmpty();
      } catch (GitAPIException | IOException | RuntimeException e) {
        // A ref lock held for a moment by another writer fails the fetch: try again.
        if (attempt < 3 && MirroredRefs.mentionsLock(e)) {
          MirroredRefs.sleep(50L * attempt);
          continue;
        }
        metrics.onSync(java.time.Duration.ofNanos(System.nanoTime() - start), false, false);
        throw new UpstreamException("could not read " + repo + " upstream: " + e.getMessage(), e);
      }
    }
  }

  /**
   * Moves the cache's branches and tags to those upstream listed, with the objects they need; under
   * the lock. The ref list read for the question "did upstream move?" is the one the cache follows,
   * so a fetch costs one more request, not JGit's two. JGit's fetch remains for a pack past the
   * bound of the quick fetch (a first sync of a large repository); it reads the list again.
   */
  private void follow(RepoSlug repo, String remoteUrl, Secret token,
      Map<String, ObjectId> listed, long start, FetchStream stream) throws UpstreamException {
    try (Repository cache = open(repo)) {
      Set<ObjectId> wants = MirroredRefs.wanted(cache, listed);
      if (!wants.isEmpty()) {
        // Every ref tip of the cache is whole: fetched, or received with its connectivity checked.
        Set<ObjectId> haves = CommonHaves.tips(cache);
        if (stream == null) {
          fetcher.fetch(cache, remoteUrl, token, wants, haves);
        } else {
          // asked with the haves of the client who reads the pack, if one comes in time
          fetcher.fetch(cache, remoteUrl, token, wants, stream.haves(wants, haves),
              stream.spool());
          stream.spool().complete(); // every wanted object is in the cache: the trailer may go
        }
      }
      MirroredRefs.move(cache, listed);
    } catch (SideBandPackIn.TooLarge e) {
      log.info("the fetch of {} is larger than {} bytes; fetching it with JGit", repo,
          maxFetchBytes);
      fetch(repo, remoteUrl, token, start);
    } catch (IOException | RuntimeException e) {
      throw failed(repo, start, e);
    }
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

  /**
   * Stops compaction, ref writing and fetching; refs not written yet are fetched by the next sync,
   * and a push waiting for a fetch that was stopped fails.
   */
  void close() {
    // Fetches first: one may hold a repository's lock for as long as upstream takes, and the
    // compaction and the ref writer, whose work under way the stop waits for, wait for that lock.
    fetchers.shutdownNow();
    streams.values().forEach(s -> s.askedNothing("the gateway is stopping"));
    fetching.values().forEach(f -> f.completeExceptionally(
        new UpstreamException("the gateway is stopping", null)));
    refsAhead.close();
    compaction.close();
    landed.close();
  }
}
