package dev.pushgate.gateway;

import static dev.pushgate.gateway.TestRepos.commit;
import static dev.pushgate.gateway.TestRepos.idOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.http.HttpServer;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.PushRule;
import dev.pushgate.policy.PushRules;
import dev.pushgate.testkit.Wait;
import dev.pushgate.types.AuditEntry;
import dev.pushgate.types.RepoSlug;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpClient;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.eclipse.jetty.server.Server;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.transport.PushResult;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.RemoteRefUpdate;
import org.eclipse.jgit.transport.Transport;
import org.eclipse.jgit.transport.TransportHttp;
import org.eclipse.jgit.transport.URIish;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The gateway served by Jetty on a free loopback port, asked over HTTP as git would ask it. */
class GatewayHttpTest {
  private static final String CREDENTIAL = "pgr_runCredential0123456789";
  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  private static final RepoSlug WIDGET = new RepoSlug("acme", "widget");
  private static final RepoSlug DOCS = new RepoSlug("acme", "docs");
  private static final RunContext RUN = new RunContext("run-1", "ws-1", WIDGET, List.of(DOCS),
      PushRules.of(List.of(PushRule.of("refs/heads/main", Decision.DENY, "push to main is denied"))),
      Decision.ALLOW);
  /** A second run of the same workspace, pushing in a loop. */
  private static final String FLOOD_CREDENTIAL = "pgr_floodCredential012345678";
  private static final RunContext FLOOD_RUN = new RunContext("run-flood", "ws-1", WIDGET,
      List.of(), PushRules.ALLOW_ALL);
  /** A third run, of another workspace, that holds no admission of its own. */
  private static final String OTHER_CREDENTIAL = "pgr_otherCredential012345678";
  private static final RunContext OTHER_RUN = new RunContext("run-other", "ws-2", WIDGET,
      List.of(), PushRules.ALLOW_ALL);

  @TempDir Path dir;
  /** Each run's share of requests in flight, for the gateways a test serves after setting it. */
  private int requestsPerRun = Gateway.DEFAULT_REQUESTS_PER_RUN;
  /** The run the credential stands for; a test may give it other rules before it pushes. */
  private RunContext run = RUN;
  private Approvals approvals = Approvals.NONE;
  private Server server;
  private Gateway gateway;
  private Repository upstream;
  private RevCommit base;
  private final RecordingAudit audit = new RecordingAudit();
  private RecordingUpstream access;
  private final HttpClient http = HttpClient.newHttpClient();

  private HttpUpstream upstreamServer;
  /** How each forward went: true when it was streamed. */
  private final List<Boolean> streamedForwards = new java.util.concurrent.CopyOnWriteArrayList<>();
  /** Each write token asked for, by outcome. */
  private final List<String> mints = new java.util.concurrent.CopyOnWriteArrayList<>();
  /** Each request shed, as {@code door/limit}. */
  private final List<String> sheds = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final PushMetrics forwards = new PushMetrics() {
    @Override
    public void onForward(Duration took, boolean ok, boolean streamed) {
      streamedForwards.add(streamed);
    }

    @Override
    public void onWriteTokenMint(String outcome) {
      mints.add(outcome);
    }

    @Override
    public void onShed(String door, String limit) {
      sheds.add(door + "/" + limit);
    }
  };

  @BeforeEach
  void startGateway() throws Exception {
    upstreamServer = new HttpUpstream(dir.resolve("upstream"));
    upstream = TestRepos.bare(dir.resolve("upstream/widget.git"));
    base = commit(upstream, "base\n", Map.of("README.md", "base\n"));
    TestRepos.setRef(upstream, "refs/heads/main", base);
    // acme/docs is attached but has no upstream repository: reading it fails.
    access = upstreamServer.access();
    server = serve(Duration.ofSeconds(30));
  }

  /** How many times the gateway authenticated a credential. */
  private final java.util.concurrent.atomic.AtomicInteger authentications =
      new java.util.concurrent.atomic.AtomicInteger();

  private Server serve(Duration clientTimeout) throws Exception {
    return serve(clientTimeout, GatewayConfig.DEFAULT_WRITE_TOKENS_PER_MINUTE);
  }

  private Server serve(Duration clientTimeout, int writeTokensPerMinute) throws Exception {
    return serve(clientTimeout, writeTokensPerMinute, AdmissionLimits.DEFAULTS);
  }

  private Server serve(Duration clientTimeout, int writeTokensPerMinute,
      AdmissionLimits admission) throws Exception {
    GatewayConfig config = new GatewayConfig(GatewayConfig.GITHUB_HOST, dir.resolve("cache"),
        1L << 30, clientTimeout, Duration.ofSeconds(10), Clock.fixed(NOW, ZoneOffset.UTC),
        writeTokensPerMinute);
    RunAuthenticator authenticator = credential -> {
      authentications.incrementAndGet();
      return CREDENTIAL.equals(credential) ? Optional.of(run)
          : FLOOD_CREDENTIAL.equals(credential) ? Optional.of(FLOOD_RUN)
          : OTHER_CREDENTIAL.equals(credential) ? Optional.of(OTHER_RUN) : Optional.empty();
    };
    Approvals asked = (q, progress) -> approvals.ask(q, progress);
    gateway = new Gateway(config, authenticator, access, audit, asked, forwards).admit(admission)
        .limitRequestsPerRun(requestsPerRun);
    Server s = new Server();
    HttpServer.tcp(s, "127.0.0.1", 0, null);
    s.setHandler(gateway.handler());
    s.start();
    return s;
  }

  @AfterEach
  void stopGateway() throws Exception {
    server.stop();
    upstream.close();
    upstreamServer.close();
  }

  @Test
  void aRequestWithoutTheRunCredentialIs401() throws Exception {
    HttpResponse<String> r = get("/git/github.com/acme/widget.git/info/refs?service=git-receive-pack", null);

    assertThat(r.statusCode()).isEqualTo(401);
    assertThat(r.body())
        .isEqualTo("Authentication failed: the run credential is unknown, expired or revoked.\n");
  }

  /** The run's request slot and the gate behind it read one authentication, not two. */
  @Test
  void aRequestAuthenticatesItsRunOnce() throws Exception {
    authentications.set(0);

    HttpResponse<String> r = get(
        "/git/github.com/acme/widget.git/info/refs?service=git-receive-pack",
        "Bearer " + CREDENTIAL);

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(authentications).hasValue(1);
  }

  @Test
  void anUnknownCredentialOrAnotherSchemeIs401() throws Exception {
    String path = "/git/github.com/acme/widget.git/info/refs?service=git-receive-pack";

    assertThat(get(path, "Bearer pgr_someoneElse").statusCode()).isEqualTo(401);
    assertThat(get(path, "Basic " + CREDENTIAL).statusCode()).isEqualTo(401);
    assertThat(get(path, "Bearer ").statusCode()).isEqualTo(401);
    assertThat(get(path, "bearer " + CREDENTIAL).statusCode()).isEqualTo(200);
  }

  @Test
  void aPathThatIsNotARepositoryIs404() throws Exception {
    HttpResponse<String> r = get("/git/github.com/acme/team/widget.git/info/refs?service=git-receive-pack",
        "Bearer " + CREDENTIAL);

    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(r.body())
        .isEqualTo("Not a repository of the gateway: expected /git/github.com/<owner>/<repo>.git\n");
  }

  /** Jetty refuses ambiguous encodings before the gateway's filter sees the path. */
  @Test
  void encodedDotSegmentsAndSeparatorsAreRefusedAsAmbiguous() throws Exception {
    for (String path : List.of(
        "/git/github.com/acme/%2e%2e/info/refs?service=git-receive-pack",
        "/git/github.com/%2e%2e/widget.git/info/refs?service=git-receive-pack",
        "/git/github.com/acme%2fwidget.git/info/refs?service=git-receive-pack",
        "/git/github.com/acme/widget.git%2finfo%2frefs?service=git-receive-pack",
        "/git/github.com/acme/..%5cwidget.git/info/refs?service=git-receive-pack")) {
      assertThat(get(path, "Bearer " + CREDENTIAL).statusCode()).as(path).isEqualTo(400);
    }
    assertThat(audit.records).isEmpty();
  }

  @Test
  void aRepositoryNotAttachedToTheRunIsRefusedAndAudited() throws Exception {
    HttpResponse<String> r = get("/git/github.com/acme/secret.git/info/refs?service=git-receive-pack",
        "Bearer " + CREDENTIAL);

    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(r.body()).isEqualTo("Control Center policy: acme/secret is neither this run's"
        + " repository nor attached to its workspace\n");
    assertThat(audit.records).containsExactly(AuditEntry.builder(AuditEntry.Type.PUSH).at(NOW)
        .runId("run-1").workspaceId("ws-1").repository("acme/secret").decision("denied")
        .rule("repository attachment").code("REPO_NOT_ATTACHED")
        .reason("acme/secret is neither this run's repository nor attached to its workspace")
        .outcome("not forwarded").durationMillis(0L).build());
  }

  @Test
  void fetchAdvertisementsAreServedFromTheSyncedCache() throws Exception {
    assertAdvertisesUpstreamsMain("/git/github.com/acme/widget.git", "git-upload-pack");
  }

  @Test
  void anUpstreamThatCannotBeReadIs502() throws Exception {
    HttpResponse<String> r = get("/git/github.com/acme/docs.git/info/refs?service=git-receive-pack",
        "Bearer " + CREDENTIAL);

    assertThat(r.statusCode()).isEqualTo(502);
    assertThat(r.body()).isEqualTo("Control Center policy: upstream acme/docs cannot be read right"
        + " now; nothing was pushed, try again\n");
  }

  @Test
  void thePushAdvertisementShowsUpstreamsBranches() throws Exception {
    assertAdvertisesUpstreamsMain("/git/github.com/acme/widget", "git-receive-pack");
  }

  /**
   * On loopback the gateway sends its advertisement as it is, though git accepts gzip: JGit would
   * deflate it on the push's critical path, and git inflate it again.
   */
  @Test
  void thePushAdvertisementIsSentUncompressedThoughTheClientAcceptsGzip() throws Exception {
    for (String branch : List.of("one", "two", "three")) {
      TestRepos.setRef(upstream, "refs/heads/" + branch, base);
    }

    HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(server.getURI().resolve(
            "/git/github.com/acme/widget.git/info/refs?service=git-receive-pack"))
        .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + CREDENTIAL)
        .header("Accept-Encoding", "deflate, gzip").GET().build(),
        HttpResponse.BodyHandlers.ofByteArray());

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Encoding")).isEmpty();
    assertThat(r.body().length).as("long enough for JGit to gzip it").isGreaterThan(256);
    assertThat(new String(r.body(), StandardCharsets.UTF_8))
        .startsWith("001f# service=git-receive-pack\n")
        .contains(base.name() + " refs/heads/main");
  }

  @Test
  void aGitPushOverHttpGetsPerRefResults() throws Exception {
    try (Repository client = clientWithNewMain()) {
      RevCommit next = client.parseCommit(client.resolve("refs/heads/main"));
      PushResult r = push(client, false, "refs/heads/main:refs/heads/main",
          "refs/heads/main:refs/heads/feature");

      assertThat(r.getRemoteUpdate("refs/heads/main").getStatus())
          .isEqualTo(RemoteRefUpdate.Status.REJECTED_OTHER_REASON);
      assertThat(r.getRemoteUpdate("refs/heads/main").getMessage())
          .isEqualTo("Control Center policy: push to main is denied");
      assertThat(r.getRemoteUpdate("refs/heads/feature").getStatus())
          .isEqualTo(RemoteRefUpdate.Status.OK);
      assertThat(idOf(upstream, "refs/heads/main")).isEqualTo(base);
      assertThat(idOf(upstream, "refs/heads/feature")).isEqualTo(next);
      // One token for the push, minted while its pack arrived, and given back once.
      assertThat(access.leases).singleElement()
          .satisfies(l -> assertThat(closesOf(l)).isEqualTo(1));
    }
  }

  @Test
  void aWriteTokenMintedForAPushThatForwardsNothingIsGivenBackUnused() throws Exception {
    try (Repository client = clientWithNewMain()) {
      PushResult r = push(client, true, "refs/heads/main:refs/heads/main",
          "refs/heads/main:refs/heads/feature");

      assertThat(r.getRemoteUpdate("refs/heads/feature").getStatus())
          .isEqualTo(RemoteRefUpdate.Status.REJECTED_OTHER_REASON);
      assertThat(idOf(upstream, "refs/heads/feature")).isNull();
      assertThat(access.leases).singleElement()
          .satisfies(l -> assertThat(closesOf(l)).as("revoked unused").isEqualTo(1));
    }
  }

  @Test
  void aLargePushIsCopiedUpstreamWhileItArrivesAndLandsWhole() throws Exception {
    try (Repository client = clientWithNewMain()) {
      RevCommit big = bigCommit(client, Map.of());
      upstreamServer.requests.clear();

      PushResult r = push(client, false, big.name() + ":refs/heads/big");

      assertThat(r.getRemoteUpdate("refs/heads/big").getStatus())
          .isEqualTo(RemoteRefUpdate.Status.OK);
      assertThat(idOf(upstream, "refs/heads/big")).isEqualTo(big);
      assertThat(streamedForwards).containsExactly(true);
      assertThat(upstreamServer.requests).filteredOn(x -> x.request().contains("receive-pack"))
          .containsExactly(new HttpUpstream.Seen("POST /widget.git/git-receive-pack", true));
      assertThat(access.leases).singleElement()
          .satisfies(l -> assertThat(closesOf(l)).isEqualTo(1));
    }
  }

  @Test
  void aLargePushThatChangesWorkflowsIsBrokenOffAndForwardedWithTheRightToken() throws Exception {
    try (Repository client = clientWithNewMain()) {
      RevCommit big = bigCommit(client, Map.of(".github/workflows/ci.yml", "on: push\n"));

      PushResult r = push(client, false, big.name() + ":refs/heads/big");

      assertThat(r.getRemoteUpdate("refs/heads/big").getStatus())
          .isEqualTo(RemoteRefUpdate.Status.OK);
      assertThat(idOf(upstream, "refs/heads/big")).isEqualTo(big);
      assertThat(streamedForwards).containsExactly(false);
      assertThat(access.leases).extracting(l -> l.workflows).containsExactly(false, true);
      assertThat(access.leases).allSatisfy(l -> assertThat(closesOf(l)).isEqualTo(1));
    }
  }

  /**
   * Upstream gets all of the pack but its last 20 bytes while the gateway receives it; the push
   * is then refused (the audit log is down), and upstream, which never got the trailer, applies
   * nothing.
   */
  @Test
  void aStreamedPushRefusedAfterItsPackNeverLandsUpstream() throws Exception {
    try (Repository client = clientWithNewMain()) {
      RevCommit big = bigCommit(client, Map.of());
      audit.down = true;
      upstreamServer.requests.clear();

      PushResult r = push(client, false, big.name() + ":refs/heads/big");

      assertThat(r.getRemoteUpdate("refs/heads/big").getStatus())
          .isEqualTo(RemoteRefUpdate.Status.REJECTED_OTHER_REASON);
      assertStreamedButBrokenOff(big);
    }
  }

  /**
   * The push was streamed upstream ({@code POST} with a body), broken off before its trailer:
   * upstream holds neither the ref nor the commit, and the one write token was revoked once.
   */
  private void assertStreamedButBrokenOff(RevCommit big) throws Exception {
    assertThat(upstreamServer.requests)
        .contains(new HttpUpstream.Seen("POST /widget.git/git-receive-pack", true));
    assertThat(idOf(upstream, "refs/heads/big")).isNull();
    assertThat(upstream.getObjectDatabase().has(big)).isFalse();
    assertThat(access.leases).singleElement()
        .satisfies(l -> assertThat(closesOf(l)).isEqualTo(1));
  }

  /**
   * A push every command of which the ref rules allow is streamed upstream as it arrives; a
   * secret file its commits bring is found in the hook, and the streamed copy is broken off
   * before its trailer: upstream applies nothing.
   */
  @Test
  void aStreamedPushBringingASecretFileIsRefusedAndNeverLandsUpstream() throws Exception {
    try (Repository client = clientWithNewMain()) {
      RevCommit big = bigCommit(client, Map.of("deploy/id_rsa", "not really a key\n"));
      upstreamServer.requests.clear();

      PushResult r = push(client, false, big.name() + ":refs/heads/big");

      assertThat(r.getRemoteUpdate("refs/heads/big").getMessage()).isEqualTo(
          "Control Center policy: deploy/id_rsa matches \"no secret files\"");
      assertStreamedButBrokenOff(big);
    }
  }

  /**
   * Attack 28m: a push its ref rules allow outright is streamed, the client's pack copied
   * verbatim; a blob in that pack that no pushed commit reaches is judged by no content rule,
   * yet it lands in upstream's object store, where it is readable by its id (what
   * github-api.md refuses {@code POST git/blobs} for). The stored-then-forwarded path (an
   * approved push) does not carry it; the streamed one must not either.
   */
  @Test
  void aStreamedPushLandsNoObjectItsCommitsDoNotReach() throws Exception {
    try (Repository client = clientWithNewMain()) {
      RevCommit next = client.parseCommit(client.resolve("refs/heads/main"));
      ObjectId secret;
      try (org.eclipse.jgit.lib.ObjectInserter ins = client.newObjectInserter()) {
        secret = ins.insert(org.eclipse.jgit.lib.Constants.OBJ_BLOB,
            "token = \"ghp_Qx7rT2mWk9LpZ3vN8bY4cH6dJ1fG5sA0eU7i\"\n"
                .getBytes(StandardCharsets.UTF_8));
        ins.flush();
      }
      List<org.eclipse.jgit.revwalk.RevObject> objects = new java.util.ArrayList<>();
      try (org.eclipse.jgit.revwalk.ObjectWalk walk =
          new org.eclipse.jgit.revwalk.ObjectWalk(client)) {
        walk.markStart(walk.parseCommit(next));
        walk.markUninteresting(walk.parseCommit(base));
        for (RevCommit c; (c = walk.next()) != null; ) {
          objects.add(c);
        }
        for (org.eclipse.jgit.revwalk.RevObject o; (o = walk.nextObject()) != null; ) {
          objects.add(o);
        }
        objects.add(walk.parseAny(secret));
      }
      byte[] body = pushBody(client, "refs/heads/extra", next,
          pw -> pw.preparePack(objects.iterator()));
      syncTheCache();

      HttpResponse<String> r = post("/git/github.com/acme/widget.git/git-receive-pack", body);

      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(upstream.getObjectDatabase().has(secret)).isFalse();
      // What the ref reaches still lands: the push is stored, then forwarded without the blob.
      assertThat(idOf(upstream, "refs/heads/extra")).isEqualTo(next);
      assertThat(streamedForwards).containsExactly(false);
    }
  }

  /**
   * What real git sends is still streamed: a thin force-push, its blob a delta against one the
   * client knows upstream has (sent as no object of the pack), carries nothing its ref does not
   * reach.
   */
  @Test
  void aThinForcePushWithDeltasAgainstUpstreamsObjectsIsStillStreamed() throws Exception {
    try (Repository client = clientWithNewMain()) {
      RevCommit big = bigCommit(client, Map.of());
      assertThat(push(client, false, big.name() + ":refs/heads/big").getRemoteUpdate(
          "refs/heads/big").getStatus()).isEqualTo(RemoteRefUpdate.Status.OK);
      byte[] noise = new byte[3 << 20];
      new java.util.Random(7).nextBytes(noise);
      noise[0] ^= 1; // one byte changed: the new blob is a delta against the one upstream has
      RevCommit rewritten = commit(client, "rewritten\n", Map.of("README.md", "next\n",
          "noise.bin", new String(noise, StandardCharsets.ISO_8859_1)),
          client.resolve("refs/heads/main"));
      syncTheCache();

      URIish uri = new URIish(server.getURI().resolve("/git/github.com/acme/widget.git")
          .toString());
      PushResult r;
      try (Transport t = Transport.open(client, uri)) {
        ((TransportHttp) t).setAdditionalHeaders(Map.of("Authorization", "Bearer " + CREDENTIAL));
        t.setPushThin(true);
        r = t.push(NullProgressMonitor.INSTANCE, t.findRemoteRefUpdatesFor(
            List.of(new RefSpec("+" + rewritten.name() + ":refs/heads/big"))));
      }

      assertThat(r.getRemoteUpdate("refs/heads/big").getStatus())
          .isEqualTo(RemoteRefUpdate.Status.OK);
      assertThat(idOf(upstream, "refs/heads/big")).isEqualTo(rewritten);
      assertThat(streamedForwards).containsExactly(true, true);
    }
  }

  /**
   * A content rule that asks about a push its ref rules allow whatever the pack: the streamed
   * copy is broken off before the question (upstream is not kept waiting on a person), and the
   * approved push is stored, then forwarded.
   */
  @Test
  void aStreamedPushAContentRuleAsksAboutIsStoredThenForwardedOnceApproved() throws Exception {
    run = new RunContext("run-1", "ws-1", WIDGET, List.of(DOCS), RUN.pushRules(),
        Decision.ALLOW, dev.pushgate.policy.WorkspaceRules.parse(
            "content: [{name: binaries need a look, binary: true, decision: ask}]").content());
    List<ApprovalQuestion> questions = new java.util.concurrent.CopyOnWriteArrayList<>();
    approvals = (q, progress) -> {
      questions.add(q);
      return Approvals.ApprovalAnswer.allow("alice");
    };
    try (Repository client = clientWithNewMain()) {
      RevCommit big = bigCommit(client, Map.of());

      PushResult r = push(client, false, big.name() + ":refs/heads/big");

      assertThat(r.getRemoteUpdate("refs/heads/big").getStatus())
          .isEqualTo(RemoteRefUpdate.Status.OK);
      assertThat(questions).singleElement().satisfies(q -> assertThat(q.reason())
          .isEqualTo("noise.bin is a binary file (rule \"binaries need a look\")"));
      assertThat(streamedForwards).containsExactly(false);
      assertThat(idOf(upstream, "refs/heads/big")).isEqualTo(big);
    }
  }

  /** A commit on top of main adding 3 MiB that does not compress, and {@code files}. */
  private RevCommit bigCommit(Repository client, Map<String, String> files) throws Exception {
    byte[] noise = new byte[3 << 20];
    new java.util.Random(7).nextBytes(noise);
    Map<String, String> tree = new java.util.HashMap<>(files);
    tree.put("README.md", "next\n");
    tree.put("noise.bin", new String(noise, java.nio.charset.StandardCharsets.ISO_8859_1));
    return commit(client, "big\n", tree, client.resolve("refs/heads/main"));
  }

  /**
   * A token is minted once a push's commands are read and one of them is allowed, never for an
   * advertisement: an agent asking for advertisements in a loop, or posting pushes without
   * commands, spent two calls of the GitHub App's rate limit each time.
   */
  @Test
  void aPushMintsOneTokenOnceItsCommandsAreReadAndAnAdvertisementMintsNone() throws Exception {
    for (int i = 0; i < 5; i++) {
      assertThat(get("/git/github.com/acme/widget/info/refs?service=git-receive-pack",
          "Bearer " + CREDENTIAL).statusCode()).isEqualTo(200);
    }
    assertThat(access.leases).isEmpty();
    try (Repository client = clientWithNewMain()) {
      RevCommit next = client.parseCommit(client.resolve("refs/heads/main"));
      PushResult r = push(client, false, "refs/heads/main:refs/heads/feature");
      assertThat(r.getRemoteUpdate("refs/heads/feature").getStatus())
          .isEqualTo(RemoteRefUpdate.Status.OK);
      assertThat(access.leases).singleElement()
          .satisfies(l -> assertThat(closesOf(l)).isEqualTo(1));
      assertThat(idOf(upstream, "refs/heads/feature")).isEqualTo(next);
    }
  }

  @Test
  void aPushWithoutCommandsOrWithMalformedOnesMintsNothing() throws Exception {
    String repo = "/git/github.com/acme/widget.git";
    assertThat(get(repo + "/info/refs?service=git-receive-pack", "Bearer " + CREDENTIAL)
        .statusCode()).isEqualTo(200);
    for (int i = 0; i < 20; i++) {
      assertThat(post(repo + "/git-receive-pack", "0000".getBytes(StandardCharsets.US_ASCII))
          .statusCode()).isEqualTo(200);
    }
    assertThat(post(repo + "/git-receive-pack",
        "0011not a command0000".getBytes(StandardCharsets.US_ASCII)).statusCode())
        .isEqualTo(400);
    assertThat(access.leases).isEmpty();
    assertThat(mints).isEmpty();
  }

  @Test
  void aRunPastItsBudgetOfWriteTokensIsRefusedWithoutAskingUpstream() throws Exception {
    server.stop();
    server = serve(Duration.ofSeconds(30), 2);
    try (Repository client = clientWithNewMain()) {
      assertThat(push(client, false, "refs/heads/main:refs/heads/one")
          .getRemoteUpdate("refs/heads/one").getStatus()).isEqualTo(RemoteRefUpdate.Status.OK);
      assertThat(push(client, false, "refs/heads/main:refs/heads/two")
          .getRemoteUpdate("refs/heads/two").getStatus()).isEqualTo(RemoteRefUpdate.Status.OK);

      PushResult r = push(client, false, "refs/heads/main:refs/heads/three");

      assertThat(r.getRemoteUpdate("refs/heads/three").getStatus())
          .isEqualTo(RemoteRefUpdate.Status.REJECTED_OTHER_REASON);
      assertThat(r.getRemoteUpdate("refs/heads/three").getMessage()).isEqualTo("this run has"
          + " pushed more than 2 times in a minute, the most one run may; nothing was pushed,"
          + " try again in 30 s");
      assertThat(idOf(upstream, "refs/heads/three")).isNull();
      assertThat(access.leases).hasSize(2);
      // The streamed copy and the push hook may each ask; neither reaches upstream.
      assertThat(mints).startsWith("minted", "minted");
      assertThat(mints.subList(2, mints.size())).isNotEmpty().containsOnly("rate-limited");
    }
  }

  @Test
  void whenUpstreamMovedThePushIsAdvertisedBeforeTheCacheFetchedAndWaitsForIt() throws Exception {
    syncTheCache();
    RevCommit moved = commit(upstream, "moved\n", Map.of("README.md", "moved\n"), base);
    TestRepos.setRef(upstream, "refs/heads/main", moved);
    // Upstream answers the cache's fetch only once the push's POST has come (its token is
    // minted): the advertisement did not wait for the fetch.
    holdTheCacheFetchUntil("the push's POST", () -> !mints.isEmpty());
    try (Repository client = clientWithNewMain()) {
      // Built on what upstream has now (the client fetched it before it moved its own main), so
      // its thin pack leaves out objects the cache has only once it has fetched.
      RevCommit next = commit(client, "next\n", Map.of("README.md", "next\n"), moved);
      TestRepos.setRef(client, "refs/heads/feature", next);

      PushResult r = push(client, false, "refs/heads/feature:refs/heads/feature");

      assertThat(r.getRemoteUpdate("refs/heads/feature").getStatus())
          .isEqualTo(RemoteRefUpdate.Status.OK);
      assertThat(idOf(upstream, "refs/heads/feature")).isEqualTo(next);
    }
  }

  @Test
  void anAdvertisementMadeBeforeTheFetchShowsUpstreamsNewBranchesAndTagsAsListed() throws Exception {
    MovedAndTagged upstreamNow = moveMainAndTagIt();

    assertThat(advertisedBeforeTheFetch("git-receive-pack", upstreamNow.moved()))
        .contains(upstreamNow.moved().name() + " refs/heads/main")
        .contains(upstreamNow.tag().name() + " refs/tags/v9").doesNotContain("^{}");
  }

  /**
   * A fetch's advertisement made while the cache fetches shows an annotated tag with the commit it
   * peels to, as upstream listed it: only a fetch's sync asks upstream for peeled tags (a push's
   * does not, above).
   */
  @Test
  void aFetchsAdvertisementMadeBeforeTheFetchShowsUpstreamsAnnotatedTagsPeeled() throws Exception {
    MovedAndTagged upstreamNow = moveMainAndTagIt();

    assertThat(advertisedBeforeTheFetch("git-upload-pack", upstreamNow.moved()))
        .contains(upstreamNow.tag().name() + " refs/tags/v9\n")
        .contains(upstreamNow.moved().name() + " refs/tags/v9^{}\n");
  }

  /** Upstream's main moved to {@code moved}, and {@code tag}, annotated, names it as v9. */
  private record MovedAndTagged(RevCommit moved, ObjectId tag) {}

  /** Once the cache is in step, upstream moves main and tags the new commit v9 (annotated). */
  private MovedAndTagged moveMainAndTagIt() throws Exception {
    syncTheCache();
    RevCommit moved = commit(upstream, "moved\n", Map.of("README.md", "moved\n"), base);
    ObjectId tag = TestRepos.annotatedTag(upstream, "v9", moved);
    TestRepos.setRef(upstream, "refs/heads/main", moved);
    TestRepos.setRef(upstream, "refs/tags/v9", tag);
    return new MovedAndTagged(moved, tag);
  }

  /**
   * {@code service}'s advertisement, asked while the cache's fetch of what upstream moved is held
   * back; that it came before the cache had {@code moved} is checked here.
   */
  private String advertisedBeforeTheFetch(String service, RevCommit moved) throws Exception {
    AtomicBoolean released = new AtomicBoolean();
    holdTheCacheFetchUntil("the test to release it", released::get);
    try {
      HttpResponse<String> r = get("/git/github.com/acme/widget.git/info/refs?service=" + service,
          "Bearer " + CREDENTIAL);

      assertThat(r.statusCode()).isEqualTo(200);
      try (Repository cache = new org.eclipse.jgit.internal.storage.file.FileRepository(
          dir.resolve("cache/acme/widget.git").toFile())) {
        assertThat(cache.getObjectDatabase().has(moved)).as("advertised before it was fetched")
            .isFalse();
      }
      return r.body();
    } finally {
      released.set(true);
    }
  }

  @Test
  void aCacheFetchThatFailsAfterTheAdvertisementFailsThePushAndNothingLands() throws Exception {
    syncTheCache();
    RevCommit moved = commit(upstream, "moved\n", Map.of("README.md", "moved\n"), base);
    TestRepos.setRef(upstream, "refs/heads/main", moved);
    upstreamServer.uploadPackAnswer = answer -> "0009JUNK\n".getBytes(StandardCharsets.UTF_8);
    try (Repository client = clientWithNewMain()) {
      RevCommit next = commit(client, "next\n", Map.of("README.md", "next\n"), moved);
      TestRepos.setRef(client, "refs/heads/feature", next);

      PushResult r = push(client, false, "refs/heads/feature:refs/heads/feature");

      assertThat(r.getRemoteUpdate("refs/heads/feature").getStatus())
          .isEqualTo(RemoteRefUpdate.Status.REJECTED_OTHER_REASON);
      assertThat(r.getRemoteUpdate("refs/heads/feature").getMessage()).isEqualTo("Control Center"
          + " policy: upstream acme/widget cannot be read right now; nothing was pushed, try again");
      assertThat(upstream.exactRef("refs/heads/feature")).isNull();
      AuditEntry a = audit.records.get(audit.records.size() - 1);
      assertThat(a.ref()).isEqualTo("refs/heads/feature");
      assertThat(a.code()).isEqualTo("UPSTREAM_REJECTED");
      assertThat(a.outcome()).isEqualTo("not forwarded");
      assertThat(access.leases).as("the token minted while the fetch ran is revoked")
          .allSatisfy(l -> assertThat(closesOf(l)).isEqualTo(1));
    }
  }

  /**
   * Issue 33: while the cache fetches what the push's advertisement showed, a streamed push's
   * pack is read ahead of JGit's parser and sent upstream, all but its trailer; the trailer goes
   * once the fetch has ended and the pack has been parsed, judged and audited.
   */
  @Test
  void whenUpstreamMovedAStreamedPushsPackGoesUpstreamWhileTheCacheFetches() throws Exception {
    RevCommit moved = upstreamMovedSinceTheCacheSynced();
    java.util.concurrent.atomic.AtomicReference<byte[]> duringTheFetch =
        new java.util.concurrent.atomic.AtomicReference<>();
    holdTheCacheFetchUntil("upstream to have the start of the push's pack", () -> {
      duringTheFetch.set(packUpstreamRead());
      return duringTheFetch.get().length > 12;
    });
    try (Repository client = clientWithNewMain()) {
      RevCommit next = commit(client, "next\n", Map.of("README.md", "next\n", "notes.txt",
          "more\n"), moved);
      TestRepos.setRef(client, "refs/heads/feature", next);

      PushResult r = push(client, false, "refs/heads/feature:refs/heads/feature");

      assertThat(r.getRemoteUpdate("refs/heads/feature").getStatus())
          .isEqualTo(RemoteRefUpdate.Status.OK);
      assertThat(idOf(upstream, "refs/heads/feature")).isEqualTo(next);
      assertThat(streamedForwards).containsExactly(true);
      byte[] whole = packUpstreamRead();
      assertThat(whole).startsWith(duringTheFetch.get());
      assertThat(whole.length - duringTheFetch.get().length).as("what followed the fetch")
          .isGreaterThanOrEqualTo(20);
      assertThat(access.leases).singleElement()
          .satisfies(l -> assertThat(closesOf(l)).isEqualTo(1));
    }
  }

  /**
   * A push sent upstream while the cache fetches, then refused by a content rule: upstream had
   * the pack but its trailer, and applies nothing; no object of the push is in upstream.
   */
  @Test
  void whenUpstreamMovedAPushRefusedAfterItsPackWasSentDuringTheFetchNeverLandsUpstream()
      throws Exception {
    RevCommit moved = upstreamMovedSinceTheCacheSynced();
    holdTheCacheFetchUntil("upstream to have the start of the push's pack",
        () -> packUpstreamRead().length > 12);
    try (Repository client = clientWithNewMain()) {
      String key = "not really a key\n";
      RevCommit next = commit(client, "next\n", Map.of("README.md", "next\n", "deploy/id_rsa",
          key), moved);
      Map<String, ObjectId> refsBefore = refsOf(upstream);

      PushResult r = push(client, false, next.name() + ":refs/heads/feature");

      assertThat(r.getRemoteUpdate("refs/heads/feature").getMessage()).isEqualTo(
          "Control Center policy: deploy/id_rsa matches \"no secret files\"");
      Wait.until(Duration.ofSeconds(30), "upstream's receive-pack to end",
          () -> upstreamServer.receivePacksEnded.get() == 1);
      assertThat(refsOf(upstream)).isEqualTo(refsBefore);
      assertThat(upstream.getObjectDatabase().has(next)).isFalse();
      assertThat(upstream.getObjectDatabase().has(blobId(key))).isFalse();
      assertThat(access.leases).singleElement()
          .satisfies(l -> assertThat(closesOf(l)).isEqualTo(1));
    }
  }

  /**
   * Attack on the read ahead: a valid pack followed by 20 bytes more. Holding back only the last
   * 20 bytes read would send upstream the whole pack, trailer and all, and git's receive-pack,
   * which reads no further than the trailer, would apply it before the gateway's parser refused
   * the bytes after it. What goes ahead stops at the first 20 bytes that are the SHA-1 of all
   * before them.
   */
  @Test
  void aPackWithBytesAfterItsTrailerReadAheadDuringTheFetchNeverLandsUpstream()
      throws Exception {
    upstreamServer.stopsReadingAtTheTrailer = true;
    RevCommit moved = upstreamMovedSinceTheCacheSynced();
    try (Repository client = clientWithNewMain()) {
      RevCommit next = commit(client, "next\n", Map.of("README.md", "next\n"), moved);
      byte[] body = pushBody(client, "refs/heads/junk", next, moved);
      int pack = body.length - packStart(body);
      holdTheCacheFetchUntil("upstream to have the pack but its trailer",
          () -> packUpstreamRead().length >= pack - 20);
      Map<String, ObjectId> refsBefore = refsOf(upstream);
      byte[] junk = new byte[20];
      java.util.Arrays.fill(junk, (byte) 'x');
      advertise();

      HttpResponse<String> r = post("/git/github.com/acme/widget.git/git-receive-pack",
          concat(body, junk));

      assertThat(r.statusCode()).as("the gateway's parser refuses the bytes after the trailer")
          .isEqualTo(400);
      Wait.until(Duration.ofSeconds(30), "upstream's receive-pack to end",
          () -> upstreamServer.receivePacksEnded.get() == 1);
      assertThat(refsOf(upstream)).isEqualTo(refsBefore);
      assertThat(upstream.getObjectDatabase().has(next)).isFalse();
      assertThat(packUpstreamRead()).hasSize(pack - 20);
    }
  }

  /**
   * A client that dies part way through its pack while the cache fetches: upstream had the start
   * of the pack and never its end; the push is audited as abandoned, nothing lands.
   */
  @Test
  void aClientThatDiesMidPackWhileTheCacheFetchesLandsNothingUpstream() throws Exception {
    RevCommit moved = upstreamMovedSinceTheCacheSynced();
    AtomicBoolean clientGone = new AtomicBoolean();
    holdTheCacheFetchUntil("the client to be gone", clientGone::get);
    try (Repository client = clientWithNewMain()) {
      byte[] noise = new byte[8 << 10];
      new java.util.Random(3).nextBytes(noise);
      RevCommit next = commit(client, "next\n", Map.of("README.md", "next\n", "noise.bin",
          new String(noise, StandardCharsets.ISO_8859_1)), moved);
      byte[] body = pushBody(client, "refs/heads/cut", next, moved);
      Map<String, ObjectId> refsBefore = refsOf(upstream);
      advertise();

      try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.getURI().getPort())) {
        String head = "POST /git/github.com/acme/widget.git/git-receive-pack HTTP/1.1\r\n"
            + "Host: 127.0.0.1\r\nAuthorization: Bearer " + CREDENTIAL + "\r\n"
            + "Content-Type: application/x-git-receive-pack-request\r\n"
            + "Content-Length: " + body.length + "\r\n\r\n";
        socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().write(body, 0, packStart(body) + 4096);
        socket.getOutputStream().flush();
        Wait.until(Duration.ofSeconds(10), "upstream to have the start of the pack",
            () -> packUpstreamRead().length > 12);
      }
      clientGone.set(true);

      Wait.until(Duration.ofSeconds(30), "the push to be audited", () -> audit.records.stream()
          .anyMatch(a -> a.ref().equals("refs/heads/cut")));
      assertThat(audit.records).filteredOn(a -> a.ref().equals("refs/heads/cut"))
          .singleElement().satisfies(a -> {
            assertThat(a.code()).isEqualTo("ABANDONED");
            assertThat(a.outcome()).isEqualTo("not forwarded");
          });
      Wait.until(Duration.ofSeconds(30), "upstream's receive-pack to end",
          () -> upstreamServer.receivePacksEnded.get() == 1);
      assertThat(refsOf(upstream)).isEqualTo(refsBefore);
      assertThat(upstream.getObjectDatabase().has(next)).isFalse();
      assertThat(access.leases).allSatisfy(l -> assertThat(closesOf(l)).isEqualTo(1));
    }
  }

  /** The cache synced, then upstream's main moved on: the next advertisement leaves a fetch. */
  private RevCommit upstreamMovedSinceTheCacheSynced() throws Exception {
    syncTheCache();
    RevCommit moved = commit(upstream, "moved\n", Map.of("README.md", "moved\n"), base);
    TestRepos.setRef(upstream, "refs/heads/main", moved);
    return moved;
  }

  /** The push's advertisement, as git asks for it before its POST. */
  private void advertise() throws Exception {
    assertThat(get("/git/github.com/acme/widget.git/info/refs?service=git-receive-pack",
        "Bearer " + CREDENTIAL).statusCode()).isEqualTo(200);
  }

  /** The pack upstream's receive-pack has read so far, from its signature on; empty before. */
  private byte[] packUpstreamRead() {
    byte[] read = upstreamServer.receivePackRead.toByteArray();
    int at = packStart(read);
    return at < 0 ? new byte[0] : java.util.Arrays.copyOfRange(read, at, read.length);
  }

  /** Where {@code body}'s pack starts ({@code PACK}), or -1. */
  private static int packStart(byte[] body) {
    byte[] signature = {'P', 'A', 'C', 'K'};
    for (int i = 0; i + signature.length <= body.length; i++) {
      if (java.util.Arrays.equals(body, i, i + 4, signature, 0, 4)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * A receive-pack request creating {@code ref} at {@code tip}: the command (report-status
   * asked), then a pack of what {@code tip} has beyond {@code have}.
   */
  private static byte[] pushBody(Repository client, String ref, RevCommit tip, ObjectId have)
      throws Exception {
    return pushBody(client, ref, tip, pw -> pw.preparePack(NullProgressMonitor.INSTANCE,
        java.util.Set.of(tip), java.util.Set.of(have)));
  }

  /** What goes into a pack: a {@code preparePack} call. */
  private interface PackObjects {
    void prepare(org.eclipse.jgit.internal.storage.pack.PackWriter pw) throws Exception;
  }

  /** A receive-pack request creating {@code ref} at {@code tip}, with a pack of {@code objects}. */
  private static byte[] pushBody(Repository client, String ref, ObjectId tip,
      PackObjects objects) throws Exception {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    byte[] command = (ObjectId.zeroId().name() + " " + tip.name() + " " + ref
        + "\0report-status\n").getBytes(StandardCharsets.US_ASCII);
    body.writeBytes(String.format("%04x", command.length + 4).getBytes(StandardCharsets.US_ASCII));
    body.writeBytes(command);
    body.writeBytes("0000".getBytes(StandardCharsets.US_ASCII));
    try (org.eclipse.jgit.internal.storage.pack.PackWriter pw =
        new org.eclipse.jgit.internal.storage.pack.PackWriter(client)) {
      objects.prepare(pw);
      pw.writePack(NullProgressMonitor.INSTANCE, NullProgressMonitor.INSTANCE, body);
    }
    return body.toByteArray();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] both = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, both, a.length, b.length);
    return both;
  }

  private static Map<String, ObjectId> refsOf(Repository repo) throws Exception {
    Map<String, ObjectId> refs = new java.util.TreeMap<>();
    for (org.eclipse.jgit.lib.Ref ref : repo.getRefDatabase().getRefs()) {
      refs.put(ref.getName(), ref.getObjectId());
    }
    return refs;
  }

  private static ObjectId blobId(String content) {
    return new org.eclipse.jgit.lib.ObjectInserter.Formatter().idFor(
        org.eclipse.jgit.lib.Constants.OBJ_BLOB, content.getBytes(StandardCharsets.UTF_8));
  }

  /** Upstream answers the cache's fetch once {@code condition} holds (at most 30 s). */
  private void holdTheCacheFetchUntil(String what, Wait.Condition condition) {
    upstreamServer.uploadPackAnswer = answer -> {
      try {
        Wait.until(Duration.ofSeconds(30), what, condition);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      return answer;
    };
  }

  /** Two advertisements: the second waits for any fetch the first left running. */
  private void syncTheCache() throws Exception {
    for (int i = 0; i < 2; i++) {
      assertThat(get("/git/github.com/acme/widget.git/info/refs?service=git-receive-pack",
          "Bearer " + CREDENTIAL).statusCode()).isEqualTo(200);
    }
  }

  /** A client repository holding upstream's branches, with one new commit on main. */
  private Repository clientWithNewMain() throws Exception {
    Repository client = TestRepos.bare(dir.resolve("client.git"));
    try (Git git = Git.wrap(client)) {
      git.fetch().setRemote(TestRepos.url(dir.resolve("upstream/widget.git")))
          .setRefSpecs(new RefSpec("+refs/heads/*:refs/heads/*")).call();
    }
    TestRepos.setRef(client, "refs/heads/main",
        commit(client, "next\n", Map.of("README.md", "next\n"), base));
    return client;
  }

  /** Pushes {@code refSpecs} from {@code client} through the gateway, as the run. */
  private PushResult push(Repository client, boolean atomic, String... refSpecs)
      throws Exception {
    return push(CREDENTIAL, client, atomic, refSpecs);
  }

  /** Pushes {@code refSpecs} from {@code client} through the gateway, as the run of credential. */
  private PushResult push(String credential, Repository client, boolean atomic,
      String... refSpecs) throws Exception {
    return push(server.getURI(), credential, client, atomic, refSpecs);
  }

  /** Pushes through the gateway served at {@code gatewayUri}. */
  private PushResult push(URI gatewayUri, String credential, Repository client, boolean atomic,
      String... refSpecs) throws Exception {
    URIish uri = new URIish(gatewayUri.resolve("/git/github.com/acme/widget.git").toString());
    try (Transport t = Transport.open(client, uri)) {
      ((TransportHttp) t).setAdditionalHeaders(Map.of("Authorization", "Bearer " + credential));
      t.setPushAtomic(atomic);
      return t.push(NullProgressMonitor.INSTANCE, t.findRemoteRefUpdatesFor(
          Stream.of(refSpecs).map(RefSpec::new).toList()));
    }
  }

  /** Closes of a lease; the gateway gives an unused one back just after answering. */
  private static int closesOf(RecordingUpstream.Lease lease) {
    try {
      Wait.until(Duration.ofSeconds(30), "the push's write token to be revoked",
          () -> lease.closes.get() > 0);
    } catch (Exception e) {
      throw new AssertionError(e.getMessage(), e);
    }
    return lease.closes.get();
  }

  /**
   * One run pushing, in parallel, histories that are slow to judge (thousands of files swapped
   * between contents already seen, in every commit) takes its share of the judge, not all of it:
   * another run's push is judged and lands while the flood runs, and a stopping gateway ends the
   * flood's judgements.
   */
  @Test
  void oneRunFloodingTheJudgeDoesNotStopAnotherRunsPush() throws Exception {
    int floods = GatewayThreads.JUDGEMENTS_PER_RUN + 2;
    List<java.util.concurrent.CompletableFuture<PushResult>> flood = new java.util.ArrayList<>();
    try (Repository slow = TestRepos.bare(dir.resolve("flood.git"));
        Repository client = clientWithNewMain()) {
      RevCommit tip = TestRepos.swappingHistory(slow, 2_000, 400);
      for (int i = 0; i < floods; i++) {
        String spec = tip.name() + ":refs/heads/flood-" + i;
        flood.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> {
          try {
            return push(FLOOD_CREDENTIAL, slow, false, spec);
          } catch (Exception e) {
            throw new java.util.concurrent.CompletionException(e);
          }
        }));
      }
      RunSlots judging = gateway.threads().judgements();
      Wait.until(Duration.ofSeconds(60), "the flood to be judged",
          () -> judging.inFlight("run-flood") > 0);

      TestRepos.setRef(client, "refs/heads/feature", client.resolve("refs/heads/main"));
      PushResult quiet = push(client, false, "refs/heads/feature:refs/heads/feature");

      assertThat(quiet.getRemoteUpdate("refs/heads/feature").getStatus())
          .isEqualTo(RemoteRefUpdate.Status.OK);
      assertThat(idOf(upstream, "refs/heads/feature")).isEqualTo(client.resolve("refs/heads/main"));
      assertThat(flood).as("the flood still runs").anyMatch(f -> !f.isDone());
      assertThat(judging.inFlight("run-flood")).isLessThanOrEqualTo(judging.perRun());

      // Stopping the gateway abandons the flood's judgements: every flood push ends.
      server.stop();
      Wait.until(Duration.ofSeconds(60), "the flood's pushes to end",
          () -> flood.stream().allMatch(java.util.concurrent.CompletableFuture::isDone));
      assertThat(judging.inFlight("run-flood")).isZero();
      for (int i = 0; i < floods; i++) {
        assertThat(idOf(upstream, "refs/heads/flood-" + i)).as("flood-" + i).isNull();
      }
    }
  }

  /**
   * A client that closes its connection while its push is judged (a killed git): Jetty reads
   * nothing then and JGit has written nothing yet, so only the judgement's look at the connection
   * notices. The judgement is abandoned in whichever step it is (the walk for workflow files took
   * minutes of a loaded machine's time before it asked), frees the run's slot, is audited as
   * abandoned, and nothing goes upstream. The waits are generous, for a busy machine, and still
   * end before the judgement's budget would: a judgement that was not abandoned runs minutes of
   * walking, then is refused as not judged in time, never audited as abandoned.
   */
  @Test
  void aPushWhoseClientClosesItsConnectionWhileJudgedIsAbandoned() throws Exception {
    String repo = "/git/github.com/acme/widget.git";
    try (Repository slow = TestRepos.bare(dir.resolve("closed.git"))) {
      // Minutes of tree walking: 2,000 commits each swapping 20,000 files.
      RevCommit tip = TestRepos.swappingHistory(slow, 20_000, 2_000);
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      byte[] command = ("0".repeat(40) + " " + tip.name() + " refs/heads/closed\0report-status"
          + " side-band-64k agent=git/2.39\n").getBytes(StandardCharsets.US_ASCII);
      body.writeBytes(String.format("%04x", command.length + 4).getBytes(StandardCharsets.US_ASCII));
      body.writeBytes(command);
      body.writeBytes("0000".getBytes(StandardCharsets.US_ASCII));
      try (org.eclipse.jgit.internal.storage.pack.PackWriter pw =
          new org.eclipse.jgit.internal.storage.pack.PackWriter(slow)) {
        pw.preparePack(NullProgressMonitor.INSTANCE, java.util.Set.of(tip), java.util.Set.of());
        pw.writePack(NullProgressMonitor.INSTANCE, NullProgressMonitor.INSTANCE, body);
      }
      assertThat(get(repo + "/info/refs?service=git-receive-pack", "Bearer " + CREDENTIAL)
          .statusCode()).isEqualTo(200);
      RunSlots judging = gateway.threads().judgements();

      try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.getURI().getPort())) {
        String head = "POST " + repo + "/git-receive-pack HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Authorization: Bearer " + CREDENTIAL + "\r\n"
            + "Content-Type: application/x-git-receive-pack-request\r\n"
            + "Content-Length: " + body.size() + "\r\n\r\n";
        socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().write(body.toByteArray());
        socket.getOutputStream().flush();
        Wait.until(Duration.ofSeconds(60), "the push to be judged",
            () -> judging.inFlight("run-1") > 0);
      }

      Wait.until(ContentJudge.BUDGET.minusSeconds(30), "the closed push's judgement to be"
          + " abandoned", () -> audit.records.stream()
          .anyMatch(r -> r.ref().equals("refs/heads/closed")));
      assertThat(audit.records).filteredOn(r -> r.ref().equals("refs/heads/closed"))
          .singleElement().satisfies(r -> {
            assertThat(r.code()).isEqualTo("ABANDONED");
            assertThat(r.reason()).isEqualTo("judgement abandoned: the client closed its"
                + " connection; nothing was pushed, push again");
          });
      Wait.until(Duration.ofSeconds(60), "the run's judgement slot to be free",
          () -> judging.inFlight("run-1") == 0);
      assertThat(idOf(upstream, "refs/heads/closed")).isNull();
    }
  }

  @Test
  void aPushOfDeniedRefsOnlyIsRefusedInGitsOwnReportWithoutReadingItsPack() throws Exception {
    try (Repository client = clientWithNewMain()) {
      RevCommit next = client.parseCommit(client.resolve("refs/heads/main"));
      PushResult r = push(client, false, "refs/heads/main:refs/heads/main");

      assertThat(r.getRemoteUpdate("refs/heads/main").getStatus())
          .isEqualTo(RemoteRefUpdate.Status.REJECTED_OTHER_REASON);
      assertThat(r.getRemoteUpdate("refs/heads/main").getMessage())
          .isEqualTo("Control Center policy: push to main is denied");
      assertThat(idOf(upstream, "refs/heads/main")).isEqualTo(base);
      AuditEntry a = audit.records.get(audit.records.size() - 1);
      assertThat(a.ref()).isEqualTo("refs/heads/main");
      assertThat(a.kind()).isEqualTo(Verdict.UPDATE_OR_FORCE);
      assertThat(a.decision()).isEqualTo("denied");
      assertThat(a.code()).isEqualTo("RULE_DENIED");
      try (Repository cache = new org.eclipse.jgit.internal.storage.file.FileRepository(
          dir.resolve("cache/acme/widget.git").toFile())) {
        assertThat(cache.getObjectDatabase().has(next)).as("the pack was not received").isFalse();
      }
      assertThat(access.leases).as("nothing is minted for a push the rules refuse").isEmpty();
    }
  }

  @Test
  void theEarlyRefusalNeverLooksAtThePackEvenAGarbledOne() throws Exception {
    String repo = "/git/github.com/acme/widget.git";
    assertThat(get(repo + "/info/refs?service=git-receive-pack", "Bearer " + CREDENTIAL)
        .statusCode()).isEqualTo(200);
    byte[] command = (base.name() + " " + "1".repeat(40)
        + " refs/heads/main\0report-status side-band-64k agent=git/2.39\n")
        .getBytes(StandardCharsets.US_ASCII);
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes(String.format("%04x", command.length + 4).getBytes(StandardCharsets.US_ASCII));
    body.writeBytes(command);
    body.writeBytes("0000PACK".getBytes(StandardCharsets.US_ASCII));
    body.writeBytes(new byte[] {0, 0, 0, 2, 0, 0, 0, 3});
    body.writeBytes("not a pack at all".repeat(1000).getBytes(StandardCharsets.US_ASCII));

    HttpResponse<String> r = post(repo + "/git-receive-pack", body.toByteArray());

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type"))
        .contains("application/x-git-receive-pack-result");
    // pkt-lines: four hex digits of length, the length counting themselves.
    String report = "000eunpack ok\n"
        + "0045ng refs/heads/main Control Center policy: push to main is denied\n" + "0000";
    assertThat(r.body()).isEqualTo(
        String.format("%04x", report.length() + 5) + "\u0001" + report + "0000");
    assertThat(idOf(upstream, "refs/heads/main")).isEqualTo(base);
  }

  @Test
  void aPushsAnswerIsSentAsIsEvenToAClientThatAcceptsGzip() throws Exception {
    // JGit buffers the answer and gzips one over 256 bytes before sending it, in series with
    // git's wait; git accepts gzip. Twelve deletes make a report of about 450 bytes.
    List<String> refs = java.util.stream.IntStream.rangeClosed(1, 12)
        .mapToObj(n -> String.format("refs/heads/answered-as-is-%02d", n)).toList();
    for (String r : refs) {
      TestRepos.setRef(upstream, r, base);
    }
    String repo = "/git/github.com/acme/widget.git";
    assertThat(get(repo + "/info/refs?service=git-receive-pack", "Bearer " + CREDENTIAL)
        .statusCode()).isEqualTo(200);
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    for (String r : refs) {
      String command = base.name() + " " + ObjectId.zeroId().name() + " " + r
          + (r.equals(refs.get(0)) ? "\0report-status side-band-64k agent=git/2.39" : "") + "\n";
      body.writeBytes(String.format("%04x", command.length() + 4)
          .getBytes(StandardCharsets.US_ASCII));
      body.writeBytes(command.getBytes(StandardCharsets.US_ASCII));
    }
    body.writeBytes("0000".getBytes(StandardCharsets.US_ASCII)); // deletes only: no pack

    HttpResponse<String> r = http.send(HttpRequest.newBuilder(
            server.getURI().resolve(repo + "/git-receive-pack"))
        .header("Authorization", "Bearer " + CREDENTIAL)
        .header("Content-Type", "application/x-git-receive-pack-request")
        .header("Accept-Encoding", "deflate, gzip")
        .timeout(Duration.ofSeconds(30))
        .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())).build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.ISO_8859_1));

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Encoding")).isEmpty();
    assertThat(r.body().length()).isGreaterThan(256);
    assertThat(r.body()).contains("unpack ok\n");
    for (String ref : refs) {
      assertThat(r.body()).contains("ok " + ref + "\n");
      assertThat(idOf(upstream, ref)).isNull();
    }
  }

  /**
   * Found by an outside review (attack3133): a command JGit refuses before the pre-receive hook
   * (here a create of a ref that exists; likewise "invalid old id sent") never reaches
   * PushHook, so it is refused in git's report but never audited; a push made only of such
   * commands mints a write token, opens a streamed copy upstream, and leaves no audit record.
   * docs/push-path.md, steps 6 and 7: the hook refuses what JGit itself refused, and every
   * decision is written.
   */
  @Test
  void aCommandJGitRefusesBeforeTheHookIsStillAudited() throws Exception {
    TestRepos.setRef(upstream, "refs/heads/keep", base);

    HttpResponse<String> r = rawPush(List.of("0".repeat(40) + " " + base.name()
        + " refs/heads/keep"), emptyPack());

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).contains("ng refs/heads/keep");
    assertThat(audit.records).as("the refusal of refs/heads/keep is audited")
        .anySatisfy(a -> {
          assertThat(a.ref()).isEqualTo("refs/heads/keep");
          assertThat(a.decision()).isEqualTo("denied");
        });
  }

  /**
   * attack3133, the other case JGit refuses before the hook: an update whose old id is not the
   * ref's. Audited with JGit's words; the token minted ahead is revoked unused and the copy
   * streamed upstream is broken off before its trailer: nothing moves.
   */
  @Test
  void anUpdateWithAStaleOldIdIsRefusedInGitsWordsAndAudited() throws Exception {
    TestRepos.setRef(upstream, "refs/heads/keep", base);
    String stale = "1".repeat(40);

    HttpResponse<String> r = rawPush(List.of(stale + " " + base.name() + " refs/heads/keep"),
        emptyPack());

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).contains("ng refs/heads/keep invalid old id sent");
    assertThat(audit.records).singleElement().satisfies(a -> {
      assertThat(a.ref()).isEqualTo("refs/heads/keep");
      assertThat(a.oldId()).isEqualTo(stale);
      assertThat(a.decision()).isEqualTo("denied");
      assertThat(a.code()).isEqualTo("INVALID_COMMAND");
      assertThat(a.reason()).isEqualTo("invalid old id sent");
      assertThat(a.outcome()).isEqualTo("not forwarded");
    });
    assertThat(idOf(upstream, "refs/heads/keep")).isEqualTo(base);
    assertThat(access.leases).allSatisfy(l -> assertThat(closesOf(l)).isEqualTo(1));
  }

  /**
   * attack3133: an allowed create and a stale update in one (non-atomic) push. Only the create
   * lands; both are audited.
   */
  @Test
  void aPushMixingAnAllowedCreateAndAStaleUpdateLandsOnlyTheCreateAndAuditsBoth()
      throws Exception {
    TestRepos.setRef(upstream, "refs/heads/keep", base);
    String stale = "1".repeat(40);

    HttpResponse<String> r = rawPush(List.of(
        "0".repeat(40) + " " + base.name() + " refs/heads/fresh",
        stale + " " + base.name() + " refs/heads/keep"), emptyPack());

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).contains("ok refs/heads/fresh")
        .contains("ng refs/heads/keep invalid old id sent");
    assertThat(idOf(upstream, "refs/heads/fresh")).isEqualTo(base);
    assertThat(idOf(upstream, "refs/heads/keep")).isEqualTo(base);
    assertThat(audit.records).extracting(AuditEntry::ref, AuditEntry::decision, AuditEntry::code)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("refs/heads/fresh", "allowed", null),
            org.assertj.core.groups.Tuple.tuple("refs/heads/keep", "denied", "INVALID_COMMAND"));
  }

  /**
   * attack3133: a client that dies mid-pack (the body ends inside the pack's one object). The
   * push hook never runs; the command is still audited as abandoned, and nothing lands upstream.
   */
  @Test
  void aPushWhosePackIsCutShortIsAuditedAndLandsNothing() throws Exception {
    // a blob of 5 bytes, zlib's header, then a stored deflate block whose 5 bytes never come
    byte[] cut = {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 1,
        0x35, 0x78, 0x01, 0x01, 0x05, 0x00, (byte) 0xfa, (byte) 0xff};

    HttpResponse<String> r = rawPush(List.of("0".repeat(40) + " " + base.name()
        + " refs/heads/cut"), cut);

    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(audit.records).singleElement().satisfies(a -> {
      assertThat(a.ref()).isEqualTo("refs/heads/cut");
      assertThat(a.decision()).isEqualTo("denied");
      assertThat(a.code()).isEqualTo("ABANDONED");
      assertThat(a.reason()).startsWith("the pack did not arrive whole (")
          .endsWith("); nothing was pushed");
      assertThat(a.outcome()).isEqualTo("not forwarded");
    });
    assertThat(idOf(upstream, "refs/heads/cut")).isNull();
    assertThat(access.leases).allSatisfy(l -> assertThat(closesOf(l)).isEqualTo(1));
  }

  /** A receive-pack POST of {@code commands} (report-status asked on the first) and {@code pack}. */
  private HttpResponse<String> rawPush(List<String> commands, byte[] pack) throws Exception {
    String repo = "/git/github.com/acme/widget.git";
    assertThat(get(repo + "/info/refs?service=git-receive-pack", "Bearer " + CREDENTIAL)
        .statusCode()).isEqualTo(200);
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    for (int n = 0; n < commands.size(); n++) {
      byte[] line = (commands.get(n) + (n == 0 ? "\0report-status" : "") + "\n")
          .getBytes(StandardCharsets.US_ASCII);
      body.writeBytes(String.format("%04x", line.length + 4).getBytes(StandardCharsets.US_ASCII));
      body.writeBytes(line);
    }
    body.writeBytes("0000".getBytes(StandardCharsets.US_ASCII));
    body.writeBytes(pack);
    return post(repo + "/git-receive-pack", body.toByteArray());
  }

  private static byte[] emptyPack() throws Exception {
    byte[] header = {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 0};
    ByteArrayOutputStream pack = new ByteArrayOutputStream();
    pack.writeBytes(header);
    pack.writeBytes(java.security.MessageDigest.getInstance("SHA-1").digest(header));
    return pack.toByteArray();
  }

  /** Found by GatewayFuzzTest: JGit let a non-ASCII object id through as an internal error. */
  @Test
  void aCommandWithANonAsciiObjectIdIs400AndMovesNothing() throws Exception {
    String repo = "/git/github.com/acme/widget.git";
    assertThat(get(repo + "/info/refs?service=git-receive-pack", "Bearer " + CREDENTIAL)
        .statusCode()).isEqualTo(200);
    String id = "0".repeat(39) + "\u00e9";
    byte[] command = (id + " " + "0".repeat(40) + " refs/heads/main\0report-status\n")
        .getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes(String.format("%04x", command.length + 4).getBytes(StandardCharsets.US_ASCII));
    body.writeBytes(command);
    body.writeBytes("0000".getBytes(StandardCharsets.US_ASCII));

    HttpResponse<String> r = post(repo + "/git-receive-pack", body.toByteArray());

    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body())
        .isEqualTo("malformed push request: an object id is not 40 hexadecimal digits\n");
    assertThat(idOf(upstream, "refs/heads/main")).isEqualTo(base);
  }

  /**
   * Found by GatewayFuzzTest, not fixed yet: JGit's PackParser allocates an array as long as the
   * object count the pack header declares before it reads a single object. This 134-byte push asks
   * for 8 GB and gets an OutOfMemoryError; 0x0c000000 objects take ~800 MB of the appliance's 1 GB
   * heap, held as long as the client keeps the request open.
   */

  @Test
  void aPackDeclaringMoreObjectsThanAPushCanHoldIsRefusedBeforeItIsRead() throws Exception {
    HttpResponse<String> r = rawPush(List.of("0".repeat(40) + " " + base.name()
        + " refs/heads/feature"),
        new byte[] {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff});

    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).startsWith("malformed push request: ").doesNotContain("OutOfMemoryError");
    assertThat(idOf(upstream, "refs/heads/feature")).isNull();
  }

  /**
   * Past the gateway's limit of requests at once, an advertisement is 429 with the reason as text
   * (git prints it after {@code remote:}), and a push's pack is refused per ref in git's own
   * report, audited as {@code GATEWAY_BUSY}; nothing goes upstream, and once the request holding
   * the gateway ends, it admits again.
   */
  @Test
  void pastTheGatewaysLimitAnAdvertisementIs429AndAPushIsRefusedPerRefAndAudited()
      throws Exception {
    Server one = serve(Duration.ofSeconds(30), GatewayConfig.DEFAULT_WRITE_TOKENS_PER_MINUTE,
        new AdmissionLimits(1, 64, Duration.ofSeconds(20)));
    String shed = "Control Center policy: the gateway is working on its limit of 1 git requests"
        + " at once; nothing was done, retry in a few seconds";
    try {
      String repo = "/git/github.com/acme/widget.git";
      URI gatewayUri = one.getURI();
      String infoRefs = repo + "/info/refs?service=git-receive-pack";
      assertThat(get(gatewayUri, infoRefs).statusCode()).isEqualTo(200);
      // given back just after the answer, once the request's thread leaves the gateway: the
      // stalled push below must find the one place free, or it is shed before its pack
      Wait.until(Duration.ofSeconds(30), "the advertisement's admission to be given back",
          () -> gateway.admittedRequests() == 0);
      byte[] stalled = ("0".repeat(40) + " " + base.name()
          + " refs/heads/stalled\0report-status\n").getBytes(StandardCharsets.US_ASCII);
      try (java.net.Socket holding = new java.net.Socket("127.0.0.1", gatewayUri.getPort())) {
        // Admitted once its commands are read; then it holds the gateway's one place while JGit
        // waits for the rest of its pack.
        String head = "POST " + repo + "/git-receive-pack HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Authorization: Bearer " + CREDENTIAL + "\r\n"
            + "Content-Type: application/x-git-receive-pack-request\r\n"
            + "Content-Length: 100000\r\n\r\n";
        holding.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
        holding.getOutputStream().write((String.format("%04x", stalled.length + 4)
            + new String(stalled, StandardCharsets.US_ASCII) + "0000PACK\0\0\0\2\0\0\0\1")
            .getBytes(StandardCharsets.ISO_8859_1));
        holding.getOutputStream().flush();
        // Probed only once the push holds the place (it mints its write token ahead): a probe
        // before could hold it as the push arrives, and the push be shed instead.
        Wait.until(Duration.ofSeconds(30), "the stalled push to be admitted",
            () -> mints.size() == 1);
        HttpResponse<String> refused = Wait.forValue(Duration.ofSeconds(30),
            "the stalled push to hold the gateway's one place", () -> get(gatewayUri, infoRefs),
            r -> r.statusCode() == 429);
        assertThat(refused.body()).isEqualTo(shed + "\n");
        assertThat(refused.headers().firstValue("Retry-After")).contains("1");

        byte[] command = ("0".repeat(40) + " " + base.name()
            + " refs/heads/shed\0report-status agent=git/2.39\n")
            .getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(String.format("%04x", command.length + 4)
            .getBytes(StandardCharsets.US_ASCII));
        body.writeBytes(command);
        body.writeBytes("0000PACK\0\0\0\2\0\0\0\0".getBytes(StandardCharsets.ISO_8859_1));
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(gatewayUri.resolve(repo
            + "/git-receive-pack")).header("Authorization", "Bearer " + CREDENTIAL)
            .header("Content-Type", "application/x-git-receive-pack-request")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())).build(),
            HttpResponse.BodyHandlers.ofString());

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("ng refs/heads/shed " + shed + "\n");
        assertThat(audit.records).filteredOn(a -> "refs/heads/shed".equals(a.ref()))
            .singleElement().satisfies(a -> {
              assertThat(a.decision()).isEqualTo("denied");
              assertThat(a.code()).isEqualTo("GATEWAY_BUSY");
            });
      }
      Wait.until(Duration.ofSeconds(30), "the gateway to admit again once the stalled push ended",
          () -> get(gatewayUri, infoRefs).statusCode() == 200);
      assertThat(idOf(upstream, "refs/heads/shed")).isNull();
    } finally {
      one.stop();
    }
  }

  /**
   * Runs that fill the limit with pushes whose packs drip cannot shut out a run that holds no
   * admission: it takes one of the reserve, while a further request of a crowding run is shed.
   */
  @Test
  void aRunHoldingNoAdmissionIsServedFromTheReserveWhileOtherRunsHoldTheLimit() throws Exception {
    Server two = serve(Duration.ofSeconds(30), GatewayConfig.DEFAULT_WRITE_TOKENS_PER_MINUTE,
        new AdmissionLimits(2, 64, Duration.ofSeconds(20)));
    String infoRefs = "/git/github.com/acme/widget.git/info/refs?service=git-receive-pack";
    URI gatewayUri = two.getURI();
    // Each push, once admitted, mints its write token ahead: the event that it holds its place.
    try (java.net.Socket a = drippedPush(gatewayUri, CREDENTIAL, "refs/heads/drip-a")) {
      Wait.until(Duration.ofSeconds(30), "run A's dripped push to be admitted",
          () -> mints.size() == 1);
      try (java.net.Socket b = drippedPush(gatewayUri, FLOOD_CREDENTIAL, "refs/heads/drip-b")) {
        Wait.until(Duration.ofSeconds(30), "run B's dripped push to be admitted",
            () -> mints.size() == 2);
        assertThat(get(gatewayUri, infoRefs).statusCode()).as("the limit is full for run A")
            .isEqualTo(429);

        assertThat(get(gatewayUri, infoRefs, "Bearer " + OTHER_CREDENTIAL).statusCode())
            .as("a run holding no admission").isEqualTo(200);
        HttpResponse<String> shed = get(gatewayUri, infoRefs, "Bearer " + FLOOD_CREDENTIAL);
        assertThat(shed.statusCode()).as("a run already holding one").isEqualTo(429);
        assertThat(shed.body()).contains("its limit of 2 git requests at once");
      }
    } finally {
      two.stop();
    }
  }

  /**
   * A fetch shed by the gateway's limit is told why in git's own error channel, {@code 200} and an
   * {@code ERR} packet line, which git prints as {@code fatal: remote error: ...}: for a {@code
   * 429} to a POST (a protocol v2 ref listing, a negotiation) git printed only {@code RPC failed;
   * HTTP 429}. Each shed request is counted by door.
   */
  @Test
  void aShedFetchIsToldWhyInGitsErrorChannelAndCounted() throws Exception {
    Server one = serve(Duration.ofSeconds(30), GatewayConfig.DEFAULT_WRITE_TOKENS_PER_MINUTE,
        new AdmissionLimits(1, 64, Duration.ofSeconds(20)));
    String why = "ERR Control Center policy: the gateway is working on its limit of 1 git"
        + " requests at once; nothing was done, retry in a few seconds\n";
    String repo = "/git/github.com/acme/widget.git";
    URI gatewayUri = one.getURI();
    try (java.net.Socket a = drippedPush(gatewayUri, CREDENTIAL, "refs/heads/drip-a")) {
      Wait.until(Duration.ofSeconds(30), "the dripped push to be admitted",
          () -> mints.size() == 1);

      HttpResponse<String> advertisement =
          get(gatewayUri, repo + "/info/refs?service=git-upload-pack");
      HttpResponse<String> negotiation = http.send(HttpRequest.newBuilder(gatewayUri.resolve(
          repo + "/git-upload-pack")).header("Authorization", "Bearer " + CREDENTIAL)
          .header("Content-Type", "application/x-git-upload-pack-request")
          .header("Git-Protocol", "version=2")
          .POST(HttpRequest.BodyPublishers.ofString("0014command=ls-refs\n0000")).build(),
          HttpResponse.BodyHandlers.ofString());

      assertThat(advertisement.statusCode()).isEqualTo(200);
      assertThat(advertisement.headers().firstValue("Content-Type"))
          .contains("application/x-git-upload-pack-advertisement");
      assertThat(advertisement.body())
          .isEqualTo("001e# service=git-upload-pack\n0000" + pktLine(why));
      assertThat(negotiation.statusCode()).isEqualTo(200);
      assertThat(negotiation.headers().firstValue("Content-Type"))
          .contains("application/x-git-upload-pack-result");
      assertThat(negotiation.body()).isEqualTo(pktLine(why));
      assertThat(get(gatewayUri, repo + "/info/refs?service=git-receive-pack").statusCode())
          .isEqualTo(429);
      assertThat(sheds).containsExactly("fetch/gateway", "fetch/gateway", "push/gateway");
    } finally {
      one.stop();
    }
  }

  /** A fetch past its run's share is told why the same way, not with a bare 429. */
  @Test
  void aFetchPastItsRunsShareIsToldWhyInGitsErrorChannel() throws Exception {
    requestsPerRun = 1;
    Server one = serve(Duration.ofSeconds(30));
    String repo = "/git/github.com/acme/widget.git";
    try (java.net.Socket a = drippedPush(one.getURI(), CREDENTIAL, "refs/heads/drip-a")) {
      Wait.until(Duration.ofSeconds(30), "the dripped push to be admitted",
          () -> mints.size() == 1);

      HttpResponse<String> advertisement =
          get(one.getURI(), repo + "/info/refs?service=git-upload-pack");

      assertThat(advertisement.statusCode()).isEqualTo(200);
      assertThat(advertisement.body()).isEqualTo("001e# service=git-upload-pack\n0000"
          + pktLine("ERR Control Center policy: this run already has 1 git requests in flight;"
              + " nothing was done, wait for those to finish and retry\n"));
      assertThat(get(one.getURI(), repo + "/info/refs?service=git-receive-pack").statusCode())
          .isEqualTo(429);
    } finally {
      one.stop();
    }
  }

  private static String pktLine(String payload) {
    return String.format("%04x", payload.getBytes(StandardCharsets.UTF_8).length + 4) + payload;
  }

  /**
   * A streamed push whose upstream dies mid-pack gives its admission back once it is answered:
   * with a limit of one, the same run is admitted again at once.
   */
  @Test
  void aStreamedPushWhoseUpstreamDiesGivesItsAdmissionBack() throws Exception {
    Server one = serve(Duration.ofSeconds(30), GatewayConfig.DEFAULT_WRITE_TOKENS_PER_MINUTE,
        new AdmissionLimits(1, 64, Duration.ofSeconds(20)));
    try (Repository client = clientWithNewMain()) {
      RevCommit big = bigCommit(client, Map.of());
      upstreamServer.receivePackDiesAfter = 256 << 10;
      upstreamServer.requests.clear();

      PushResult r = push(one.getURI(), CREDENTIAL, client, false, big.name() + ":refs/heads/big");

      assertThat(r.getRemoteUpdate("refs/heads/big").getStatus())
          .isEqualTo(RemoteRefUpdate.Status.REJECTED_OTHER_REASON);
      assertThat(upstreamServer.requests)
          .contains(new HttpUpstream.Seen("POST /widget.git/git-receive-pack", true));
      assertThat(idOf(upstream, "refs/heads/big")).isNull();
      // given back just after the answer, once the request's thread leaves the gateway
      Wait.until(Duration.ofSeconds(30), "the push's admission to be given back",
          () -> gateway.admittedRequests() == 0);
      assertThat(get(one.getURI(), "/git/github.com/acme/widget.git/info/refs?service="
          + "git-receive-pack").statusCode()).isEqualTo(200);
      assertThat(sheds).isEmpty();
    } finally {
      upstreamServer.receivePackDiesAfter = -1;
      one.stop();
    }
  }

  /**
   * A receive-pack POST, chunked, whose command list and pack header arrive and whose pack then
   * stops (a stored deflate block begun): admitted once its commands are read, it holds its place.
   */
  private java.net.Socket drippedPush(URI server, String credential, String ref)
      throws java.io.IOException {
    java.net.Socket socket = new java.net.Socket("127.0.0.1", server.getPort());
    byte[] command = ("0".repeat(40) + " " + base.name() + " " + ref + "\0report-status\n")
        .getBytes(StandardCharsets.US_ASCII);
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes(String.format("%04x", command.length + 4).getBytes(StandardCharsets.US_ASCII));
    body.writeBytes(command);
    body.writeBytes("0000PACK\0\0\0\2\0\0\0\1".getBytes(StandardCharsets.ISO_8859_1));
    // a blob of 5 bytes, zlib's header, then a stored deflate block of 5 bytes that never come
    body.writeBytes(new byte[] {0x35, 0x78, 0x01, 0x01, 0x05, 0x00, (byte) 0xfa, (byte) 0xff});
    byte[] data = body.toByteArray();
    String head = "POST /git/github.com/acme/widget.git/git-receive-pack HTTP/1.1\r\n"
        + "Host: 127.0.0.1\r\nAuthorization: Bearer " + credential + "\r\n"
        + "Content-Type: application/x-git-receive-pack-request\r\n"
        + "Transfer-Encoding: chunked\r\n\r\n";
    socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().write((Integer.toHexString(data.length) + "\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().write(data);
    socket.getOutputStream().write("\r\n".getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().flush();
    return socket;
  }

  private HttpResponse<String> get(URI server, String path) throws Exception {
    return get(server, path, "Bearer " + CREDENTIAL);
  }

  private HttpResponse<String> get(URI server, String path, String authorization)
      throws Exception {
    return http.send(HttpRequest.newBuilder(server.resolve(path))
        .header("Authorization", authorization).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Each read of the body is bounded by the client timeout: in the commands, and in the pack. */
  @Test
  void aPushWhoseClientStopsSendingIsEndedByTheClientTimeout() throws Exception {
    Server quick = serve(Duration.ofSeconds(1));
    try {
      String repo = "/git/github.com/acme/widget.git";
      assertThat(get(repo + "/info/refs?service=git-receive-pack", "Bearer " + CREDENTIAL)
          .statusCode()).isEqualTo(200);
      byte[] command = ("0".repeat(40) + " " + base.name() + " refs/heads/stalled\0report-status\n")
          .getBytes(StandardCharsets.US_ASCII);
      byte[] body = (String.format("%04x", command.length + 4) + new String(command,
          StandardCharsets.US_ASCII) + "0000PACK\0\0\0\2\0\0\0\1").getBytes(StandardCharsets.ISO_8859_1);
      for (int sent : List.of(20, body.length)) {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", quick.getURI().getPort())) {
          socket.setSoTimeout(30_000);
          String head = "POST " + repo + "/git-receive-pack HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              + "Connection: close\r\nAuthorization: Bearer " + CREDENTIAL + "\r\n"
              + "Content-Type: application/x-git-receive-pack-request\r\n"
              + "Content-Length: " + (body.length + 100) + "\r\n\r\n";
          socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
          socket.getOutputStream().write(body, 0, sent);
          socket.getOutputStream().flush();
          String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

          assertThat(answer).as("after %d bytes", sent).startsWith("HTTP/1.1 408 ")
              .contains("the push request timed out (the client sent nothing for 1 s);"
                  + " nothing was pushed");
        }
      }
      assertThat(idOf(upstream, "refs/heads/stalled")).isNull();
      // attack3133: the command list was read (the second time), so the command is audited.
      assertThat(audit.records).singleElement().satisfies(a -> {
        assertThat(a.ref()).isEqualTo("refs/heads/stalled");
        assertThat(a.code()).isEqualTo("ABANDONED");
        assertThat(a.reason()).isEqualTo("the push request timed out (the client sent nothing"
            + " for 1 s); nothing was pushed");
      });
    } finally {
      quick.stop();
    }
  }

  private HttpResponse<String> post(String path, byte[] body) throws Exception {
    return http.send(HttpRequest.newBuilder(server.getURI().resolve(path))
        .header("Authorization", "Bearer " + CREDENTIAL)
        .header("Content-Type", "application/x-git-receive-pack-request")
        .timeout(Duration.ofSeconds(30))
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** {@code service}'s advertisement of {@code repo} is served and shows upstream's main. */
  private void assertAdvertisesUpstreamsMain(String repo, String service) throws Exception {
    HttpResponse<String> r = get(repo + "/info/refs?service=" + service, "Bearer " + CREDENTIAL);

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type"))
        .contains("application/x-" + service + "-advertisement");
    assertThat(r.body()).contains(base.name() + " refs/heads/main");
  }

  private HttpResponse<String> get(String pathAndQuery, String authorization) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(server.getURI().resolve(pathAndQuery))
        .timeout(Duration.ofSeconds(30)).GET();
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
