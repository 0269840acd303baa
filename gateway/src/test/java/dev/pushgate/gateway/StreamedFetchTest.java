package dev.pushgate.gateway;

import static dev.pushgate.gateway.TestRepos.commit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.policy.PushRules;
import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A clone and a fetch with the real git client, through the gateway, while upstream holds its
 * pack midway: git receives pack bytes before the cache's fetch can have ended (issue 35).
 */
class StreamedFetchTest {
  private static final String CREDENTIAL = "pgr_runCredential0123456789";
  private static final RepoSlug WIDGET = new RepoSlug("acme", "widget");
  private static final RunContext RUN =
      new RunContext("run-1", "ws-1", WIDGET, List.of(), PushRules.of(List.of()));
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final String STREAMING = "pushgate: streaming upstream's pack as it arrives";

  @TempDir Path dir;
  private HttpUpstream upstreamServer;
  private Repository upstream;
  private RevCommit base;
  private Server server;
  private int seed;

  @BeforeEach
  void start() throws Exception {
    upstreamServer = new HttpUpstream(dir.resolve("upstream"));
    upstream = TestRepos.bare(dir.resolve("upstream/widget.git"));
    base = commit(upstream, "base\n", large());
    TestRepos.setRef(upstream, "refs/heads/main", base);
    TestRepos.setRef(upstream, "refs/tags/v1", TestRepos.annotatedTag(upstream, "v1", base));
    upstream.updateRef(Constants.HEAD).link("refs/heads/main");
    UpstreamAccess access = new RecordingUpstream(null) {
      @Override
      public String remoteUrl(RepoSlug repo) {
        return upstreamServer.url(dir.resolve("upstream").resolve(repo.name() + ".git"));
      }
    };
    GatewayConfig config = new GatewayConfig(GatewayConfig.GITHUB_HOST, dir.resolve("cache"),
        1L << 30, Duration.ofSeconds(30), Duration.ofSeconds(10), Clock.systemUTC(),
        GatewayConfig.DEFAULT_WRITE_TOKENS_PER_MINUTE);
    Gateway gateway = new Gateway(config,
        c -> CREDENTIAL.equals(c) ? java.util.Optional.of(RUN) : java.util.Optional.empty(),
        access, new RecordingAudit(), Approvals.NONE, PushMetrics.NONE);
    server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    server.setHandler(gateway.handler());
    server.start();
  }

  @AfterEach
  void stop() throws Exception {
    HttpUpstream.Stall stall = upstreamServer.stall;
    if (stall != null) {
      stall.release().countDown();
    }
    server.stop();
    upstream.close();
    upstreamServer.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "2"})
  void aCloneAndAFetchReceiveUpstreamsPackWhileTheCacheStillReceivesIt(String protocol)
      throws Exception {
    Path clone = dir.resolve("clone");
    HttpUpstream.Stall stall = stall(false);
    Process cloning = git(protocol, dir, "clone", "--progress", url(), clone.toString());
    awaitPackBytes(stall, clone, 0, cloning);
    assertThat(cacheMain()).as("the cache's fetch has not ended").isNull();
    stall.release().countDown();
    assertThat(exit(cloning)).isEqualTo(0);
    assertThat(output(cloning)).contains(STREAMING);
    assertThat(TestRepos.idOf(repo(clone), "refs/remotes/origin/main")).isEqualTo(base);

    RevCommit moved = commit(upstream, "moved\n", large(), base);
    TestRepos.setRef(upstream, "refs/heads/main", moved);
    stall = stall(false);
    Process fetching = fetchWhileUpstreamHolds(stall, protocol, clone);
    assertThat(cacheMain()).as("the cache's fetch has not ended").isEqualTo(base);
    stall.release().countDown();
    assertThat(exit(fetching)).isEqualTo(0);
    assertThat(output(fetching)).contains(STREAMING);
    assertThat(TestRepos.idOf(repo(clone), "refs/remotes/origin/main")).isEqualTo(moved);
    assertThat(cacheMain()).isEqualTo(moved);
    assertThat(exit(git(protocol, clone, "fsck", "--strict"))).isEqualTo(0);
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "2"})
  void anUpstreamThatBreaksOffMidPackFailsTheFetchAndLeavesTheCacheAsItWas(String protocol)
      throws Exception {
    Path clone = dir.resolve("clone");
    RevCommit moved = clonedThenMoved(protocol, clone);
    List<Path> packs = cachePacks();
    HttpUpstream.Stall stall = stall(true);
    Process fetching = fetchWhileUpstreamHolds(stall, protocol, clone);
    stall.release().countDown();
    assertThat(exit(fetching)).isNotEqualTo(0);
    assertThat(output(fetching)).contains("pushgate: the gateway's fetch from upstream failed;"
        + " nothing was stored, try again");
    assertThat(TestRepos.idOf(repo(clone), "refs/remotes/origin/main")).isEqualTo(base);
    assertThat(cacheMain()).isEqualTo(base);
    assertThat(cachePacks()).isEqualTo(packs);

    upstreamServer.stall = null;
    Process again = git(protocol, clone, "fetch", "origin");
    assertThat(exit(again)).as(output(again)).isEqualTo(0);
    assertThat(TestRepos.idOf(repo(clone), "refs/remotes/origin/main")).isEqualTo(moved);
  }

  /**
   * A client whose newest commits are its own (40 on a branch upstream never saw) names the
   * cache's tips only in a later round of haves, and never names the tip of a branch it did not
   * fetch (as the WAN bench's client, which fetches by URL): the gateway answers the early rounds
   * itself and asks upstream with the client's haves in common once it sends {@code done}, so
   * the pack still streams (before, the first round fell back to store-then-serve).
   */
  @ParameterizedTest
  @ValueSource(strings = {"0", "2"})
  void aClientWithCommitsOfItsOwnReceivesUpstreamsPackOverSeveralRounds(String protocol)
      throws Exception {
    RevCommit side = commit(upstream, "side\n", Map.of("side.txt", "side\n"), base);
    TestRepos.setRef(upstream, "refs/heads/side", side);
    Path clone = dir.resolve("clone");
    assertThat(exit(git(protocol, dir, "clone", "--single-branch", "--branch", "main", url(),
        clone.toString()))).isEqualTo(0);
    try (Repository mine = repo(clone)) {
      ObjectId tip = base;
      for (int i = 0; i < 40; i++) {
        tip = commit(mine, "mine " + i + "\n", Map.of("mine.txt", i + "\n"), tip);
      }
      TestRepos.setRef(mine, "refs/heads/mine", tip);
    }
    RevCommit moved = commit(upstream, "moved\n", large(), base);
    TestRepos.setRef(upstream, "refs/heads/main", moved);
    HttpUpstream.Stall stall = stall(false);
    Process fetching = fetchWhileUpstreamHolds(stall, protocol, clone);
    assertThat(cacheMain()).as("the cache's fetch has not ended").isEqualTo(base);
    stall.release().countDown();
    assertThat(exit(fetching)).as(output(fetching)).isEqualTo(0);
    assertThat(output(fetching)).contains(STREAMING);
    assertThat(TestRepos.idOf(repo(clone), "refs/remotes/origin/main")).isEqualTo(moved);
    assertThat(exit(git(protocol, clone, "fsck", "--strict"))).isEqualTo(0);
    assertCacheWholeAt(moved);
  }

  /**
   * A client that names haves nobody has, first in a round without {@code done} and then with it,
   * is answered a round acknowledging nothing, then upstream's pack asked with none of its haves:
   * a pack whole on its own, which an empty repository indexes and walks, and the cache whole too.
   */
  @Test
  void haveLinesNamingNothingTheCacheHasGetARoundThenAWholePack() throws Exception {
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    String lie1 = "0123456789abcdef0123456789abcdef01234567";
    String lie2 = "89abcdef0123456789abcdef0123456789abcdef";
    RevCommit moved = movedAfterARound(http, lie1);

    assertWholePack(fetchV2(http, moved, List.of(lie1, lie2), true), moved);
    assertCacheWholeAt(moved);
  }

  /**
   * A later round that no longer qualifies for the stream (it adds a filter) is served from the
   * cache, and logged as a first round's would be: {@code stored then served: <why>}.
   */
  @Test
  void aLaterRoundThatNoLongerQualifiesIsLoggedAsStoredThenServed() throws Exception {
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    String lie = "0123456789abcdef0123456789abcdef01234567";
    RevCommit moved = movedAfterARound(http, lie);

    java.io.ByteArrayOutputStream logged = new java.io.ByteArrayOutputStream();
    java.io.PrintStream err = System.err;
    System.setErr(new java.io.PrintStream(logged, true, StandardCharsets.UTF_8));
    try {
      fetchV2(http, moved, List.of(lie), true, "filter blob:none");
    } finally {
      System.setErr(err);
    }
    assertThat(logged.toString(StandardCharsets.UTF_8)).contains("fetch from acme/widget stored"
        + " then served: the request is not one a stream answers");
    assertThat(cacheMain()).isEqualTo(moved);
  }

  /**
   * A clone, then upstream's move, the v2 advertisement (which starts the cache's fetch) and a
   * first round naming {@code have}, which nobody has: acknowledged as nothing. The new main.
   */
  private RevCommit movedAfterARound(java.net.http.HttpClient http, String have)
      throws Exception {
    RevCommit moved = clonedThenMoved("2", dir.resolve("clone"));
    advertiseV2(http);
    assertThat(new String(fetchV2(http, moved, List.of(have), false), StandardCharsets.US_ASCII))
        .isEqualTo("0014acknowledgments\n0008NAK\n0000");
    return moved;
  }

  private void advertiseV2(java.net.http.HttpClient http) throws Exception {
    assertThat(http.send(v2(java.net.http.HttpRequest.newBuilder(java.net.URI.create(
        url() + "/info/refs?service=git-upload-pack"))).build(),
        java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);
  }

  /** The cache's main is {@code tip}, and every object its refs reach is in it. */
  private void assertCacheWholeAt(ObjectId tip) throws Exception {
    assertThat(cacheMain()).isEqualTo(tip);
    Process cacheWhole = git("2", dir.resolve("cache/acme/widget.git"), "fsck",
        "--connectivity-only");
    assertThat(exit(cacheWhole)).as(output(cacheWhole)).isEqualTo(0);
  }

  /** {@code answer}'s pack holds every object {@code tip} reaches: an empty repository walks it. */
  private void assertWholePack(byte[] answer, ObjectId tip) throws Exception {
    Path pack = dir.resolve("answer.pack");
    Files.write(pack, band1(answer));
    Path fresh = dir.resolve("fresh.git");
    assertThat(exit(git("2", dir, "init", "-q", "--bare", fresh.toString()))).isEqualTo(0);
    Process index = new ProcessBuilder("git", "-C", fresh.toString(), "index-pack", "--stdin")
        .redirectInput(pack.toFile()).redirectErrorStream(true).start();
    assertThat(index.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(index.exitValue()).as(new String(index.getInputStream().readAllBytes(),
        StandardCharsets.UTF_8)).isEqualTo(0);
    Process walk = git("2", fresh, "rev-list", "--objects", tip.name());
    assertThat(exit(walk)).as("every object of the tip is in the pack: " + output(walk))
        .isEqualTo(0);
  }

  /**
   * attackfetch: a request with no haves, after each move of upstream over a long history, made
   * the cache ask upstream with none and store the whole history again each time. Past {@link
   * CommonHaves#MAX_LACKING} commits the client lacks, the cache asks with its own tips: it stores
   * the new commit only, and the client still gets a whole pack, from the cache.
   */
  @Test
  void aRequestWithNoHavesOnALongHistoryDoesNotMakeTheCacheStoreItAgain() throws Exception {
    ObjectId tip = base;
    for (int i = 0; i <= CommonHaves.MAX_LACKING + 100; i++) {
      tip = commit(upstream, "history " + i + "\n", Map.of("n.txt", "history " + i + "\n"), tip);
    }
    TestRepos.setRef(upstream, "refs/heads/main", tip);
    Path clone = dir.resolve("clone");
    assertThat(exit(git("2", dir, "clone", "--bare", url(), clone.toString()))).isEqualTo(0);
    long history = cachePackBytes();
    RevCommit moved = commit(upstream, "moved\n", Map.of("n.txt", "moved\n"), tip);
    TestRepos.setRef(upstream, "refs/heads/main", moved);
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    advertiseV2(http);

    assertWholePack(fetchV2(http, moved, List.of(), true), moved);
    assertThat(cacheMain()).isEqualTo(moved);
    assertThat(cachePackBytes() - history).as("the cache's packs grew by the new commit, not"
        + " the history again (" + history + " bytes)").isLessThan(history / 10);
  }

  private long cachePackBytes() throws IOException {
    return cachePacks().stream().filter(p -> p.toString().endsWith(".pack"))
        .mapToLong(p -> p.toFile().length()).sum();
  }

  private java.net.http.HttpRequest.Builder v2(java.net.http.HttpRequest.Builder b) {
    return b.header("Git-Protocol", "version=2").header("Authorization", "Bearer " + CREDENTIAL);
  }

  /**
   * A protocol v2 fetch of {@code want} naming {@code haves}, with {@code args} (as {@code filter
   * blob:none}); the answer's bytes.
   */
  private byte[] fetchV2(java.net.http.HttpClient http, ObjectId want, List<String> haves,
      boolean done, String... args) throws Exception {
    StringBuilder body = new StringBuilder(pkt("command=fetch\n")).append("0001")
        .append(pkt("ofs-delta\n")).append(pkt("want " + want.name() + "\n"));
    for (String arg : args) {
      body.append(pkt(arg + "\n"));
    }
    haves.forEach(h -> body.append(pkt("have " + h + "\n")));
    if (done) {
      body.append(pkt("done\n"));
    }
    body.append("0000");
    java.net.http.HttpResponse<byte[]> rsp = http.send(v2(java.net.http.HttpRequest.newBuilder(
        java.net.URI.create(url() + "/git-upload-pack")))
        .header("Content-Type", "application/x-git-upload-pack-request")
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body.toString())).build(),
        java.net.http.HttpResponse.BodyHandlers.ofByteArray());
    assertThat(rsp.statusCode()).isEqualTo(200);
    return rsp.body();
  }

  private static String pkt(String line) {
    return String.format("%04x", line.length() + 4) + line;
  }

  /** The pack a v2 answer carries on band 1 after its {@code packfile} line. */
  private static byte[] band1(byte[] answer) {
    java.io.ByteArrayOutputStream pack = new java.io.ByteArrayOutputStream();
    boolean inPack = false;
    for (int at = 0; at + 4 <= answer.length; ) {
      int len = Integer.parseInt(new String(answer, at, 4, StandardCharsets.US_ASCII), 16);
      if (len <= 2) {
        at += 4;
        continue;
      }
      if (inPack && answer[at + 4] == 1) {
        pack.write(answer, at + 5, len - 5);
      } else if (new String(answer, at + 4, len - 4, StandardCharsets.US_ASCII)
          .equals("packfile\n")) {
        inPack = true;
      }
      at += len;
    }
    assertThat(inPack).as("the answer has a packfile section").isTrue();
    return pack.toByteArray();
  }

  /**
   * A fetch JGit serves from the cache (nothing under way upstream) still negotiates: the haves
   * the cache's branches and tags reach are handed to JGit (only those are), so a client with
   * history receives the new commit's objects only (5: commit, tree, 3 blobs), not the whole
   * history again.
   */
  @ParameterizedTest
  @ValueSource(strings = {"0", "2"})
  void aClientWithHistoryServedFromTheCacheReceivesOnlyWhatItLacks(String protocol)
      throws Exception {
    Path clone = dir.resolve("clone");
    RevCommit moved = clonedThenMoved(protocol, clone);
    Process other = git(protocol, dir, "clone", url(), dir.resolve("other").toString());
    assertThat(exit(other)).as(output(other)).isEqualTo(0);
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (!moved.equals(cacheMain())) {
      assertThat(System.nanoTime()).as("the cache stored upstream's move").isLessThan(deadline);
      Thread.sleep(20); // polling the cache's ref, with the deadline above
    }
    long loose = looseObjects(clone);
    Process fetching = git(protocol, clone, "-c", "fetch.unpackLimit=1000000", "fetch",
        "--progress", "origin");
    assertThat(exit(fetching)).as(output(fetching)).isEqualTo(0);
    assertThat(output(fetching)).doesNotContain(STREAMING);
    assertThat(TestRepos.idOf(repo(clone), "refs/remotes/origin/main")).isEqualTo(moved);
    assertThat(looseObjects(clone) - loose).as(output(fetching)).isEqualTo(5);
  }

  private static long looseObjects(Path clone) throws IOException {
    try (Stream<Path> files = Files.walk(clone.resolve(".git/objects"))) {
      return files.filter(p -> p.getParent().getFileName().toString().matches("[0-9a-f]{2}"))
          .count();
    }
  }

  /** A request the stream does not serve is answered from the cache, as before. */
  @Test
  void aShallowFetchIsServedFromTheCacheAfterItsFetch() throws Exception {
    Path clone = dir.resolve("clone");
    RevCommit moved = clonedThenMoved("2", clone);
    Process fetching = git("2", clone, "fetch", "--depth", "1", "origin");
    assertThat(exit(fetching)).as(output(fetching)).isEqualTo(0);
    assertThat(output(fetching)).doesNotContain(STREAMING);
    assertThat(TestRepos.idOf(repo(clone), "refs/remotes/origin/main")).isEqualTo(moved);
    assertThat(exit(git("2", clone, "fsck"))).isEqualTo(0);
  }

  /** {@code clone} cloned through the gateway, then upstream's main moved on: the new main. */
  private RevCommit clonedThenMoved(String protocol, Path clone) throws Exception {
    assertThat(exit(git(protocol, dir, "clone", url(), clone.toString()))).isEqualTo(0);
    RevCommit moved = commit(upstream, "moved\n", large(), base);
    TestRepos.setRef(upstream, "refs/heads/main", moved);
    return moved;
  }

  /** A fetch of {@code clone} from origin, once git holds pack bytes and upstream the rest. */
  private Process fetchWhileUpstreamHolds(HttpUpstream.Stall stall, String protocol, Path clone)
      throws Exception {
    long before = tmpPackBytes(clone);
    Process fetching = git(protocol, clone, "fetch", "--progress", "origin");
    awaitPackBytes(stall, clone, before, fetching);
    return fetching;
  }

  /**
   * Git's temporary pack in {@code clone}, or the objects it unpacks, hold bytes while upstream
   * still holds the rest.
   */
  private void awaitPackBytes(HttpUpstream.Stall stall, Path clone, long before, Process git)
      throws Exception {
    assertThat(stall.held().await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (tmpPackBytes(clone) == before) {
      assertThat(System.nanoTime()).as("git received no pack bytes while upstream held its pack: "
          + output(git) + " " + listing(clone))
          .isLessThan(deadline);
      assertThat(stall.release().getCount()).isEqualTo(1);
      Thread.sleep(20); // polling git's files, with the deadline above
    }
  }

  private static long tmpPackBytes(Path clone) throws IOException {
    if (!Files.isDirectory(clone.resolve(".git/objects"))) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(clone.resolve(".git/objects"))) {
      // a pack being indexed, or objects unpacked from it as they arrive
      return files.filter(p -> p.getFileName().toString().startsWith("tmp_pack_")
          || p.getParent().getFileName().toString().matches("[0-9a-f]{2}"))
          .mapToLong(p -> p.toFile().length()).sum();
    } catch (java.io.UncheckedIOException | java.nio.file.NoSuchFileException e) {
      return 0; // a file git renamed, or a clone git gave up, while it was listed: look again
    }
  }

  private static String listing(Path clone) throws IOException {
    if (!Files.isDirectory(clone)) {
      return "no " + clone;
    }
    try (Stream<Path> files = Files.walk(clone)) {
      return files.map(p -> p + " " + p.toFile().length()).toList().toString();
    } catch (java.io.UncheckedIOException e) {
      return clone + " changing";
    }
  }

  private HttpUpstream.Stall stall(boolean dies) {
    HttpUpstream.Stall stall =
        new HttpUpstream.Stall(256 << 10, new CountDownLatch(1), new CountDownLatch(1), dies);
    upstreamServer.stall = stall;
    return stall;
  }

  /** Files of incompressible text, about 1.5 MiB in all: a pack that takes more than a read. */
  private Map<String, String> large() {
    Random random = new Random(++seed);
    Map<String, String> files = new java.util.HashMap<>();
    for (int i = 0; i < 3; i++) {
      byte[] b = new byte[384 << 10];
      random.nextBytes(b);
      files.put("blob" + i + ".txt", Base64.getMimeEncoder().encodeToString(b));
    }
    return files;
  }

  private ObjectId cacheMain() throws IOException {
    Path cache = dir.resolve("cache/acme/widget.git");
    if (!Files.isDirectory(cache)) {
      return null;
    }
    try (Repository c = repo(cache)) {
      return TestRepos.idOf(c, "refs/heads/main");
    }
  }

  private List<Path> cachePacks() throws IOException {
    try (Stream<Path> files = Files.list(dir.resolve("cache/acme/widget.git/objects/pack"))) {
      return files.sorted().toList();
    }
  }

  private static Repository repo(Path d) throws IOException {
    Path git = d.resolve(".git");
    return new org.eclipse.jgit.internal.storage.file.FileRepository(
        (Files.isDirectory(git) ? git : d).toFile());
  }

  private String url() {
    int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
    return "http://127.0.0.1:" + port + "/git/github.com/acme/widget.git";
  }

  private Process git(String protocol, Path cwd, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("git", "-c", "protocol.version=" + protocol));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true)
        .redirectOutput(dir.resolve("git-" + System.nanoTime() + ".log").toFile());
    pb.environment().put("GIT_CONFIG_NOSYSTEM", "1");
    pb.environment().put("HOME", dir.toString());
    pb.environment().put("GIT_TERMINAL_PROMPT", "0");
    pb.environment().put("GIT_CONFIG_COUNT", "1");
    pb.environment().put("GIT_CONFIG_KEY_0", "http.extraHeader");
    pb.environment().put("GIT_CONFIG_VALUE_0", "Authorization: Bearer " + CREDENTIAL);
    Process p = pb.start();
    outputs.put(p, pb.redirectOutput().file().toPath());
    return p;
  }

  private final Map<Process, Path> outputs = new java.util.concurrent.ConcurrentHashMap<>();

  private static int exit(Process p) throws InterruptedException {
    assertThat(p.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).as("git ended").isTrue();
    return p.exitValue();
  }

  private String output(Process p) throws IOException {
    return Files.readString(outputs.get(p), StandardCharsets.UTF_8);
  }
}
