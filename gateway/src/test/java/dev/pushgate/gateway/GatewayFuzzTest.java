package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.pushgate.types.UntrustedText;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.pushgate.policy.PushRules;
import dev.pushgate.types.RepoSlug;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.eclipse.jgit.transport.ReceivePack;
import org.eclipse.jgit.util.FileUtils;
import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.io.TempDirFactory;

/**
 * Coverage-guided fuzzing of what the gateway reads from untrusted bytes (docs/fuzzing.md): the
 * repository in a request path, refusal messages, and a push request body as the gateway's
 * receive-pack reads it.
 *
 * <p>The seeds under {@code GatewayFuzzTestInputs/receivePackMovesOnlyWhatTheHookAllowed/} are
 * real push bodies (commands, push options, pack) against the repository {@link #baseline} builds;
 * they stay valid only while it builds the same commits.
 */
class GatewayFuzzTest {
  private static final String HOST = GatewayConfig.GITHUB_HOST;
  private static final List<String> SUFFIXES =
      List.of("/info/refs", "/git-receive-pack", "/git-upload-pack");
  private static final Pattern SAFE_PART = Pattern.compile("[A-Za-z0-9._-]+");
  /** The refs the recording hook lets receive-pack update: one plain name under ok/. */
  private static final Pattern ALLOWED = Pattern.compile("refs/heads/ok/[a-z0-9-]{1,20}");
  private static final PersonIdent WHO = new PersonIdent("Agent", "agent@example.invalid",
      Instant.ofEpochSecond(1_700_000_000L), ZoneOffset.UTC);
  private static final RepoSlug REPO = new RepoSlug("acme", "widget");
  /** Above this, a pack's object count is refused by the gateway before JGit reads it. */
  private static final long KNOWN_UNBOUNDED_OBJECT_COUNT = 100_000;
  /** A bound on a hung input, far above the milliseconds an input of a few KiB takes. */
  private static final Duration INPUT_DEADLINE = Duration.ofSeconds(30);

  /**
   * Every execution copies a repository: in memory where there is /dev/shm, ten times faster.
   * Static, and the set-up below with it: built once for the class and only read after, as an
   * instance {@code @TempDir} would be a new directory for each test.
   */
  @TempDir(factory = InMemory.class) static Path dir;
  private static Path template;
  private static Map<String, ObjectId> baselineRefs;
  private static GatewayConfig config;
  private static GatewayReceivePackFactory factory;
  private static GatewayFilter filter;

  /** Never throws; accepts exactly {@code /github.com/<owner>/<name>[.git]<suffix>}, safe names. */
  @FuzzTest(maxDuration = "2m")
  void repositoryOfAcceptsOnlyWellFormedSafeNames(byte[] input) {
    String path = new String(input, StandardCharsets.UTF_8);
    Optional<RepoSlug> repo = filter().repositoryOf(path);
    if (repo.isEmpty()) {
      return;
    }
    RepoSlug r = repo.get();
    assertThat(r.owner()).matches(SAFE_PART).doesNotContain("..");
    assertThat(r.name()).matches(SAFE_PART).isNotIn(".", "..");
    List<String> spellings = new ArrayList<>();
    for (String suffix : SUFFIXES) {
      spellings.add("/" + HOST + "/" + r.owner() + "/" + r.name() + suffix);
      spellings.add("/" + HOST + "/" + r.owner() + "/" + r.name() + ".git" + suffix);
    }
    assertThat(path).isIn(spellings);
  }

  /**
   * One line with the prefix, no hidden character (control, C1, bidi, separator: {@link
   * UntrustedText#hidden}), nothing blank; a clean reason (no hidden character) is kept.
   */
  @FuzzTest(maxDuration = "2m")
  void refusalsRenderOnOneCleanLine(byte[] input) {
    String why = new String(input, StandardCharsets.UTF_8);
    String line = Refusals.render(why);
    assertThat(line).startsWith(Refusals.PREFIX);
    String rest = line.substring(Refusals.PREFIX.length());
    assertThat(rest).isNotBlank().isEqualTo(rest.strip());
    assertThat(rest.chars().noneMatch(c -> c < 0x20 || c == 0x7f)).as(line).isTrue();
    assertThat(rest.codePoints().noneMatch(UntrustedText::hidden)).as(line).isTrue();
    assertThat(Refusals.render(rest)).isEqualTo(line);
    if (why.codePoints().noneMatch(UntrustedText::hidden) && !why.isBlank()
        && why.equals(why.strip())) {
      assertThat(rest).isEqualTo(why);
    }
  }

  /**
   * The input is a push request body (pkt-line commands, push options, pack) for receive-pack set
   * up by {@link GatewayReceivePackFactory}, with a pre-receive hook that records what it is asked
   * and lets only {@code refs/heads/ok/<name>} through, answered through {@link ReceiveErrors} as
   * the servlet does. The answer is never a 500 (malformed input is the client's fault, not an
   * internal error); no ref moves, appears or disappears unless the hook let that command through
   * and it succeeded; nothing but an answer comes out (no exception); and it ends before a
   * deadline (the input is at most a few KiB). Not JUnit's {@code @Timeout}: while fuzzing, JUnit
   * would apply it to the whole run.
   */
  @FuzzTest(maxDuration = "2m")
  void receivePackMovesOnlyWhatTheHookAllowed(byte[] body) throws Exception {
    if (declaredObjects(body) > KNOWN_UNBOUNDED_OBJECT_COUNT) {
      // The gateway refuses these in PackHeaderGuard, in front of JGit (GatewayHttpTest
      // aPackDeclaringMoreObjectsThanAPushCanHoldIsRefusedBeforeItIsRead); this harness drives
      // JGit directly, which would allocate the declared count up front.
      return;
    }
    assertTimeoutPreemptively(INPUT_DEADLINE, () -> receiveAndCheck(body), "receive-pack did not"
        + " end within " + INPUT_DEADLINE.toSeconds() + " s on an input of a few KiB");
  }

  /** One input through receive-pack and the recording hook, then what moved checked. */
  private static void receiveAndCheck(byte[] body) throws Exception {
    Path gitDir = freshRepository();
    // a gateway cache, as the resolver opens it: receive-pack receives into the push's view of it
    try (Repository db = CacheRepository.key(gitDir.toFile()).open(true)) {
      Map<String, Object> attributes = new HashMap<>();
      attributes.put(Push.ATTRIBUTE,
          new Push(new RunContext("run-1", "ws-1", REPO, List.of(), PushRules.ALLOW_ALL), REPO,
              java.util.Optional.empty(), null));
      HttpServletRequest req = request(attributes);
      ReceivePack rp = factory.create(req, db);
      Map<String, ReceiveCommand> allowed = new HashMap<>();
      List<String> seen = new ArrayList<>();
      rp.setPreReceiveHook((pack, commands) -> {
        for (ReceiveCommand c : commands) {
          seen.add(c.getRefName());
          if (ALLOWED.matcher(c.getRefName()).matches()) {
            allowed.put(c.getRefName(), c);
          } else {
            c.setResult(ReceiveCommand.Result.REJECTED_OTHER_REASON, "not allowed");
          }
        }
      });
      CapturedResponse answer = new CapturedResponse();
      new ReceiveErrors(1 << 20).receive(req, answer.response(), () -> {
        rp.setBiDirectionalPipe(false);
        rp.receive(new ByteArrayInputStream(body), answer.body, null);
      });
      assertThat(answer.status).as("answer: %s", answer.text())
          .isNotEqualTo(HttpServletResponse.SC_INTERNAL_SERVER_ERROR);

      Map<String, ObjectId> now = refs(db);
      for (String name : union(baselineRefs.keySet(), now.keySet())) {
        ObjectId before = baselineRefs.get(name);
        ObjectId after = now.get(name);
        if (before == null ? after == null : before.equals(after)) {
          continue;
        }
        ReceiveCommand c = allowed.get(name);
        assertThat(c).as("%s moved from %s to %s; the hook saw %s", name, before, after, seen)
            .isNotNull();
        assertThat(c.getResult()).isEqualTo(ReceiveCommand.Result.OK);
        assertThat(after == null ? ObjectId.zeroId() : after).isEqualTo(c.getNewId());
      }
      Ref head = db.exactRef(Constants.HEAD);
      assertThat(head.isSymbolic() ? head.getTarget().getName() : null)
          .isEqualTo("refs/heads/main");
    }
  }

  /**
   * The object count in the header of the pack that follows the pkt-lines of {@code body}, or 0:
   * at a pkt-line boundary {@code PACK} cannot be a length, so that is where the pack starts.
   */
  static long declaredObjects(byte[] body) {
    int pos = 0;
    while (pos + 4 <= body.length) {
      String head = new String(body, pos, 4, StandardCharsets.ISO_8859_1);
      if (head.equals("PACK")) {
        return pos + 12 <= body.length
            ? ((body[pos + 8] & 0xffL) << 24 | (body[pos + 9] & 0xff) << 16
                | (body[pos + 10] & 0xff) << 8 | body[pos + 11] & 0xff)
            : 0;
      }
      int length;
      try {
        length = Integer.parseInt(head, 16);
      } catch (NumberFormatException e) {
        return 0;
      }
      if (length != 0 && length < 4) {
        return 0;
      }
      pos += length == 0 ? 4 : length;
    }
    return 0;
  }

  // ---- the repository

  /**
   * A bare repository with two commits: {@code main} (and HEAD) at the second, {@code ok/topic}
   * and the tag {@code v1} at the first. The same ids on every run (fixed author and time).
   */
  static Map<String, ObjectId> baseline(Repository db) throws IOException {
    ObjectId first = commit(db, "first\n", "1\n");
    ObjectId second = commit(db, "second\n", "2\n", first);
    setRef(db, "refs/heads/main", second);
    setRef(db, "refs/heads/ok/topic", first);
    setRef(db, "refs/tags/v1", first);
    db.updateRef(Constants.HEAD).link("refs/heads/main");
    return refs(db);
  }

  static ObjectId commit(Repository db, String message, String content, ObjectId... parents)
      throws IOException {
    try (ObjectInserter ins = db.newObjectInserter()) {
      DirCache index = DirCache.newInCore();
      DirCacheBuilder b = index.builder();
      DirCacheEntry e = new DirCacheEntry("README.md");
      e.setFileMode(FileMode.REGULAR_FILE);
      e.setObjectId(ins.insert(Constants.OBJ_BLOB, content.getBytes(StandardCharsets.UTF_8)));
      b.add(e);
      b.finish();
      CommitBuilder c = new CommitBuilder();
      c.setTreeId(index.writeTree(ins));
      c.setParentIds(parents);
      c.setAuthor(WHO);
      c.setCommitter(WHO);
      c.setMessage(message);
      ObjectId id = ins.insert(c);
      ins.flush();
      return id;
    }
  }

  private static void setRef(Repository db, String name, ObjectId id) throws IOException {
    RefUpdate u = db.updateRef(name);
    u.setNewObjectId(id);
    u.setForceUpdate(true);
    u.update();
  }

  private static Map<String, ObjectId> refs(Repository db) throws IOException {
    Map<String, ObjectId> out = new HashMap<>();
    for (Ref r : db.getRefDatabase().getRefs()) {
      if (!r.isSymbolic()) {
        out.put(r.getName(), r.getObjectId());
      }
    }
    return out;
  }

  /** A copy of the baseline repository, so that no execution sees what another one left. */
  private static synchronized Path freshRepository() throws IOException {
    if (template == null) {
      template = dir.resolve("template.git");
      try (Repository db = new FileRepository(template.toFile())) {
        db.create(true);
        // no background gc racing the next execution's copy
        db.getConfig().setBoolean("receive", null, "autogc", false);
        db.getConfig().save();
        baselineRefs = baseline(db);
      }
      config = new GatewayConfig(HOST, dir.resolve("cache"), 2048, Duration.ofSeconds(10),
          Duration.ofSeconds(10), Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
      factory = new GatewayReceivePackFactory(new GatewayServices(config, null, null, null,
          PushMetrics.NONE, new Forwarder(10),
          new UpstreamCache(dir.resolve("cache"), 10, PushMetrics.NONE), new GatewayThreads(),
          null));
    }
    Path copy = dir.resolve("push.git");
    FileUtils.delete(copy.toFile(), FileUtils.RECURSIVE | FileUtils.SKIP_MISSING);
    copy(template, copy);
    return copy;
  }

  private static void copy(Path from, Path to) throws IOException {
    Files.walkFileTree(from, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs)
          throws IOException {
        Files.createDirectories(to.resolve(from.relativize(d)));
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
        Files.copy(f, to.resolve(from.relativize(f)), StandardCopyOption.COPY_ATTRIBUTES);
        return FileVisitResult.CONTINUE;
      }
    });
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> all = new TreeSet<>(a);
    all.addAll(b);
    return all;
  }

  static final class InMemory implements TempDirFactory {
    @Override
    public Path createTempDirectory(AnnotatedElementContext element, ExtensionContext context)
        throws IOException {
      Path shm = Path.of("/dev/shm");
      return Files.isDirectory(shm) && Files.isWritable(shm)
          ? Files.createTempDirectory(shm, "junit") : Files.createTempDirectory("junit");
    }
  }

  // ---- servlet stand-ins

  private static synchronized GatewayFilter filter() {
    if (filter == null) {
      GatewayConfig c = new GatewayConfig(HOST, dir, 1024, Duration.ofSeconds(5),
          Duration.ofSeconds(5), Clock.systemUTC());
      filter = new GatewayFilter(new GatewayServices(c, null, null, null, PushMetrics.NONE,
          new Forwarder(5), new UpstreamCache(dir, 5, PushMetrics.NONE), new GatewayThreads(),
          null), RunAuthenticator.NONE);
    }
    return filter;
  }

  /** A servlet request carrying what {@link GatewayFilter} leaves on it, and nothing else. */
  private static HttpServletRequest request(Map<String, Object> attributes) {
    return (HttpServletRequest) Proxy.newProxyInstance(GatewayFuzzTest.class.getClassLoader(),
        new Class<?>[] {HttpServletRequest.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "getAttribute" -> attributes.get((String) args[0]);
          // The body went straight to JGit: what is left for the error handler is nothing.
          case "getInputStream" -> HandedOn.blocking(InputStream.nullInputStream());
          case "hashCode" -> System.identityHashCode(proxy);
          case "equals" -> proxy == args[0];
          case "toString" -> "request" + attributes.keySet();
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }
}
