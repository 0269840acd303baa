package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.Cli;
import dev.pushgate.testkit.ControlClient;
import dev.pushgate.testkit.GitRun;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad input changes nothing and gets a clear answer: a corpus of hostile pushes and run requests
 * against one appliance (started with {@code --max-pack-size 1m}). After every case upstream is
 * what it was, {@code /healthz} answers 200 and the log holds no internal error; beside the corpus
 * a normal push still lands. The cases share one run and pass in any order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostileInputTest {
  private static final String RECEIVE_PACK = "/git/github.com/acme/widget.git/git-receive-pack";
  private static final String INFO_REFS =
      "/git/github.com/acme/widget.git/info/refs?service=git-receive-pack";
  private static final String MALFORMED = "malformed push request: ";
  private static final String UNPACK = MALFORMED + "Exception while parsing pack stream: ";
  private static final String BAD_COMMAND =
      MALFORMED + "a command is not '<old-id> <new-id> <ref>' with a valid ref name\n";
  private static final String DOT_SEGMENTS = "Bad request: git paths take no dot segments ('.'"
      + " or '..'), which the server would resolve before routing; write the path as git sends"
      + " it\n";
  private static final String NOT_A_REPOSITORY =
      "Not a repository of the gateway: expected /git/github.com/<owner>/<repo>.git\n";
  private static final ObjectId ZERO = ObjectId.zeroId();

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving("--max-pack-size", "1m")
      .withRepos("acme/widget");

  private JsonNode run;
  private String credential;
  private ObjectId main;
  /** What acme/widget must hold after the case: what it held before, and what the case adds. */
  private Map<String, ObjectId> upstream;

  @BeforeAll
  void start() throws Exception {
    run = app.get().createRun(RunJson.chatMainDenied("ws-hostile", "acme/widget"));
    credential = ForgeRefs.credential(run);
    main = ForgeRefs.of(app.get(), "acme/widget").get("refs/heads/main");
    // The cache is synced by an advertisement; every raw push below comes after one.
    assertThat(Wire.get(app.get(), INFO_REFS, credential).status()).isEqualTo(200);
  }

  @BeforeEach
  void recordUpstream() throws Exception {
    upstream = ForgeRefs.of(app.get(), "acme/widget");
  }

  @AfterEach
  void upstreamIsUnchangedAndTheApplianceStillServes() throws Exception {
    assertThat(ForgeRefs.of(app.get(), "acme/widget")).isEqualTo(upstream);
    assertThat(app.get().healthz()).isEqualTo(200);
    // Hostile input is never an internal error: nothing was logged at ERROR, no stack trace.
    assertThat(app.get().logText()).doesNotContain(" ERROR ").doesNotContain("\tat ");
  }

  /** A clone of acme/widget with the run's environment, in a directory of the case's own. */
  private GitRun clone(Path work) throws Exception {
    GitRun git = new GitRun(Files.createDirectories(app.dir().resolve("home")),
        ForgeRefs.env(run));
    git.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git",
        work.getFileName().toString()).ok();
    return git;
  }

  // --- pkt-lines ---

  @Test
  void malformedPktLinesAreRefusedWithWhatWasWrong() throws Exception {
    String command = RawPush.command(ZERO, main, "refs/heads/pkt") + "\0report-status\n";
    byte[] shortLength = (String.format("%04x", command.length() + 4 - 10) + command)
        .getBytes(StandardCharsets.US_ASCII);
    Map<String, byte[]> cases = new LinkedHashMap<>();
    cases.put("not a pkt-line", ascii("this is not a pkt-line"));
    cases.put("a length that is not hex", ascii("00zzsomething"));
    cases.put("a length below the header's own", ascii("0003"));
    cases.put("a length shorter than its line", shortLength);
    cases.put("a delimiter where a command belongs", ascii("0001"));
    cases.put("a pkt-line of the largest size holding no command",
        concat(ascii("fff0"), repeat('a', 0xfff0 - 4), ascii("0000")));
    cases.put("ids that are not ids",
        PackBytes.request("abc def refs/heads/pkt", RawPush.emptyPack()));
    cases.put("ids of 41 hex digits", PackBytes.request(
        ZERO.name() + "0 " + main.name() + "0 refs/heads/pkt", RawPush.emptyPack()));
    cases.put("ids that are not ASCII", PackBytes.request("\u00e9".repeat(40) + " "
        + main.name() + " refs/heads/pkt", RawPush.emptyPack()));
    Map<String, String> expected = new LinkedHashMap<>();
    expected.put("not a pkt-line", MALFORMED + "Invalid packet line header: this\n");
    expected.put("a length that is not hex", MALFORMED + "Invalid packet line header: 00zz\n");
    expected.put("a length below the header's own",
        MALFORMED + "Invalid packet line header: 0003\n");
    expected.put("a length shorter than its line",
        MALFORMED + "Invalid packet line header: " + command.substring(command.length() - 10,
            command.length() - 6) + "\n");
    expected.put("a delimiter where a command belongs", BAD_COMMAND);
    expected.put("a pkt-line of the largest size holding no command", BAD_COMMAND);
    expected.put("ids that are not ids", BAD_COMMAND);
    expected.put("ids of 41 hex digits", BAD_COMMAND);
    expected.put("ids that are not ASCII",
        MALFORMED + "an object id is not 40 hexadecimal digits\n");
    for (var c : cases.entrySet()) {
      Wire.Answer a = Wire.post(app.get(), RECEIVE_PACK, credential, c.getValue());
      assertThat(a.status()).as(c.getKey()).isEqualTo(400);
      assertThat(a.body()).as(c.getKey()).isEqualTo(expected.get(c.getKey()));
    }
  }

  @Test
  void aBodyEndingInsideAPktLineIsRefused() throws Exception {
    for (byte[] body : List.of(ascii("ffffabc"), ascii("00300000000 abc"))) {
      Wire.Answer a = Wire.post(app.get(), RECEIVE_PACK, credential, body);
      assertThat(a.status()).isEqualTo(400);
      assertThat(a.body()).startsWith(MALFORMED);
    }
  }

  // --- packs ---

  @Test
  void brokenPacksAreRefusedWithWhatWasWrong() throws Exception {
    byte[] blob = ascii("hello\n");
    byte[] badChecksum = PackBytes.pack(PackBytes.object(Constants.OBJ_BLOB, blob));
    badChecksum[badChecksum.length - 1] ^= (byte) 0xff;
    Map<String, byte[]> packs = new LinkedHashMap<>();
    Map<String, String> expected = new LinkedHashMap<>();
    packs.put("truncated", RawPush.truncatedPack());
    expected.put("truncated", UNPACK + "Packfile is truncated.\n");
    packs.put("bad checksum", badChecksum);
    expected.put("bad checksum", UNPACK + "Packfile checksum incorrect.\n");
    packs.put("bad zlib", PackBytes.pack(new PackBytes.Entry(Constants.OBJ_BLOB, 6,
        ascii("\u0078\u009cGARBAGEGARBAGE"))));
    expected.put("bad zlib", UNPACK + "Packfile corruption detected: invalid block type\n");
    packs.put("a size that is not the object's", PackBytes.pack(
        new PackBytes.Entry(Constants.OBJ_BLOB, 100, PackBytes.deflate(blob))));
    expected.put("a size that is not the object's",
        UNPACK + "Packfile corruption detected: wrong decompressed length\n");
    packs.put("four billion objects announced", PackBytes.header(0xffffffffL));
    expected.put("four billion objects announced", MALFORMED
        + "the pack declares 4294967295 objects, more than a push may hold (104857)\n");
    for (var p : packs.entrySet()) {
      Wire.Answer a = Wire.post(app.get(), RECEIVE_PACK, credential, PackBytes.request(
          RawPush.command(ZERO, main, "refs/heads/broken"), p.getValue()));
      assertThat(a.status()).as(p.getKey()).isEqualTo(400);
      assertThat(a.body()).as(p.getKey()).isEqualTo(expected.get(p.getKey()));
    }
  }

  @Test
  void packBombsAreRefusedWithoutExhaustingTheAppliance() throws Exception {
    byte[] commit = PackBytes.commit(ObjectId.fromString("ab".repeat(20)), main, "bomb");
    Map<String, PackBytes.Entry> bombs = new LinkedHashMap<>();
    Map<String, String> expected = new LinkedHashMap<>();
    bombs.put("a blob of one TiB", new PackBytes.Entry(Constants.OBJ_BLOB, 1L << 40,
        PackBytes.deflate(commit)));
    expected.put("a blob of one TiB", UNPACK + "Object too large (1,099,511,627,776 bytes),"
        + " rejecting the pack. Max object size limit is 104,857,600 bytes.\n");
    bombs.put("a commit of 2 GiB", new PackBytes.Entry(Constants.OBJ_COMMIT, (1L << 31) - 1,
        PackBytes.deflate(commit)));
    expected.put("a commit of 2 GiB", UNPACK + "Object too large (2,147,483,647 bytes),"
        + " rejecting the pack. Max object size limit is 104,857,600 bytes.\n");
    bombs.put("a commit of 2 GB", new PackBytes.Entry(Constants.OBJ_COMMIT, 2_000_000_000L,
        PackBytes.deflate(commit)));
    expected.put("a commit of 2 GB", UNPACK + "Object too large (2,000,000,000 bytes),"
        + " rejecting the pack. Max object size limit is 104,857,600 bytes.\n");
    bombs.put("a tree of 400 MB", new PackBytes.Entry(Constants.OBJ_TREE, 400_000_000L,
        PackBytes.deflate(commit)));
    expected.put("a tree of 400 MB", UNPACK + "Object too large (400,000,000 bytes),"
        + " rejecting the pack. Max object size limit is 104,857,600 bytes.\n");
    for (var b : bombs.entrySet()) {
      Wire.Answer a = Wire.post(app.get(), RECEIVE_PACK, credential, PackBytes.request(
          RawPush.command(ZERO, main, "refs/heads/bomb"), PackBytes.pack(b.getValue())));
      assertThat(a.status()).as(b.getKey()).isEqualTo(400);
      assertThat(a.body()).as(b.getKey()).isEqualTo(expected.get(b.getKey()));
      assertThat(app.get().healthz()).as(b.getKey()).isEqualTo(200);
    }

    // A real zlib bomb: 96 MiB of zeros in ~100 KiB, under both limits. It is inflated (to name
    // it) as a stream, then judged like any push; the appliance runs with -Xmx512m.
    long size = 96L << 20;
    byte[] zeros = PackBytes.deflatedZeros(size);
    assertThat(zeros.length).isLessThan(1 << 20);
    ObjectId blobId = zeroBlobId(size);
    byte[] tree = PackBytes.tree("zeros.bin", blobId);
    ObjectId treeId = PackBytes.id(Constants.OBJ_TREE, tree);
    byte[] bombCommit = PackBytes.commit(treeId, main, "zlib bomb");
    ObjectId commitId = PackBytes.id(Constants.OBJ_COMMIT, bombCommit);
    byte[] pack = PackBytes.pack(new PackBytes.Entry(Constants.OBJ_BLOB, size, zeros),
        PackBytes.object(Constants.OBJ_TREE, tree),
        PackBytes.object(Constants.OBJ_COMMIT, bombCommit));
    Wire.Answer a = Wire.post(app.get(), RECEIVE_PACK, credential,
        PackBytes.request(RawPush.command(main, commitId, "refs/heads/main"), pack));
    assertThat(a.status()).isEqualTo(200);
    assertThat(a.body())
        .contains("ng refs/heads/main Control Center policy: push to main is denied");
  }

  @Test
  void objectsReferencingMissingObjectsAreRefused() throws Exception {
    ObjectId absentTree = ObjectId.fromString("ab".repeat(20));
    byte[] orphan = PackBytes.commit(absentTree, main, "my tree is absent");
    Wire.Answer noTree = Wire.post(app.get(), RECEIVE_PACK, credential, PackBytes.request(
        RawPush.command(ZERO, PackBytes.id(Constants.OBJ_COMMIT, orphan), "refs/heads/orphan"),
        PackBytes.pack(PackBytes.object(Constants.OBJ_COMMIT, orphan))));
    assertThat(noTree.status()).isEqualTo(400);
    assertThat(noTree.body()).isEqualTo(RawPush.ABSENT_OBJECTS);

    ObjectId absentBlob = ObjectId.fromString("cd".repeat(20));
    byte[] tree = PackBytes.tree("gone.txt", absentBlob);
    byte[] commit = PackBytes.commit(PackBytes.id(Constants.OBJ_TREE, tree), main, "blob absent");
    Wire.Answer noBlob = Wire.post(app.get(), RECEIVE_PACK, credential, PackBytes.request(
        RawPush.command(ZERO, PackBytes.id(Constants.OBJ_COMMIT, commit), "refs/heads/orphan"),
        PackBytes.pack(PackBytes.object(Constants.OBJ_TREE, tree),
            PackBytes.object(Constants.OBJ_COMMIT, commit))));
    assertThat(noBlob.status()).isEqualTo(400);
    assertThat(noBlob.body()).isEqualTo(RawPush.ABSENT_OBJECTS);

    ObjectId unknown = ObjectId.fromString("1234567890".repeat(4));
    Wire.Answer nothing = Wire.post(app.get(), RECEIVE_PACK, credential, PackBytes.request(
        RawPush.command(ZERO, unknown, "refs/heads/orphan"), RawPush.emptyPack()));
    assertThat(nothing.status()).isEqualTo(400);
    assertThat(nothing.body()).isEqualTo(RawPush.ABSENT_OBJECTS);
  }

  // --- ref names ---

  @Test
  void invalidAndHostileRefNamesAreRefused() throws Exception {
    List<String> names = List.of("refs/heads/../x", "HEAD", "refs/heads/main.lock",
        "refs/heads/a\u0001b", "refs/heads/tab\there", "refs/heads/del\u007f", "refs/heads/a b",
        "foo", "refs/heads/a..b", "refs/heads/.hidden", "refs/heads/a//b", "refs/heads/@{1}",
        "refs/heads/a~1", "refs/heads/a^", "refs/heads/a:b", "refs/heads/a?b", "refs/heads/a*",
        "refs/heads/a[b", "refs/heads/a\\b", "refs/heads/x/", "refs/heads/x.", "refs/heads/",
        "/refs/heads/x", "refs/heads/x\r\nok refs/heads/y");
    for (String name : names) {
      Wire.Answer a = Wire.post(app.get(), RECEIVE_PACK, credential,
          PackBytes.request(RawPush.command(ZERO, main, name), RawPush.emptyPack()));
      assertThat(a.status()).as(name).isEqualTo(400);
      assertThat(a.body()).as(name).isEqualTo(BAD_COMMAND);
    }
    // JGit takes these; git does not ("funny refname"), and the directory x.lock/ would block
    // every later update of refs/heads/x, upstream and in the cache.
    for (String name : List.of("refs/heads/x.lock/y", "refs/tags/v1.lock/z")) {
      Wire.Answer a = Wire.post(app.get(), RECEIVE_PACK, credential,
          PackBytes.request(RawPush.command(ZERO, main, name), RawPush.emptyPack()));
      assertThat(a.status()).as(name).isEqualTo(200);
      assertThat(a.body()).as(name).contains("ng " + name + " funny refname")
          .doesNotContain("ok " + name);
      assertThat(Files.exists(app.get().forgeRepo("acme/widget").resolve(name))).as(name).isFalse();
    }
    Wire.Answer x = Wire.post(app.get(), RECEIVE_PACK, credential,
        PackBytes.request(RawPush.command(ZERO, main, "refs/heads/x"), RawPush.emptyPack()));
    assertThat(x.body()).contains("ok refs/heads/x");
    upstream.put("refs/heads/x", main);
  }

  @Test
  void unknownCapabilitiesAreIgnoredAsGitDoesAndNeverBypassTheRule() throws Exception {
    Wire.Answer denied = Wire.post(app.get(), RECEIVE_PACK, credential, PackBytes.request(
        RawPush.command(main, mainChild(), "refs/heads/main"),
        "report-status frobnicate=1 no-thin push-cert=bogus agent=it", childPack()));
    assertThat(denied.status()).isEqualTo(200);
    assertThat(denied.body())
        .contains("ng refs/heads/main Control Center policy: push to main is denied");

    Wire.Answer silent = Wire.post(app.get(), RECEIVE_PACK, credential, PackBytes.request(
        RawPush.command(main, mainChild(), "refs/heads/main"), "", childPack()));
    assertThat(silent.status()).isEqualTo(200);
    assertThat(silent.body()).as("no report-status was asked for").isEmpty();

    Wire.Answer allowed = Wire.post(app.get(), RECEIVE_PACK, credential, PackBytes.request(
        RawPush.command(ZERO, main, "refs/heads/odd-capabilities"),
        "report-status frobnicate=1 agent=it", RawPush.emptyPack()));
    assertThat(allowed.body()).contains("ok refs/heads/odd-capabilities");
    upstream.put("refs/heads/odd-capabilities", main);
  }

  // --- repository names ---

  @Test
  void pathTricksInRepositoryNamesReachNoRepository() throws Exception {
    List<String> before = cacheRepositories();
    Map<String, String> productAnswers = new LinkedHashMap<>();
    productAnswers.put("acme/../widget.git", DOT_SEGMENTS);
    productAnswers.put("acme/.git", NOT_A_REPOSITORY);
    productAnswers.put("acme/..git", NOT_A_REPOSITORY);
    productAnswers.put("..", DOT_SEGMENTS);
    productAnswers.put("acme", NOT_A_REPOSITORY);
    List<String> refusedByJetty = List.of("acme/%2e%2e/widget.git", "..%2f..%2fetc.git",
        "acme/wid%5cget.git", "acme%5cwidget.git", "acme/widget%00.git", "/etc/passwd.git",
        "%2fetc%2fpasswd.git", "acme//widget.git", "acme/widget.git%2f..", "acme/wid\\get.git",
        "acme/wid\u0000get.git", "acme/%252e%252e/widget.git");
    // Git paths are literal: a %-escape Jetty lets through is refused, not decoded and routed.
    List<String> notLiteral = List.of("acme/%2e%2e.git", "acme/widge%74.git");
    List<String> all = new ArrayList<>(productAnswers.keySet());
    all.addAll(refusedByJetty);
    all.addAll(notLiteral);
    byte[] push = PackBytes.request(RawPush.command(ZERO, main, "refs/heads/path-trick"),
        RawPush.emptyPack());
    for (String repo : all) {
      for (String suffix : List.of("/info/refs?service=git-receive-pack", "/git-receive-pack")) {
        String path = "/git/github.com/" + repo + suffix;
        Wire.Answer a = suffix.startsWith("/info")
            ? Wire.get(app.get(), path, credential) : Wire.post(app.get(), path, credential, push);
        assertThat(a.status()).as(path).isIn(400, 403, 404);
        assertThat(a.body()).as(path).doesNotContain("# service=git-receive-pack")
            .doesNotContain("ok refs/heads/path-trick");
        if (productAnswers.containsKey(repo)) {
          assertThat(a.status()).as(path).isEqualTo(
              productAnswers.get(repo).equals(DOT_SEGMENTS) ? 400 : 404);
          assertThat(a.body()).as(path).isEqualTo(productAnswers.get(repo));
        }
        if (notLiteral.contains(repo)) {
          assertThat(a.status()).as(path).isEqualTo(400);
          assertThat(a.body()).as(path).isEqualTo("Bad request: git paths take no"
              + " percent-encoding ('%'); write the path as git does\n");
        }
      }
    }
    // The gateway serves smart HTTP only: no dumb-protocol listing, no loose files.
    for (String path : List.of("/git/github.com/acme/widget.git/info/refs",
        "/git/github.com/acme/widget.git/info/refs?service=frobnicate")) {
      Wire.Answer a = Wire.get(app.get(), path, credential);
      assertThat(a.status()).as(path).isEqualTo(403);
      assertThat(a.body()).as(path).isEqualTo("The gateway serves git's smart HTTP protocol only"
          + " (git-upload-pack and git-receive-pack).\n");
    }
    for (String path : List.of("/git/github.com/acme/widget.git/HEAD",
        "/git/github.com/acme/widget.git/objects/info/packs",
        "/git/github.com/acme/widget.git/config", "/git/evil.example/acme/widget.git/info/refs")) {
      Wire.Answer a = Wire.get(app.get(), path, credential);
      assertThat(a.status()).as(path).isEqualTo(404);
      assertThat(a.body()).as(path).isEqualTo(NOT_A_REPOSITORY);
    }
    // Dot segments that would climb out of /git/ onto the forge are refused as written.
    for (String path : List.of(
        "/git/github.com/acme/widget.git/../../../../forge/acme/widget.git/info/refs"
            + "?service=git-receive-pack",
        "/git/github.com/acme/../../../forge/acme/widget.git/git-receive-pack")) {
      Wire.Answer a = path.endsWith("pack")
          ? Wire.post(app.get(), path, credential, push) : Wire.get(app.get(), path, credential);
      assertThat(a.status()).as(path).isEqualTo(400);
      assertThat(a.body()).as(path).isEqualTo(DOT_SEGMENTS);
    }
    assertThat(cacheRepositories()).isEqualTo(before);
  }

  // --- size and time ---

  @Test
  void aPushPastTheMaxPackSizeIsRefusedAndMovesNothing() throws Exception {
    byte[] random = new byte[2 << 20];
    new SecureRandom().nextBytes(random);
    Path work = app.dir().resolve("big");
    GitRun git = clone(work);
    Files.write(work.resolve("big.bin"), random);
    git.in(work, "add", "big.bin").ok();
    git.in(work, "commit", "-q", "-m", "two MiB that do not compress").ok();
    GitRun.Result r = git.in(work, "push", "origin", "HEAD:refs/heads/big").failed();
    // git prints the status only; the reason is in the body, which git does not show for a POST.
    assertThat(r.stderr()).contains("error: RPC failed; HTTP 400");

    ObjectId blob = PackBytes.id(Constants.OBJ_BLOB, random);
    Wire.Answer a = Wire.post(app.get(), RECEIVE_PACK, credential, PackBytes.request(
        RawPush.command(ZERO, blob, "refs/tags/big"),
        PackBytes.pack(PackBytes.object(Constants.OBJ_BLOB, random))));
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.body())
        .isEqualTo(UNPACK + "Pack exceeds the limit of 1,048,576 bytes, rejecting the pack\n");
  }

  /**
   * The gateway's client timeout is 2 minutes and has no option to shorten it, so this runs only
   * on demand: {@code mvn -pl it test -Dtest=HostileInputTest -Dpushgate.soak=true}.
   */
  @Test
  @EnabledIfSystemProperty(named = "pushgate.soak", matches = "true")
  void aStalledPushBodyIsEndedByTheClientTimeout() throws Exception {
    byte[] body = PackBytes.request(RawPush.command(ZERO, main, "refs/heads/stalled"),
        PackBytes.pack(PackBytes.object(Constants.OBJ_BLOB, ascii("x"))));
    // One stalls inside its command, one before its pack's checksum; both at once.
    var inCommand = java.util.concurrent.CompletableFuture.supplyAsync(() -> stall(body, 40));
    var inPack = java.util.concurrent.CompletableFuture.supplyAsync(
        () -> stall(body, body.length - 20));
    for (Wire.Answer a : List.of(inCommand.get(), inPack.get())) {
      assertThat(a.status()).isEqualTo(408);
      // What ended it names the client timeout of 2 minutes: the gateway's own read bound or
      // Jetty's idle timeout, whichever fired first. No clock is read here.
      assertThat(a.body()).matches("the push request timed out \\((the client sent nothing for"
          + " 120 s|Idle timeout expired: \\d+/120000 ms)\\); nothing was pushed\n");
    }
  }

  /** Sends the first {@code bytes} of {@code body}, then nothing; returns the answer. */
  private Wire.Answer stall(byte[] body, int bytes) {
    try (java.net.Socket s = new java.net.Socket("127.0.0.1", app.get().port())) {
      s.setSoTimeout(180_000);
      String head = "POST " + RECEIVE_PACK + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          + "Connection: close\r\nAuthorization: Bearer " + credential + "\r\nContent-Type: "
          + Wire.RECEIVE_PACK_REQUEST + "\r\nContent-Length: " + body.length + "\r\n\r\n";
      s.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().write(Arrays.copyOf(body, bytes));
      s.getOutputStream().flush();
      return Wire.parse(s.getInputStream().readAllBytes());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  // --- the control API ---

  @Test
  void badRunRequestsAreRefusedWithWhatWasWrongAndCreateNothing() throws Exception {
    Path socket = app.get().dataDir.resolve("control.sock");
    int runsBefore = app.get().control().get("/v1/runs").body().get("runs").size();
    int credentialsBefore = credentialRows();
    List<String> runDirsBefore = runDirs();
    String base = "{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\"";
    Map<String, byte[]> bodies = new LinkedHashMap<>();
    Map<String, String> errors = new LinkedHashMap<>();
    bodies.put("not JSON", ascii("{not json"));
    errors.put("not JSON", "malformed JSON at line 1, column 2: Unexpected character ('n'"
        + " (code 110)): was expecting double-quote to start field name");
    bodies.put("YAML", ascii("workspaceId: ws\nrepository: acme/widget\n"));
    errors.put("YAML", "malformed JSON at line 1, column 1: Unrecognized token 'workspaceId':"
        + " was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')");
    bodies.put("nothing", new byte[0]);
    errors.put("nothing", "the request body must be a JSON object");
    bodies.put("a list", ascii("[]"));
    errors.put("a list", "the request body must be a JSON object");
    bodies.put("two documents", ascii(base + "} {}"));
    errors.put("two documents", "malformed JSON at line 1, column 52: Trailing token (of type"
        + " START_OBJECT) found after value (bound as `com.fasterxml.jackson.databind.JsonNode`):"
        + " not allowed as per `DeserializationFeature.FAIL_ON_TRAILING_TOKENS`");
    bodies.put("nested 100,000 deep",
        ascii(base + ", \"rules\": " + "[".repeat(100_000) + "]".repeat(100_000) + "}"));
    errors.put("nested 100,000 deep", "malformed JSON: Document nesting depth (1001) exceeds"
        + " the maximum allowed (1000, from `StreamReadConstraints.getMaxNestingDepth()`)");
    bodies.put("a string of 900,000 characters",
        ascii(base + ", \"sessionId\": \"" + "x".repeat(900_000) + "\"}"));
    errors.put("a string of 900,000 characters",
        "'sessionId' must be at most 200 printable characters");
    bodies.put("a body over 1 MiB", ascii(base + ", \"sessionId\": \"" + "x".repeat(1_100_000)
        + "\"}"));
    errors.put("a body over 1 MiB", "the request body is larger than 1048576 bytes");
    bodies.put("bytes that are not UTF-8",
        concat(ascii("{\"workspaceId\": \""), new byte[] {(byte) 0xff, (byte) 0xfe},
            ascii("\", \"repository\": \"acme/widget\"}")));
    errors.put("bytes that are not UTF-8", "the request body is not valid UTF-8");
    bodies.put("a duplicated key", ascii(base + ", \"repository\": \"acme/other\"}"));
    errors.put("a duplicated key",
        "malformed JSON at line 1, column 64: Duplicate field 'repository'");
    bodies.put("a NUL in the repository", withRepository("acme/wid\\u0000get"));
    errors.put("a NUL in the repository", "'repository' must be at most 200 printable characters");
    bodies.put("a dot-dot repository", withRepository("acme/.."));
    errors.put("a dot-dot repository", "repository: not a valid repository name: ..");
    bodies.put("an absolute path", withRepository("/etc/passwd"));
    errors.put("an absolute path",
        "repository: not a repository (expected owner/name): /etc/passwd");
    bodies.put("a backslash", withRepository("acme\\\\widget"));
    errors.put("a backslash", "repository: not a repository (expected owner/name): acme\\widget");
    bodies.put("percent-encoded dots", withRepository("acme/%2e%2e"));
    errors.put("percent-encoded dots", "repository: not a valid repository name: %2e%2e");
    bodies.put("a dot-dot attachment", ascii(base + ", \"attachedRepositories\": [\"../x\"]}"));
    errors.put("a dot-dot attachment", "attachedRepositories[0]: not a valid repository owner: ..");
    bodies.put("a number past any range", ascii(base + ", \"ttlSeconds\": 1e999999}"));
    errors.put("a number past any range", "ttlSeconds must be a positive whole number of seconds");
    bodies.put("an unknown field", ascii(base + ", \"writeToken\": \"please\"}"));
    errors.put("an unknown field", "unknown field 'writeToken'");
    bodies.put("a bad rule", ascii(base + ", \"rules\": {\"push\": [{\"refs\": \"refs/heads/main\","
        + " \"decision\": \"maybe\"}]}}"));
    errors.put("a bad rule",
        "rules.push[0].decision: bad decision 'maybe' (expected allow, ask or deny)");
    for (var b : bodies.entrySet()) {
      String answer;
      if (b.getKey().equals("a body over 1 MiB")) {
        // Answered before it is read: a client that writes it all first (Wire) can block on a
        // Unix socket; Jetty's client reads the early answer, as launchers do.
        // The appliance answers 400 and closes without reading the rest; a client still
        // writing may see the close first. Either way nothing is created (checked below).
        try {
          ControlClient.Answer early = app.get().control().post("/v1/runs",
              new String(b.getValue(), java.nio.charset.StandardCharsets.ISO_8859_1));
          assertThat(early.status()).as(b.getKey()).isEqualTo(400);
          answer = early.raw();
        } catch (java.util.concurrent.ExecutionException closedWhileWriting) {
          assertThat(closedWhileWriting).hasRootCauseInstanceOf(java.io.IOException.class);
          continue;
        }
      } else {
        long t0 = System.nanoTime();
        Wire.Answer a;
        try {
          a = Wire.unix(socket, "POST", "/v1/runs", b.getValue());
        } catch (java.io.IOException e) {
          throw new AssertionError(b.getKey() + ": no answer after "
              + (System.nanoTime() - t0) / 1_000_000 + " ms", e);
        }
        assertThat(a.status()).as(b.getKey() + ": " + a.body()).isEqualTo(400);
        answer = a.body();
      }
      JsonNode error = new com.fasterxml.jackson.databind.ObjectMapper().readTree(answer);
      assertThat(error.get("error").asText()).as(b.getKey()).isEqualTo(errors.get(b.getKey()));
    }
    Wire.Answer answer = Wire.unix(socket, "POST", "/v1/approvals/nope", ascii("{\"decision\":"));
    assertThat(answer.status()).isEqualTo(400);

    assertThat(app.get().control().get("/v1/runs").body().get("runs")).hasSize(runsBefore);
    assertThat(credentialRows()).isEqualTo(credentialsBefore);
    assertThat(runDirs()).isEqualTo(runDirsBefore);
  }

  @Test
  void serveRefusesABadAppKeyOrConfigurationWithoutPrintingKeyBytes() throws Exception {
    Path keys = Files.createDirectories(app.dir().resolve("keys"));
    List<String> real = Files.readAllLines(app.get().dataDir.resolve("forge-app.pem"));
    List<String> body = real.subList(1, real.size() - 1);
    Map<String, List<String>> pems = new LinkedHashMap<>();
    pems.put("truncated.pem", concatLines(real.subList(0, real.size() / 2),
        List.of(real.get(real.size() - 1))));
    pems.put("garbage.pem", List.of("this is not a key"));
    pems.put("empty.pem", List.of());
    pems.put("bad-base64.pem", concatLines(List.of(real.get(0)),
        body.stream().map(l -> l.replace('A', '!')).toList(), List.of(real.get(real.size() - 1))));
    java.security.KeyPairGenerator rsa = java.security.KeyPairGenerator.getInstance("RSA");
    rsa.initialize(2048);
    pems.put("public.pem", concatLines(List.of("-----BEGIN PUBLIC KEY-----"),
        java.util.Base64.getMimeEncoder(64, new byte[] {'\n'})
            .encodeToString(rsa.generateKeyPair().getPublic().getEncoded()).lines().toList(),
        List.of("-----END PUBLIC KEY-----")));
    Map<String, String> messages = new LinkedHashMap<>();
    messages.put("truncated.pem", "is not a complete PEM private key (truncated or damaged)");
    messages.put("garbage.pem",
        "does not contain a PEM private key (expected a line -----BEGIN RSA PRIVATE KEY-----)");
    messages.put("empty.pem", "is empty");
    messages.put("bad-base64.pem", "is not a complete PEM private key (truncated or damaged)");
    messages.put("public.pem", "holds a public key or certificate, not the private key");
    for (var pem : pems.entrySet()) {
      Path key = keys.resolve(pem.getKey());
      Files.write(key, pem.getValue());
      Files.setPosixFilePermissions(key, java.nio.file.attribute.PosixFilePermissions
          .fromString("rw-------"));
      Exit exit = serve(app.dir().resolve("bad-" + pem.getKey()), "--github-app-id", "123",
          "--github-app-key", key.toString());
      assertThat(exit.code()).as(pem.getKey() + ":\n" + exit.output()).isEqualTo(1);
      assertThat(exit.line()).as(pem.getKey()).startsWith(
          "pushgate: GitHub App private key " + key + " " + messages.get(pem.getKey()));
      for (String line : body) {
        assertThat(exit.output()).as(pem.getKey()).doesNotContain(line);
      }
      assertThat(exit.output()).doesNotContain("\tat ");
    }
    Exit missing = serve(app.dir().resolve("bad-missing"), "--github-app-id", "123",
        "--github-app-key", keys.resolve("missing.pem").toString());
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.line()).startsWith(
        "pushgate: GitHub App private key " + keys.resolve("missing.pem") + " does not exist");

    Path rules = keys.resolve("rules.yaml");
    Files.writeString(rules, "push: [unclosed\n");
    Exit badRules = serve(app.dir().resolve("bad-rules"), "--rules", rules.toString());
    assertThat(badRules.code()).isEqualTo(1);
    assertThat(badRules.line()).startsWith("pushgate: " + rules + ": line 1, column 7:"
        + " not valid YAML: while parsing a flow sequence");
    Files.writeString(rules, "push:\n  - refs: refs/heads/main\n    decision: maybe\n");
    Exit badRule = serve(app.dir().resolve("bad-rule"), "--rules", rules.toString());
    assertThat(badRule.line()).startsWith("pushgate: " + rules + ": line 3, column 15: bad"
        + " decision 'maybe' (expected allow, ask or deny)");
    Path config = keys.resolve("pushgate.yaml");
    Files.writeString(config, "frobnicate: 1\n");
    Exit badConfig = serve(app.dir().resolve("bad-config"), "--config", config.toString());
    assertThat(badConfig.code()).isNotZero();
    assertThat(badConfig.line()).startsWith("pushgate: " + config + ": unknown key frobnicate");
  }

  @Test
  void besideTheCorpusANormalPushLandsAndMainIsStillDenied() throws Exception {
    Path work = app.dir().resolve("normal");
    GitRun git = clone(work);
    Files.writeString(work.resolve("after.txt"), "after the corpus\n");
    git.in(work, "add", "after.txt").ok();
    git.in(work, "commit", "-q", "-m", "after the corpus").ok();
    git.in(work, "push", "origin", "HEAD:refs/heads/after-corpus").ok();
    ObjectId head = ObjectId.fromString(git.in(work, "rev-parse", "HEAD").ok().stdout().strip());
    upstream.put("refs/heads/after-corpus", head);
    assertThat(git.in(work, "push", "origin", "HEAD:main").failed().stderr()).contains(
        "! [remote rejected] HEAD -> main (Control Center policy: push to main is denied)");
  }

  // --- helpers ---

  private ObjectId mainChild() {
    return PackBytes.id(Constants.OBJ_COMMIT, childCommit());
  }

  private byte[] childCommit() {
    return PackBytes.commit(treeOf(main), main, "a child of main");
  }

  private byte[] childPack() {
    return PackBytes.pack(PackBytes.object(Constants.OBJ_COMMIT, childCommit()));
  }

  private ObjectId treeOf(ObjectId commit) {
    try (var r = new org.eclipse.jgit.internal.storage.file.FileRepository(
        app.get().forgeRepo("acme/widget").toFile());
        var walk = new org.eclipse.jgit.revwalk.RevWalk(r)) {
      return walk.parseCommit(commit).getTree().getId();
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private ObjectId zeroBlobId(long size) throws Exception {
    java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-1");
    sha.update(ascii("blob " + size + "\0"));
    byte[] zeros = new byte[1 << 20];
    for (long left = size; left > 0; left -= zeros.length) {
      sha.update(zeros, 0, (int) Math.min(zeros.length, left));
    }
    return ObjectId.fromRaw(sha.digest());
  }

  private List<String> cacheRepositories() throws Exception {
    Path cache = app.get().dataDir.resolve("cache");
    if (!Files.isDirectory(cache)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(cache, 2)) {
      return s.map(p -> cache.relativize(p).toString()).sorted().toList();
    }
  }

  private List<String> runDirs() throws Exception {
    try (Stream<Path> s = Files.list(app.get().dataDir.resolve("runs"))) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private int credentialRows() throws Exception {
    try (Connection c = DriverManager.getConnection(
            "jdbc:sqlite:" + app.get().dataDir.resolve("pushgate.db"));
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM credentials")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** How {@code serve} ended: its exit code, its output, and the line that says why. */
  record Exit(int code, String output) {
    String line() {
      return output.lines().filter(l -> l.startsWith("pushgate: ")).findFirst().orElse(output);
    }
  }

  /** {@code pushgate serve} on a fresh data directory; expected to refuse and exit. */
  private Exit serve(Path dataDir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("serve", "--data-dir", dataDir.toString(),
        "--port", "0"));
    cmd.addAll(List.of(args));
    Cli.Result r = Cli.of(cmd.toArray(String[]::new)).run();
    return new Exit(r.exit(), r.out());
  }

  /** A run request body of workspace ws whose repository is {@code repository}, as written. */
  private byte[] withRepository(String repository) {
    return ascii("{\"workspaceId\": \"ws\", \"repository\": \"" + repository + "\"}");
  }

  private byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private byte[] repeat(char c, int n) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) c);
    return b;
  }

  private byte[] concat(byte[]... parts) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  @SafeVarargs
  private List<String> concatLines(List<String>... parts) {
    List<String> out = new ArrayList<>();
    for (List<String> p : parts) {
      out.addAll(p);
    }
    return out;
  }
}
