package dev.pushgate.gateway;

import static dev.pushgate.gateway.WireBytes.ascii;
import static dev.pushgate.gateway.WireBytes.concat;
import static dev.pushgate.gateway.WireBytes.pkt;
import static dev.pushgate.gateway.WireBytes.sideBand;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.testkit.Wait;
import dev.pushgate.types.RepoSlug;
import dev.pushgate.types.Secret;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.transport.RefSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The cache mirrors upstream's branches and tags, reading only the ref list when in step. */
class UpstreamCacheTest {
  private static final RepoSlug REPO = RepoSlug.parse("acme/widget");
  private static final Secret TOKEN = Secret.of("ghs_readTokenForTheCacheSync000000000000");

  @TempDir Path tmp;
  private Repository upstream;
  private UpstreamCache cache;
  private final List<Boolean> syncs = new ArrayList<>();
  private final List<Boolean> fetches = new ArrayList<>();
  private HttpUpstream http;

  @BeforeEach
  void setUp() throws Exception {
    http = new HttpUpstream(tmp);
    upstream = TestRepos.bare(tmp.resolve("upstream.git"));
    RevCommit root = TestRepos.commit(upstream, "root", Map.of("README", "hello"));
    TestRepos.setRef(upstream, "refs/heads/main", root);
    TestRepos.setRef(upstream, "refs/heads/old", root);
    TestRepos.setRef(upstream, "refs/tags/v1", TestRepos.annotatedTag(upstream, "v1", root));
    TestRepos.setRef(upstream, "refs/pull/1/head", root);
    cache = new UpstreamCache(tmp.resolve("cache"), 30, new PushMetrics() {
      @Override
      public void onSync(Duration took, boolean ok, boolean fetched) {
        syncs.add(ok);
        fetches.add(fetched);
      }
    });
  }

  @AfterEach
  void stop() throws Exception {
    http.close();
  }

  @Test
  void aFirstSyncMirrorsBranchesAndTagsOnly() throws Exception {
    cache.sync(REPO, http.url(tmp.resolve("upstream.git")), TOKEN);

    assertThat(refs(cacheRepo())).isEqualTo(refs(upstream));
    assertThat(syncs).containsExactly(true);
  }

  @Test
  void aSyncWithUpstreamUnchangedFetchesNothing() throws Exception {
    String url = http.url(tmp.resolve("upstream.git"));
    cache.sync(REPO, url, TOKEN);
    int packs = packs();

    http.requests.clear();
    cache.sync(REPO, url, TOKEN);
    cache.sync(REPO, url, TOKEN);

    assertThat(fetches).containsExactly(true, false, false);
    assertThat(http.requests).as("one request each, for the ref list").containsExactly(
        new HttpUpstream.Seen("POST /upstream.git/git-upload-pack " + HttpUpstream.LS_REFS, true),
        new HttpUpstream.Seen("POST /upstream.git/git-upload-pack " + HttpUpstream.LS_REFS, true));
    assertThat(packs()).as("no fetch, so no new pack").isEqualTo(packs);
    assertThat(refs(cacheRepo())).isEqualTo(refs(upstream));
  }

  @Test
  void aSyncOfACompactedCacheWhoseHeadIsUpstreamsThrowsNothingToCheckItsHead() throws Exception {
    upstream.updateRef(Constants.HEAD).link("refs/heads/main"); // advertised as a symref
    String url = http.url(tmp.resolve("upstream.git"));
    cache.sync(REPO, url, TOKEN);
    try (Repository db = cacheRepo()) {
      Git.wrap(db).packRefs().setAll(true).call(); // as a compaction leaves them: no loose ref
      assertThat(db.exactRef(Constants.HEAD).getTarget().getName()).isEqualTo("refs/heads/main");
    }

    List<ExceptionsThrown.Thrown> thrown =
        ExceptionsThrown.during(() -> cache.sync(REPO, url, TOKEN));

    assertThat(thrown).as("the HEAD check's")
        .filteredOn(t -> t.through("UpstreamCache.followHead") && t.missingFile()
            && !t.readingTheUsersGitConfig())
        .isEmpty();
    assertThat(syncs).containsExactly(true, true);
  }

  @Test
  void aSyncFollowsUpstreamMovingCreatingAndDeletingRefs() throws Exception {
    String url = http.url(tmp.resolve("upstream.git"));
    cache.sync(REPO, url, TOKEN);

    RevCommit next = TestRepos.commit(upstream, "next", Map.of("README", "hello again"),
        TestRepos.idOf(upstream, "refs/heads/main"));
    TestRepos.setRef(upstream, "refs/heads/main", next);
    TestRepos.setRef(upstream, "refs/heads/feature", next);
    RefUpdate delete = upstream.updateRef("refs/heads/old");
    delete.setForceUpdate(true);
    assertThat(delete.delete()).isEqualTo(RefUpdate.Result.FORCED);
    cache.sync(REPO, url, TOKEN);

    assertThat(fetches).containsExactly(true, true);
    assertThat(refs(cacheRepo())).isEqualTo(refs(upstream)).containsKey("refs/heads/feature")
        .doesNotContainKey("refs/heads/old");
    try (Repository db = cacheRepo()) {
      assertThat(db.getObjectDatabase().has(next)).isTrue();
    }
  }

  @Test
  void aSyncAfterUpstreamMovedAsksOnceForThePackWithoutListingRefsAgain() throws Exception {
    String url = http.url(tmp.resolve("upstream.git"));
    cache.sync(REPO, url, TOKEN);
    ObjectId root = TestRepos.idOf(upstream, "refs/heads/main");
    RevCommit forced = TestRepos.commit(upstream, "rewritten", Map.of("README", "rewritten"));
    RevCommit ahead = TestRepos.commit(upstream, "ahead", Map.of("NEW", "new"), root);
    TestRepos.setRef(upstream, "refs/heads/main", forced); // not a fast-forward
    TestRepos.setRef(upstream, "refs/heads/old", ahead); // a fast-forward
    TestRepos.setRef(upstream, "refs/tags/v2", TestRepos.annotatedTag(upstream, "v2", ahead));
    http.requests.clear();

    cache.sync(REPO, url, TOKEN);

    assertThat(fetches).containsExactly(true, true);
    assertThat(http.requests).as("the ref list, then the pack").containsExactly(
        new HttpUpstream.Seen("POST /upstream.git/git-upload-pack " + HttpUpstream.LS_REFS, true),
        new HttpUpstream.Seen("POST /upstream.git/git-upload-pack", true));
    assertThat(refs(cacheRepo())).isEqualTo(refs(upstream)).containsKey("refs/tags/v2");
  }

  @Test
  @Timeout(60)
  void whenUpstreamMovedTheAdvertisementHasItsRefsBeforeTheCacheFetchedThem() throws Exception {
    String url = http.url(tmp.resolve("upstream.git"));
    cache.sync(REPO, url, TOKEN);
    Map<String, ObjectId> before = refs(cacheRepo());
    RevCommit next = moveUpstreamMain();
    CountDownLatch release = new CountDownLatch(1);
    http.uploadPackAnswer = answer -> {
      awaitQuietly(release);
      return answer;
    };

    // Returns while upstream holds the answer to the fetch: it did not wait for it.
    Optional<Map<String, ObjectId>> listed = cache.syncAhead(REPO, url, TOKEN);

    assertThat(listed).hasValue(refs(upstream));
    assertThat(refs(cacheRepo())).as("the cache's refs wait for their objects").isEqualTo(before);
    CompletableFuture<Void> push = CompletableFuture.runAsync(() -> {
      try {
        cache.awaitFetch(REPO);
      } catch (UpstreamException e) {
        throw new CompletionException(e);
      }
    });
    assertThat(push).as("the push waits for the fetch").isNotDone();
    release.countDown();
    push.get(30, TimeUnit.SECONDS);
    assertThat(refs(cacheRepo())).isEqualTo(refs(upstream));
    try (Repository db = cacheRepo()) {
      assertThat(db.getObjectDatabase().has(next)).isTrue();
    }
    assertThat(fetches).containsExactly(true, true);
  }

  @Test
  void aCrowdOfSyncsWaitingForOneIsAnsweredByOneListingThatBeganAfterThemAll() throws Exception {
    String url = http.url(tmp.resolve("upstream.git"));
    cache.sync(REPO, url, TOKEN);
    moveUpstreamMain();
    CountDownLatch release = new CountDownLatch(1);
    http.uploadPackAnswer = answer -> {
      awaitQuietly(release);
      return answer;
    };
    assertThat(cache.syncAhead(REPO, url, TOKEN)).isPresent(); // its fetch is held upstream
    int crowd = 10;
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(crowd);
    List<CompletableFuture<Optional<Map<String, ObjectId>>>> waiting = new ArrayList<>();
    for (int i = 0; i < crowd; i++) {
      waiting.add(CompletableFuture.supplyAsync(() -> {
        try {
          return cache.syncAhead(REPO, url, TOKEN);
        } catch (UpstreamException | RepositoryBusy e) {
          throw new CompletionException(e);
        }
      }, pool));
    }
    pool.shutdown(); // its threads end with their syncs
    Wait.until(Duration.ofSeconds(30), "the crowd to wait for the fetch",
        () -> cache.waiting(REPO) == crowd);
    http.requests.clear();
    release.countDown();
    Map<String, ObjectId> upstreamRefs = refs(upstream);
    for (CompletableFuture<Optional<Map<String, ObjectId>>> w : waiting) {
      // in step on return: the one that listed hands back what it listed, the others nothing
      w.get(30, TimeUnit.SECONDS).ifPresent(listed -> assertThat(listed).isEqualTo(upstreamRefs));
    }

    // The held fetch read upstream's list before the crowd came, so one listing after it is
    // needed, and it answers them all.
    assertThat(http.requests).extracting(HttpUpstream.Seen::request)
        .filteredOn(r -> r.endsWith(HttpUpstream.LS_REFS)).as("ref listings for %d syncs", crowd)
        .containsExactly("POST /upstream.git/git-upload-pack " + HttpUpstream.LS_REFS);
    assertThat(refs(cacheRepo())).isEqualTo(refs(upstream));
  }

  @Test
  void aFetchThatFailsAfterItsAdvertisementFailsThePushUntilTheNextSyncTriesAgain()
      throws Exception {
    String url = http.url(tmp.resolve("upstream.git"));
    cache.sync(REPO, url, TOKEN);
    Map<String, ObjectId> before = refs(cacheRepo());
    moveUpstreamMain();
    http.uploadPackAnswer = answer -> "0009JUNK\n".getBytes(UTF_8);

    assertThat(cache.syncAhead(REPO, url, TOKEN)).isPresent();

    for (int push = 0; push < 2; push++) {
      assertThatThrownBy(() -> cache.awaitFetch(REPO)).isInstanceOf(UpstreamException.class)
          .hasMessageStartingWith("could not read acme/widget").hasMessageContaining("malformed")
          .hasMessageNotContaining(TOKEN.reveal());
    }
    assertThat(refs(cacheRepo())).isEqualTo(before);

    http.uploadPackAnswer = null;
    cache.sync(REPO, url, TOKEN);
    cache.awaitFetch(REPO);
    assertThat(refs(cacheRepo())).isEqualTo(refs(upstream));
  }

  @Test
  void anAdvertisementWaitsForNothingWhenTheCacheHasEveryObjectAlready() throws Exception {
    String url = http.url(tmp.resolve("upstream.git"));
    cache.sync(REPO, url, TOKEN);
    assertThat(cache.syncAhead(REPO, url, TOKEN)).as("in step").hasValue(refs(upstream));
    TestRepos.setRef(upstream, "refs/heads/copy", TestRepos.idOf(upstream, "refs/heads/main"));

    assertThat(cache.syncAhead(REPO, url, TOKEN)).as("moved to an object the cache has")
        .hasValue(refs(upstream));
    assertThat(refs(cacheRepo())).isEqualTo(refs(upstream));
  }

  /** A new commit on upstream's main, which moves there. */
  private RevCommit moveUpstreamMain() throws Exception {
    RevCommit next = TestRepos.commit(upstream, "next", Map.of("README", "next"),
        TestRepos.idOf(upstream, "refs/heads/main"));
    TestRepos.setRef(upstream, "refs/heads/main", next);
    return next;
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never released the answer");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aRefMovedToAnObjectTheCacheHasNeedsNoPack() throws Exception {
    String url = http.url(tmp.resolve("upstream.git"));
    cache.sync(REPO, url, TOKEN);
    TestRepos.setRef(upstream, "refs/heads/copy", TestRepos.idOf(upstream, "refs/heads/main"));
    http.requests.clear();

    cache.sync(REPO, url, TOKEN);

    assertThat(http.requests).extracting(HttpUpstream.Seen::request)
        .containsExactly("POST /upstream.git/git-upload-pack " + HttpUpstream.LS_REFS);
    assertThat(refs(cacheRepo())).isEqualTo(refs(upstream));
  }

  @Test
  void aFaultyAnswerToTheFetchFailsTheSyncAndMovesNoRef() throws Exception {
    String url = http.url(tmp.resolve("upstream.git"));
    cache.sync(REPO, url, TOKEN);
    Map<String, ObjectId> before = refs(cacheRepo());
    RevCommit next = moveUpstreamMain();
    TestRepos.setRef(upstream, "refs/heads/feature", next);
    record Fault(String what, String says, UnaryOperator<byte[]> answer) {}
    List<Fault> faults = List.of(
        new Fault("a malformed answer", "malformed", answer -> "0009JUNK\n".getBytes(UTF_8)),
        new Fault("an error on channel 3", "upload-pack failed: upload-pack: not our ref",
            answer -> concat(pkt("NAK\n".getBytes(UTF_8)),
                sideBand(3, "upload-pack: not our ref"), ascii("0000"))),
        new Fault("a pack cut short", "cut short",
            answer -> Arrays.copyOf(answer, answer.length / 2 + 20)),
        new Fault("a pack without the wanted objects", "pack lacks " + next.name(),
            answer -> concat(pkt("NAK\n".getBytes(UTF_8)), sideBand(1, emptyPack()), ascii("0000"))),
        new Fault("no flush after the pack", "Short read",
            answer -> Arrays.copyOf(answer, answer.length - 4)));

    for (Fault fault : faults) {
      http.uploadPackAnswer = fault.answer();
      syncs.clear();

      assertThatThrownBy(() -> cache.sync(REPO, url, TOKEN)).as(fault.what())
          .isInstanceOf(UpstreamException.class)
          .hasMessageStartingWith("could not read acme/widget")
          .hasMessageContaining(fault.says())
          .hasMessageNotContaining(TOKEN.reveal());
      assertThat(syncs).as(fault.what()).containsExactly(false);
      assertThat(refs(cacheRepo())).as(fault.what()).isEqualTo(before);
    }

    http.uploadPackAnswer = null;
    cache.sync(REPO, url, TOKEN);
    assertThat(refs(cacheRepo())).as("the next sync tries again").isEqualTo(refs(upstream));
  }

  @Test
  void progressOnTheSideBandIsSkipped() throws Exception {
    String url = http.url(tmp.resolve("upstream.git"));
    http.uploadPackAnswer = answer -> {
      byte[] head = Arrays.copyOf(answer, 8);
      assertThat(new String(head, UTF_8)).isEqualTo("0008NAK\n");
      return concat(head, sideBand(2, "Counting objects: 3\r"),
          Arrays.copyOfRange(answer, 8, answer.length));
    };

    cache.sync(REPO, url, TOKEN);

    assertThat(refs(cacheRepo())).isEqualTo(refs(upstream));
  }

  @Test
  void aPackPastTheBoundIsFetchedByJgitInstead() throws Exception {
    UpstreamCache bounded = new UpstreamCache(tmp.resolve("small"), 30, 64, PushMetrics.NONE);
    String url = http.url(tmp.resolve("upstream.git"));
    http.requests.clear();

    bounded.sync(REPO, url, TOKEN);

    assertThat(http.requests).extracting(HttpUpstream.Seen::request).containsExactly(
        "POST /upstream.git/git-upload-pack " + HttpUpstream.LS_REFS,
        "POST /upstream.git/git-upload-pack",
        "GET /upstream.git/info/refs?service=git-upload-pack", // JGit's fetch lists again
        "POST /upstream.git/git-upload-pack");
    try (Repository db = bounded.open(REPO)) {
      assertThat(refs(db)).isEqualTo(refs(upstream));
    }
    bounded.close();
  }

  @Test
  void jgitsFetchForcesAPushsPackBeforeItWritesARefNamingIt() throws Exception {
    // A push's pack is stored unforced (CachePackParser); the fetch past the bound is JGit's,
    // which writes refs itself: one naming an object of that pack must not precede its force.
    UpstreamCache bounded = new UpstreamCache(tmp.resolve("small"), 30, 64, PushMetrics.NONE);
    String url = http.url(tmp.resolve("upstream.git"));
    bounded.sync(REPO, url, TOKEN);
    ObjectId root = TestRepos.idOf(upstream, "refs/heads/main");
    RevCommit pushed = TestRepos.commit(upstream, "pushed", Map.of("README", "pushed"), root);
    try (Repository db = bounded.open(REPO)) {
      receiveAsAPush(db, pushed, root);
      assertThat(((CacheRepository) db).unforced()).hasSize(2);
    }
    // upstream took the push, and moved on with more than the bound: JGit's fetch follows both
    TestRepos.setRef(upstream, "refs/heads/main", pushed);
    TestRepos.setRef(upstream, "refs/heads/big",
        TestRepos.commit(upstream, "big", Map.of("big", "x".repeat(4096)), pushed));

    bounded.sync(REPO, url, TOKEN);

    try (Repository db = bounded.open(REPO)) {
      assertThat(refs(db)).isEqualTo(refs(upstream));
      assertThat(((CacheRepository) db).unforced()).as("forced before the refs named them")
          .isEmpty();
    }
    bounded.close();
  }

  /** {@code tip}'s objects not in {@code have}, received into {@code db} as a push's pack. */
  private void receiveAsAPush(Repository db, ObjectId tip, ObjectId have) throws Exception {
    java.io.ByteArrayOutputStream pack = new java.io.ByteArrayOutputStream();
    try (org.eclipse.jgit.internal.storage.pack.PackWriter w =
        new org.eclipse.jgit.internal.storage.pack.PackWriter(upstream)) {
      w.preparePack(org.eclipse.jgit.lib.NullProgressMonitor.INSTANCE, java.util.Set.of(tip),
          java.util.Set.of(have));
      w.writePack(org.eclipse.jgit.lib.NullProgressMonitor.INSTANCE,
          org.eclipse.jgit.lib.NullProgressMonitor.INSTANCE, pack);
    }
    PackCopy streamed = new PackCopy() {
      @Override
      public void objects(byte[] b, int off, int len) {
        // upstream's copy is not the point here
      }

      @Override
      public void objectsEnd(byte[] trailer) {
        // nor its trailer
      }
    };
    try (org.eclipse.jgit.lib.ObjectInserter ins =
        new ReceivingCache((CacheRepository) db, streamed).newObjectInserter()) {
      ins.newPackParser(new java.io.ByteArrayInputStream(pack.toByteArray()))
          .parse(org.eclipse.jgit.lib.NullProgressMonitor.INSTANCE);
      ins.flush();
    }
  }

  @Test
  void aCacheRefUpstreamDoesNotHaveIsRemoved() throws Exception {
    String url = http.url(tmp.resolve("upstream.git"));
    cache.sync(REPO, url, TOKEN);
    try (Repository db = cacheRepo()) {
      TestRepos.setRef(db, "refs/heads/stale", TestRepos.idOf(db, "refs/heads/main"));
    }

    cache.sync(REPO, url, TOKEN);

    assertThat(refs(cacheRepo())).isEqualTo(refs(upstream));
  }

  @Test
  void anUnreachableUpstreamFailsTheSyncAndSaysWhich() {
    assertThatThrownBy(() -> cache.sync(REPO, http.url(tmp.resolve("missing.git")), TOKEN))
        .isInstanceOf(UpstreamException.class).hasMessageStartingWith("could not read acme/widget")
        .hasMessageNotContaining(TOKEN.reveal());
    assertThat(syncs).containsExactly(false);
  }

  @Test
  void aCacheWithManyPacksIsCompactedWithoutLosingARef() throws Exception {
    String url = http.url(tmp.resolve("upstream.git"));
    ObjectId tip = TestRepos.idOf(upstream, "refs/heads/main");
    for (int i = 0; i <= CacheCompaction.COMPACT_ABOVE_PACKS; i++) {
      tip = TestRepos.commit(upstream, "c" + i, Map.of("README", "v" + i), tip);
      TestRepos.setRef(upstream, "refs/heads/main", tip);
      cache.sync(REPO, url, TOKEN); // one fetch, one pack, each time
    }
    assertCompactedInStepWithUpstream(tip);
  }

  @Test
  void aCacheThatGrowsByPushesAloneIsCompactedToo() throws Exception {
    String url = http.url(tmp.resolve("upstream.git"));
    cache.sync(REPO, url, TOKEN);
    ObjectId tip = TestRepos.idOf(upstream, "refs/heads/main");
    for (int i = 0; i <= CacheCompaction.COMPACT_ABOVE_PACKS; i++) {
      tip = TestRepos.commit(upstream, "c" + i, Map.of("README", "v" + i), tip);
      TestRepos.setRef(upstream, "refs/heads/main", tip);
      // As a forwarded push leaves it: the pack received, the ref set to what upstream took.
      receiveIntoCache("+refs/heads/main:refs/heads/main");
    }
    fetches.clear();
    cache.sync(REPO, url, TOKEN);

    assertThat(fetches).containsExactly(false);
    assertCompactedInStepWithUpstream(tip);
  }

  @Test
  void refsAForwardedPushMovedAreInTheNextSyncWithoutAFetch() throws Exception {
    String url = http.url(tmp.resolve("upstream.git"));
    cache.sync(REPO, url, TOKEN);
    ObjectId old = TestRepos.idOf(upstream, "refs/heads/main");
    ObjectId pushed = TestRepos.commit(upstream, "pushed", Map.of("README", "pushed"), old);
    TestRepos.setRef(upstream, "refs/heads/main", pushed);
    // The push's objects are in the cache, as its receive left them; its ref is not yet.
    receiveIntoCache("+refs/heads/main:refs/received");
    try (Repository db = cacheRepo()) {
      RefUpdate ru = db.updateRef("refs/received");
      ru.setForceUpdate(true);
      ru.delete();
    }
    fetches.clear();

    cache.landed(REPO, List.of(new org.eclipse.jgit.transport.ReceiveCommand(
        old, pushed, "refs/heads/main")), java.util.Optional.empty());
    cache.sync(REPO, url, TOKEN); // whether or not the background write came first

    assertThat(fetches).containsExactly(false);
    assertThat(refs(cacheRepo())).isEqualTo(refs(upstream));
  }

  /** Waits for the background compaction, then checks that nothing was lost. */
  private void assertCompactedInStepWithUpstream(ObjectId tip) throws Exception {
    Wait.until(Duration.ofSeconds(60), "the cache's packs to be compacted to two at most",
        () -> packs() <= 2);

    assertThat(packs()).isLessThanOrEqualTo(2);
    assertThat(refs(cacheRepo())).isEqualTo(refs(upstream));
    try (Repository db = cacheRepo()) {
      assertThat(db.getObjectDatabase().has(tip)).isTrue();
    }
  }

  /** Fetches from upstream straight into the cache, past the sync: one pack each time. */
  private void receiveIntoCache(String refSpec) throws Exception {
    try (Repository db = cacheRepo(); Git git = Git.wrap(db)) {
      git.fetch().setRemote(upstream.getDirectory().toURI().toString())
          .setRefSpecs(new RefSpec(refSpec)).call();
    }
  }

  private Repository cacheRepo() throws Exception {
    return cache.open(REPO);
  }

  private int packs() throws Exception {
    try (Repository db = cacheRepo()) {
      return ((FileRepository) db).getObjectDatabase().getPacks().size();
    }
  }

  private static Map<String, ObjectId> refs(Repository db) throws Exception {
    Map<String, ObjectId> out = new TreeMap<>();
    for (Ref r : db.getRefDatabase().getRefsByPrefix(Constants.R_HEADS, Constants.R_TAGS)) {
      out.put(r.getName(), r.getObjectId());
    }
    return out;
  }

  /** A well-formed pack of no object. */
  private static byte[] emptyPack() {
    byte[] header = {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 0};
    byte[] sum = Constants.newMessageDigest().digest(header);
    return concat(header, sum);
  }
}
