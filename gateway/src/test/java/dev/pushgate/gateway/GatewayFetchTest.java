package dev.pushgate.gateway;

import static dev.pushgate.gateway.TestRepos.commit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pushgate.http.HttpServer;
import dev.pushgate.policy.PushRules;
import dev.pushgate.types.RepoSlug;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.eclipse.jetty.server.Server;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.TransportException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.transport.FetchResult;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.TransportHttp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads through the gateway, with JGit as the client over HTTP: served from the cache, synced
 * with upstream before each advertisement, for the run's repositories only.
 */
class GatewayFetchTest {
  private static final String CREDENTIAL = "pgr_runCredential0123456789";
  /** What a refused push's file held. */
  private static final String SECRET = "password=hunter2\n";
  private static final RepoSlug WIDGET = new RepoSlug("acme", "widget");
  private static final RepoSlug DOCS = new RepoSlug("acme", "docs");
  private static final RunContext RUN =
      new RunContext("run-1", "ws-1", WIDGET, List.of(DOCS), PushRules.of(List.of()));

  @TempDir Path dir;
  private HttpUpstream upstreamServer;
  private Repository upstream;
  private RevCommit base;
  private Server server;
  private final RecordingAudit audit = new RecordingAudit();

  @BeforeEach
  void start() throws Exception {
    upstreamServer = new HttpUpstream(dir.resolve("upstream"));
    upstream = TestRepos.bare(dir.resolve("upstream/widget.git"));
    base = commit(upstream, "base\n", Map.of("README.md", "base\n", "src/a.txt", "a\n"));
    TestRepos.setRef(upstream, "refs/heads/main", base);
    TestRepos.setRef(upstream, "refs/tags/v1",
        TestRepos.annotatedTag(upstream, "v1", base));
    upstream.updateRef(Constants.HEAD).link("refs/heads/main");
    // acme/docs is attached but has no upstream repository: reading it fails.
    UpstreamAccess access = upstreamServer.access();
    GatewayConfig config = new GatewayConfig(GatewayConfig.GITHUB_HOST, dir.resolve("cache"),
        1L << 30, Duration.ofSeconds(30), Duration.ofSeconds(10), Clock.systemUTC(),
        GatewayConfig.DEFAULT_WRITE_TOKENS_PER_MINUTE);
    Gateway gateway = new Gateway(config,
        c -> CREDENTIAL.equals(c) ? java.util.Optional.of(RUN) : java.util.Optional.empty(),
        access, audit, Approvals.NONE, PushMetrics.NONE);
    server = new Server();
    HttpServer.tcp(server, "127.0.0.1", 0, null);
    server.setHandler(gateway.handler());
    server.start();
  }

  @AfterEach
  void stop() throws Exception {
    server.stop();
    upstream.close();
    upstreamServer.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "2"})
  void fetchesUpstreamsBranchesTagsAndHeadFromTheCache(String protocol) throws Exception {
    try (Repository client = client(protocol)) {
      FetchResult r = fetch(client, 0);
      assertThat(r.getAdvertisedRef("refs/heads/main").getObjectId()).isEqualTo(base);
      assertThat(r.getAdvertisedRef("refs/tags/v1")).isNotNull();
      assertThat(TestRepos.idOf(client, "refs/remotes/origin/main")).isEqualTo(base);
      assertThat(client.getObjectDatabase().has(base.getTree())).isTrue();
    }
    // the client read upstream's refs through the gateway's token, never its own
    assertThat(upstreamServer.requests).isNotEmpty()
        .allSatisfy(s -> assertThat(s.authorized()).isTrue());
    try (Repository cache = org.eclipse.jgit.lib.RepositoryCache.open(
        org.eclipse.jgit.lib.RepositoryCache.FileKey.exact(
            dir.resolve("cache/acme/widget.git").toFile(), org.eclipse.jgit.util.FS.DETECTED))) {
      assertThat(cache.exactRef(Constants.HEAD).getTarget().getName())
          .isEqualTo("refs/heads/main");
    }
  }

  @Test
  void aFetchSeesWhereUpstreamIsNowAfterItMovedBehindTheGateway() throws Exception {
    try (Repository client = client("2")) {
      fetch(client, 0);
      RevCommit moved = commit(upstream, "moved\n", Map.of("README.md", "moved\n"), base);
      TestRepos.setRef(upstream, "refs/heads/main", moved);
      TestRepos.setRef(upstream, "refs/heads/topic", base);
      fetch(client, 0);
      assertThat(TestRepos.idOf(client, "refs/remotes/origin/main")).isEqualTo(moved);
      assertThat(TestRepos.idOf(client, "refs/remotes/origin/topic")).isEqualTo(base);
    }
  }

  @Test
  void aShallowFetchBringsOneCommit() throws Exception {
    RevCommit second = commit(upstream, "second\n", Map.of("README.md", "two\n"), base);
    TestRepos.setRef(upstream, "refs/heads/main", second);
    org.eclipse.jgit.lib.RefUpdate tag = upstream.updateRef("refs/tags/v1");
    tag.setForceUpdate(true);
    tag.delete();
    try (Repository client = client("2")) {
      fetch(client, 1);
      assertThat(client.getObjectDatabase().has(second)).isTrue();
      assertThat(client.getObjectDatabase().has(base)).isFalse();
    }
  }

  /** What a push left in the cache without upstream taking it is no one's to read. */
  @Test
  void anObjectNoBranchOrTagReachesIsNotServed() throws Exception {
    try (Repository client = client("2")) {
      fetch(client, 0);
    }
    RevCommit stray;
    try (Repository cache = new org.eclipse.jgit.internal.storage.file.FileRepository(
        dir.resolve("cache/acme/widget.git").toFile())) {
      stray = commit(cache, "refused push\n", Map.of("secret.txt", "s\n"), base);
    }
    java.io.ByteArrayOutputStream logged = new java.io.ByteArrayOutputStream();
    java.io.PrintStream err = System.err;
    System.setErr(new java.io.PrintStream(logged, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      for (String protocol : List.of("0", "2")) {
        try (Repository client = client(protocol)) {
          assertThatThrownBy(() -> fetchIds(client, stray.name())).as(protocol)
              .isInstanceOf(TransportException.class).hasMessageContaining(stray.name());
          assertThat(client.getObjectDatabase().has(stray)).isFalse();
        }
      }
    } finally {
      System.setErr(err);
    }
    // A refusal, logged as one line a request: no stack trace.
    String log = logged.toString(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(log).contains("fetch refused: want " + stray.name() + " not valid")
        .doesNotContain("WantNotValidException").doesNotContain("\tat ");
    // a blob the branches reach is served by id: what a partial clone asks for later
    ObjectId blob;
    try (org.eclipse.jgit.treewalk.TreeWalk tw = org.eclipse.jgit.treewalk.TreeWalk.forPath(
        upstream, "README.md", base.getTree())) {
      blob = tw.getObjectId(0);
    }
    try (Repository client = client("2")) {
      fetchIds(client, blob.name());
      assertThat(client.getObjectDatabase().has(blob)).isTrue();
    }
  }

  /**
   * attackfetch: a have line is an existence probe. What a refused push left in the cache (here
   * a commit and its secret file's blob) must not be acknowledged to a run, in v0 or v2: JGit's
   * upload-pack ACKs any object the cache holds, reachable or not, so another run could confirm
   * a guessed file content (a blob id) that only a refused push carried.
   */
  @ParameterizedTest
  @ValueSource(strings = {"0", "2", "0|done"})
  void aHaveOfAnObjectNoBranchOrTagReachesIsNotAcknowledged(String protocolAndDone)
      throws Exception {
    String protocol = protocolAndDone.split("\\|")[0];
    String done = protocolAndDone.endsWith("|done") ? pktLine("done\n") : "";
    try (Repository client = client("2")) {
      fetch(client, 0);
    }
    RevCommit stray;
    ObjectId secret;
    try (Repository cache = new org.eclipse.jgit.internal.storage.file.FileRepository(
        dir.resolve("cache/acme/widget.git").toFile())) {
      stray = commit(cache, "refused push\n", Map.of("secret.txt", "password=hunter2\n"), base);
      try (org.eclipse.jgit.lib.ObjectInserter ins = cache.newObjectInserter()) {
        secret = ins.idFor(Constants.OBJ_BLOB,
            "password=hunter2\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      }
    }
    get("/git/github.com/acme/widget.git/info/refs?service=git-upload-pack"); // in step
    String haves = pktLine("have " + stray.name() + "\n") + pktLine("have " + secret.name() + "\n");
    // with done (v0): the final answer, "ACK <last common>", names none of them either
    String body = "2".equals(protocol)
        ? pktLine("command=fetch\n") + "0001" + pktLine("want " + base.name() + "\n") + haves
            + done + "0000"
        : pktLine("want " + base.name() + " multi_ack_detailed side-band-64k ofs-delta\n")
            + "0000" + haves + (done.isEmpty() ? "0000" : done);
    Answered r = uploadPackLogged(body.getBytes(java.nio.charset.StandardCharsets.US_ASCII),
        "2".equals(protocol) ? "version=2" : null);

    assertThat(r.body()).doesNotContain(stray.name()).doesNotContain(secret.name());
  }

  /**
   * attack36b: a deepen-not line is an existence probe as a have line is. JGit parses its value as
   * a commit id when it is one, so a commit that only a refused or held push left in the cache
   * answers with a pack while an absent id answers "ERR Internal server error" (and a stack trace
   * in the log): a run learns that the shared cache holds a commit no branch or tag reaches.
   */
  @ParameterizedTest
  @ValueSource(strings = {"0", "2"})
  void aDeepenNotOfAnObjectNoBranchOrTagReachesAnswersAsAnAbsentOne(String protocol)
      throws Exception {
    RevCommit stray = refusedPushLeftInTheCache();
    get("/git/github.com/acme/widget.git/info/refs?service=git-upload-pack"); // in step
    String absent = "1".repeat(40);
    String[] answers = new String[2];
    String[] logs = new String[2];
    int i = 0;
    for (String id : List.of(stray.name(), absent)) {
      String body = "2".equals(protocol)
          ? pktLine("command=fetch\n") + "0001" + pktLine("want " + base.name() + "\n")
              + pktLine("deepen-not " + id + "\n") + pktLine("done\n") + "0000"
          : pktLine("want " + base.name() + " multi_ack_detailed side-band-64k ofs-delta"
              + " shallow deepen-not\n") + pktLine("deepen-not " + id + "\n") + "0000"
              + pktLine("done\n");
      Answered r = uploadPackLogged(body.getBytes(java.nio.charset.StandardCharsets.US_ASCII),
          "2".equals(protocol) ? "version=2" : null);
      answers[i] = r.body().replace(id, "<id>");
      logs[i++] = r.log();
    }
    assertThat(answers[0]).doesNotContain("Internal server error");
    assertThat(answers[0]).isEqualTo(answers[1]);
    assertThat(logs[1]).doesNotContain("fetch failed inside the gateway").doesNotContain("\tat ");
  }

  private static String pktLine(String line) {
    return String.format("%04x", line.length() + 4) + line;
  }

  @Test
  void aRepositoryNotAttachedIsRefusedAndAudited() throws Exception {
    assertAnswers("/git/github.com/acme/secret.git/info/refs?service=git-upload-pack", 403,
        "Control Center policy: acme/secret is neither this run's"
        + " repository nor attached to its workspace\n");
    assertThat(audit.records).anySatisfy(rec ->
        assertThat(rec.code()).isEqualTo("REPO_NOT_ATTACHED"));
  }

  @Test
  void anUpstreamThatCannotBeReadFailsTheFetchIn502() throws Exception {
    assertAnswers("/git/github.com/acme/docs.git/info/refs?service=git-upload-pack", 502,
        "Control Center policy: upstream acme/docs cannot be read right"
        + " now, so the gateway cannot serve it; try again\n");
  }

  @Test
  void theDumbProtocolIsNotServed() throws Exception {
    assertAnswers("/git/github.com/acme/widget.git/info/refs", 403,
        "The gateway serves git's smart HTTP protocol only"
        + " (git-upload-pack and git-receive-pack).\n");
  }

  @Test
  void severalFetchesOfOneRepositoryAtOnceAllSeeUpstream() throws Exception {
    RevCommit moved = commit(upstream, "moved\n", Map.of("README.md", "moved\n"), base);
    TestRepos.setRef(upstream, "refs/heads/main", moved);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<ObjectId>> results = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        String protocol = i % 2 == 0 ? "0" : "2";
        results.add(pool.submit(() -> {
          try (Repository client = client(protocol)) {
            fetch(client, 0);
            return TestRepos.idOf(client, "refs/remotes/origin/main");
          }
        }));
      }
      for (Future<ObjectId> f : results) {
        assertThat(f.get()).isEqualTo(moved);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * A fetch request's body is read whole into memory by JGit (every {@code have} of a v2 fetch):
   * gzip lets a few hundred KiB stand for far more, so the gateway bounds it as decoded.
   */
  @Test
  void aFetchRequestLargerThanTheBoundIsRefusedAsGitReadsIt() throws Exception {
    get("/git/github.com/acme/widget.git/info/refs?service=git-upload-pack"); // sync the cache
    java.io.ByteArrayOutputStream zipped = new java.io.ByteArrayOutputStream();
    long decoded = 0;
    try (java.util.zip.GZIPOutputStream gz = new java.util.zip.GZIPOutputStream(zipped)) {
      byte[] head = ("0011command=fetch0001000dthin-pack0032want " + base.name() + "\n")
          .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      gz.write(head);
      byte[] have = ("0032have " + "1".repeat(40) + "\n")
          .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      while (decoded <= GatewayFilter.MAX_FETCH_REQUEST_BYTES) {
        gz.write(have);
        decoded += have.length;
      }
      gz.write("0009done\n0000".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            server.getURI().resolve("/git/github.com/acme/widget.git/git-upload-pack"))
        .header("Authorization", "Bearer " + CREDENTIAL).header("Git-Protocol", "version=2")
        .header("Content-Type", "application/x-git-upload-pack-request")
        .header("Content-Encoding", "gzip").timeout(Duration.ofSeconds(60))
        .POST(HttpRequest.BodyPublishers.ofByteArray(zipped.toByteArray())).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(zipped.size()).isLessThan(1 << 20);
    assertThat(r.body()).contains("ERR ").contains("fetch request")
        .doesNotContain("PACK");
  }

  /**
   * attack3133: a push's command list sent to git-upload-pack is the client's protocol error: git
   * gets its ERR, and the gateway logs one line, not an internal error with a stack trace.
   */
  @Test
  void aPushCommandListSentToUploadPackIsRefusedAsOneLine() throws Exception {
    get("/git/github.com/acme/widget.git/info/refs?service=git-upload-pack"); // sync the cache
    byte[] command = ("0".repeat(40) + " " + base.name() + " refs/heads/x\0report-status\n")
        .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    byte[] body = (String.format("%04x", command.length + 4)
        + new String(command, java.nio.charset.StandardCharsets.US_ASCII) + "0000")
        .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    Answered r = uploadPackLogged(body, null);
    assertThat(r.body()).contains("ERR ").contains("expected 'want'");
    assertThat(r.log()).contains("fetch refused: ").contains("expected 'want'")
        .doesNotContain("fetch failed inside the gateway").doesNotContain("\tat ");
  }

  /**
   * A fetch request whose pkt-lines are malformed (a length that overruns the next header in v2,
   * a length that is not hex in v0) is the client's error: git gets an ERR that says so, and the
   * gateway logs one line, not "Internal server error" and a stack trace.
   */
  @ParameterizedTest
  @ValueSource(strings = {"version=2|0014command=ls-refs\n0001000csymrefs000bpeel0000",
      "|00zzwant x\n0000",
      // attackfetch: a request cut off before its flush (EOF mid-request) is malformed too
      "version=2|0011command=fetch0001000dthin-pack",
      // cut mid-pkt-line (v0), and v2's done without the final flush
      "|0032want 0123456789abcdef", "version=2|0012command=fetch\n0001000ddone\n"})
  void aMalformedPktLineInAFetchRequestIsRefusedAsOneLine(String protocolAndBody)
      throws Exception {
    get("/git/github.com/acme/widget.git/info/refs?service=git-upload-pack"); // the advertisement
    String[] parts = protocolAndBody.split("\\|", 2);
    Answered r = uploadPackLogged(parts[1].getBytes(java.nio.charset.StandardCharsets.US_ASCII),
        parts[0].isEmpty() ? null : parts[0]);

    assertThat(r.body()).contains("ERR the fetch request is malformed")
        .doesNotContain("Internal server error");
    assertThat(r.log().lines().filter(l -> !l.isBlank()).toList()).singleElement()
        .asString().contains("fetch refused: malformed request");
  }

  /**
   * A gzip-compressed fetch request (git compresses large ones) cut off mid-stream, or not gzip
   * at all, is malformed as a cut plain one is: git's ERR and one log line, not the inflater's
   * exception as an internal error.
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aGzipFetchRequestCutOffOrCorruptIsRefusedAsOneLine(boolean cut) throws Exception {
    get("/git/github.com/acme/widget.git/info/refs?service=git-upload-pack"); // the advertisement
    java.io.ByteArrayOutputStream zipped = new java.io.ByteArrayOutputStream();
    try (java.util.zip.GZIPOutputStream gz = new java.util.zip.GZIPOutputStream(zipped)) {
      gz.write(("0032want " + base.name() + "\n00000009done\n")
          .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }
    byte[] whole = zipped.toByteArray();
    byte[] body = cut ? java.util.Arrays.copyOf(whole, whole.length / 2)
        : "not gzip at all".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    Answered r = uploadPackLogged(body, null, "gzip");

    assertThat(r.body()).contains("ERR the fetch request is malformed")
        .doesNotContain("Internal server error");
    assertThat(r.log().lines().filter(l -> !l.isBlank()).toList()).singleElement()
        .asString().contains("fetch refused: malformed request");
  }

  /**
   * attack36b: requests JGit's upload-pack fails with an exception of its own (a number that is
   * not one, bytes after v0's done or after its round's flush, a shallow line that names no id)
   * are the client's error: git's ERR says so, and the gateway logs one line, not "Internal
   * server error" and a stack trace per request. BASE is upstream's main.
   */
  @ParameterizedTest
  @ValueSource(strings = {"0|want BASE multi_ack_detailed side-band-64k ofs-delta|#|done|#",
      "0|want BASE multi_ack_detailed side-band-64k ofs-delta|#|have BASE|#|#",
      "2|command=fetch|@|want BASE|deepen-since abc|done|#",
      "2|command=fetch|@|want BASE|deepen 99999999999|done|#",
      "0|want BASE multi_ack_detailed side-band-64k ofs-delta shallow|deepen x1|#|done",
      "2|command=fetch|@|want BASE|shallow BASEzz|done|#"})
  void aRequestJGitFailsOnIsRefusedAsMalformedInOneLine(String spec) throws Exception {
    assertRefusedInOneLine(spec, "ERR the fetch request is malformed: ",
        "fetch refused: malformed request");
  }

  /**
   * attack37: a want line that does not name one object id (a trailing space, two spaces, 39 or
   * 41 hex digits; v2, and v0 after the first want line) is the client's error as a malformed
   * have or shallow line is: JGit's ObjectId.fromString throws InvalidObjectIdException, which
   * the gateway answered "Internal server error" (HTTP 500) with a stack trace per request.
   */
  @ParameterizedTest
  @ValueSource(strings = {"2|command=fetch|@|want BASE |done|#",
      "2|command=fetch|@|want  BASE|done|#",
      "2|command=fetch|@|want BASEx|done|#",
      "0|want BASE multi_ack_detailed side-band-64k ofs-delta|want BASE |#|done"})
  void aWantLineThatNamesNoOneObjectIdIsRefusedAsMalformedInOneLine(String spec)
      throws Exception {
    assertRefusedInOneLine(spec, "ERR the fetch request is malformed: ",
        "fetch refused: malformed request");
  }

  /**
   * attack36b: an argument JGit's upload-pack cannot serve (deepen-relative, which {@code git
   * fetch --deepen} sends; the object-info command) is refused with git's ERR saying what is not
   * served, and one log line: JGit would throw, answer "Internal server error", and log a stack
   * trace.
   */
  @ParameterizedTest
  @ValueSource(strings = {"2|command=fetch|@|want BASE|deepen-relative|deepen 1|done|#",
      "0|want BASE multi_ack_detailed side-band-64k ofs-delta shallow deepen-relative|deepen 1|#"
          + "|done",
      "2|command=object-info|@|size|oid BASE|#"})
  void anArgumentJGitCannotServeIsRefusedSayingSoInOneLine(String spec) throws Exception {
    assertRefusedInOneLine(spec, "ERR the gateway does not serve ", "fetch refused: not served: ");
  }

  /** A deepen-not of a commit the branches reach is served: the history cut there. */
  @ParameterizedTest
  @ValueSource(strings = {"0", "2"})
  void aDeepenNotOfACommitTheBranchesReachIsServed(String protocol) throws Exception {
    RevCommit second = commit(upstream, "second\n", Map.of("README.md", "two\n"), base);
    TestRepos.setRef(upstream, "refs/heads/main", second);
    get("/git/github.com/acme/widget.git/info/refs?service=git-upload-pack"); // in step
    String spec = "2".equals(protocol)
        ? "2|command=fetch|@|want " + second.name() + "|deepen-not BASE|ofs-delta|done|#"
        : "0|want " + second.name() + " multi_ack_detailed side-band-64k ofs-delta shallow"
            + " deepen-not|deepen-not BASE|#|done";
    Answered r = uploadPackLogged(request(spec), "2".equals(protocol) ? "version=2" : null);

    assertThat(r.body()).contains("shallow " + second.name()).contains("PACK")
        .doesNotContain("ERR");
  }

  /**
   * The request {@code spec} is answered with git's ERR starting {@code err}, and the gateway
   * logs one line, containing {@code logged}: not "Internal server error" and a stack trace.
   */
  private void assertRefusedInOneLine(String spec, String err, String logged) throws Exception {
    get("/git/github.com/acme/widget.git/info/refs?service=git-upload-pack"); // in step
    Answered r = uploadPackLogged(request(spec), spec.startsWith("2|") ? "version=2" : null);

    assertThat(r.body()).contains(err).doesNotContain("Internal server error");
    assertThat(r.log().lines().filter(l -> !l.isBlank()).toList()).singleElement()
        .asString().contains(logged);
  }

  /**
   * attack36b: a shallow line naming an object only a refused push left in the cache (its
   * secret file's blob) answers as one naming an absent object: JGit reads a shallow object
   * the cache holds, and refuses one that is not a commit ("invalid shallow object"), while it
   * ignores one the cache lacks.
   */
  @ParameterizedTest
  @ValueSource(strings = {"0", "2"})
  void aShallowOfAnObjectNoBranchOrTagReachesAnswersAsAnAbsentOne(String protocol)
      throws Exception {
    refusedPushLeftInTheCache();
    ObjectId secret = new org.eclipse.jgit.lib.ObjectInserter.Formatter().idFor(
        Constants.OBJ_BLOB, SECRET.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    get("/git/github.com/acme/widget.git/info/refs?service=git-upload-pack"); // in step
    List<String> answers = new ArrayList<>();
    for (String id : List.of(secret.name(), "1".repeat(40))) {
      String spec = "2".equals(protocol)
          ? "2|command=fetch|@|want BASE|shallow " + id + "|deepen 1|done|#"
          : "0|want BASE multi_ack_detailed side-band-64k ofs-delta shallow|shallow " + id
              + "|deepen 1|#|done";
      Answered r = uploadPackLogged(request(spec), "2".equals(protocol) ? "version=2" : null);
      answers.add(r.body().replace(id, "<id>"));
    }
    assertThat(answers.get(0)).doesNotContain("ERR").isEqualTo(answers.get(1));
  }

  /**
   * A commit on upstream's main with a file secret.txt holding {@link #SECRET}, that only a
   * refused push left in the cache (after a first fetch): no branch or tag reaches it there.
   */
  private RevCommit refusedPushLeftInTheCache() throws Exception {
    try (Repository client = client("2")) {
      fetch(client, 0);
    }
    try (Repository cache = new org.eclipse.jgit.internal.storage.file.FileRepository(
        dir.resolve("cache/acme/widget.git").toFile())) {
      return commit(cache, "refused push\n", Map.of("secret.txt", SECRET), base);
    }
  }

  /**
   * A request body from {@code spec}: its protocol (0 or 2), then its lines, separated by |;
   * # is a flush, @ a delim, any other an LF-ended pkt-line; BASE is upstream's main.
   */
  private byte[] request(String spec) {
    StringBuilder body = new StringBuilder();
    String[] lines = spec.split("\\|");
    for (int i = 1; i < lines.length; i++) {
      String line = lines[i].replace("BASE", base.name());
      body.append(line.equals("#") ? "0000" : line.equals("@") ? "0001" : pktLine(line + "\n"));
    }
    return body.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }

  private record Answered(String body, String log) {}

  /** POSTs {@code body} to git-upload-pack, with what the gateway logged meanwhile. */
  private Answered uploadPackLogged(byte[] body, String gitProtocol) throws Exception {
    return uploadPackLogged(body, gitProtocol, null);
  }

  private Answered uploadPackLogged(byte[] body, String gitProtocol, String encoding)
      throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(
            server.getURI().resolve("/git/github.com/acme/widget.git/git-upload-pack"))
        .header("Authorization", "Bearer " + CREDENTIAL)
        .header("Content-Type", "application/x-git-upload-pack-request")
        .timeout(Duration.ofSeconds(30))
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (gitProtocol != null) {
      request.header("Git-Protocol", gitProtocol);
    }
    if (encoding != null) {
      request.header("Content-Encoding", encoding);
    }
    java.io.ByteArrayOutputStream logged = new java.io.ByteArrayOutputStream();
    java.io.PrintStream err = System.err;
    System.setErr(new java.io.PrintStream(logged, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      HttpResponse<String> r = HttpClient.newHttpClient().send(request.build(),
          HttpResponse.BodyHandlers.ofString());
      return new Answered(r.body(), logged.toString(java.nio.charset.StandardCharsets.UTF_8));
    } finally {
      System.setErr(err);
    }
  }

  /** No spelling of a repository not attached reaches its upstream or makes a cache for it. */
  @ParameterizedTest
  @ValueSource(strings = {"acme/SECRET.git", "acme/secret", "acme/secret.git/",
      "acme/widget.git/../secret.git", "acme/widget/../../acme/secret.git", "acme//secret.git",
      "acme/%73ecret.git", "acme%2Fsecret.git", "acme/secret.git;x=1", "acme/widget.git%2F..%2Fsecret.git",
      "acme/.secret.git", "acme/secret.git.git", "ACME/widget.git/../../acme/secret"})
  void noSpellingReadsARepositoryNotAttached(String spelling) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            java.net.URI.create(server.getURI().toString().replaceAll("/$", "")
                + "/git/github.com/" + spelling + "/info/refs?service=git-upload-pack"))
        .header("Authorization", "Bearer " + CREDENTIAL).timeout(Duration.ofSeconds(30)).GET()
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(spelling).isGreaterThanOrEqualTo(400);
    assertThat(upstreamServer.requests).isEmpty();
    assertThat(dir.resolve("cache/acme/secret.git")).doesNotExist();
    assertThat(dir.resolve("cache/acme/secret.git.git")).doesNotExist();
  }

  private Repository client(String protocol) throws Exception {
    Path d = dir.resolve("client-" + System.nanoTime());
    Repository client = Git.init().setDirectory(d.toFile()).call().getRepository();
    StoredConfig c = client.getConfig();
    c.setString("protocol", null, "version", protocol);
    c.save();
    return client;
  }

  private FetchResult fetch(Repository client, int depth) throws Exception {
    try (Git git = Git.wrap(client)) {
      var cmd = git.fetch().setRemote(url())
          .setRefSpecs(new RefSpec("+refs/heads/*:refs/remotes/origin/*"),
              new RefSpec("+refs/tags/*:refs/tags/*"))
          .setTransportConfigCallback(t -> ((TransportHttp) t).setAdditionalHeaders(
              Map.of("Authorization", "Bearer " + CREDENTIAL)));
      if (depth > 0) {
        cmd.setDepth(depth);
      }
      return cmd.call();
    }
  }

  private void fetchIds(Repository client, String id) throws Exception {
    try (Git git = Git.wrap(client)) {
      git.fetch().setRemote(url()).setRefSpecs(new RefSpec(id + ":refs/heads/fetched"))
          .setTransportConfigCallback(t -> ((TransportHttp) t).setAdditionalHeaders(
              Map.of("Authorization", "Bearer " + CREDENTIAL)))
          .call();
    }
  }

  private String url() {
    return server.getURI().resolve("/git/github.com/acme/widget.git").toString();
  }

  /** A GET of {@code path} with the run's credential is answered {@code status}, {@code body}. */
  private void assertAnswers(String path, int status, String body) throws Exception {
    HttpResponse<String> r = get(path);
    assertThat(r.statusCode()).isEqualTo(status);
    assertThat(r.body()).isEqualTo(body);
  }

  private HttpResponse<String> get(String path) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(server.getURI().resolve(path))
        .header("Authorization", "Bearer " + CREDENTIAL).timeout(Duration.ofSeconds(30)).GET()
        .build(), HttpResponse.BodyHandlers.ofString());
  }
}
