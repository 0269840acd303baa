package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a run reaches is decided within a bound (docs/push-path.md, "What a push may name without
 * sending it"): proving that an object a refused push left in the cache is not reached read the
 * whole history, per request, unbounded (minutes of CPU on a large repository). Past the bound,
 * the fetch and the push are refused with what to do, never served, never a stack trace. The
 * appliance here caps every decision at 3 objects read ({@code -Dpushgate.reach.max-objects}):
 * the tip and its tree, which the first step reads, and no more, so that this history of two
 * commits goes past it as a large one without bitmaps would, and a cache with bitmaps decides
 * within it. Each test has a
 * repository of its own: the first decision past the bound has its cache compacted with bitmaps,
 * after which the cache decides exactly.
 */
class ReachBoundTest {
  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving()
      .withRepos("acme/widget", "acme/sprocket", "acme/gadget", "acme/gizmo")
      .with(b -> b.jvm(List.of("-Xmx512m", "-Dpushgate.reach.max-objects=3")));

  private static final String PLAN = "run A's refused plan\n";

  @Test
  void aRefusedPushsBlobAskedForPastTheBoundIsRefusedWithWhatToDo() throws Exception {
    ObjectId plan = refusedPlan();
    JsonNode runC = app.get().createRun(
        "{\"workspaceId\": \"ws-c\", \"repository\": \"acme/widget\"}");
    GitRun gitC = new GitRun(Files.createDirectories(app.dir().resolve("home-c")),
        ForgeRefs.env(runC));
    gitC.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", "c").ok();
    Path workC = app.dir().resolve("c");

    // A want by id (protocol v2, as git 2.39 fetches), then as a thin pack's delta base.
    GitRun.Result fetch = gitC.in(workC, "fetch", "origin", plan.name()).failed();
    assertThat(fetch.stderr()).contains("remote error: what this repository's branches and"
        + " tags reach could not be decided within 3 objects read and 10 s; nothing was sent."
        + " The gateway is compacting this repository's cache with a bitmap index, which"
        + " decides it at once: fetch again in a minute, or fetch a branch or tag by name");
    assertThat(gitC.in(workC, "cat-file", "-e", plan.name()).exit()).isNotZero();

    // In a repository of its own: the fetch's refusal has the cache above compacted with
    // bitmaps, which then decide exactly (and drop the refused push's objects).
    assertThat(refusedPlan("acme/sprocket")).isEqualTo(plan);
    runC = app.get().createRun(
        "{\"workspaceId\": \"ws-c\", \"repository\": \"acme/sprocket\"}");
    ObjectId main = ForgeRefs.ref(app.get(), "acme/sprocket", "refs/heads/main");
    byte[] made = "what C's delta makes\n".getBytes(StandardCharsets.UTF_8);
    byte[] tree = PackBytes.tree("made.txt", PackBytes.id(Constants.OBJ_BLOB, made));
    byte[] commit = PackBytes.commit(PackBytes.id(Constants.OBJ_TREE, tree), main, "thin");
    ObjectId commitId = PackBytes.id(Constants.OBJ_COMMIT, commit);
    Wire.Answer push = Wire.post(app.get(), "/git/github.com/acme/sprocket.git/git-receive-pack",
        ForgeRefs.credential(runC), PackBytes.request(
            RawPush.command(ObjectId.zeroId(), commitId, "refs/heads/probe"),
            PackBytes.pack(PackBytes.refDelta(plan, PLAN.length(), made),
                PackBytes.object(Constants.OBJ_TREE, tree),
                PackBytes.object(Constants.OBJ_COMMIT, commit))));
    assertThat(push.status()).isEqualTo(200);
    assertThat(push.body()).contains("ng refs/heads/probe Control Center policy: the thin"
        + " pack's delta bases could not be checked: what this repository's branches and tags"
        + " reach could not be decided within 3 objects read and 180 s; nothing was pushed."
        + " The gateway is compacting this repository's cache with a bitmap index, which"
        + " decides it at once: push again in a minute, or push with --no-thin");
    assertThat(ForgeRefs.of(app.get(), "acme/sprocket")).doesNotContainKey("refs/heads/probe");
  }

  /**
   * attack3 finding (medium): past the bound, the answer tells a held object from an absent one.
   * A base or want nobody has is refused at once as absent ("want ... not valid", "missing
   * necessary objects"), while one only a refused push of another run left in the cache is
   * refused as "could not be decided": a run learns that the cache holds its guess (a hashed
   * guess of another run's refused file), which every other path answers as absent. Same words
   * for both are expected (docs/push-path.md: "answered as an object nobody has").
   */
  @Test
  void pastTheBoundARefusedPushsBlobAnswersAsAnAbsentOne() throws Exception {
    ObjectId plan = refusedPlan("acme/gadget");
    ObjectId absent = PackBytes.id(Constants.OBJ_BLOB,
        "a guess nobody pushed\n".getBytes(StandardCharsets.UTF_8));
    JsonNode runC = app.get().createRun(
        "{\"workspaceId\": \"ws-c2\", \"repository\": \"acme/gadget\"}");
    GitRun gitC = new GitRun(Files.createDirectories(app.dir().resolve("home-c2")),
        ForgeRefs.env(runC));
    gitC.in(app.dir(), "clone", "-q", "https://github.com/acme/gadget.git", "c2").ok();
    Path workC = app.dir().resolve("c2");
    ObjectId main = ForgeRefs.ref(app.get(), "acme/gadget", "refs/heads/main");
    Path cache = app.get().cacheRepo("acme/gadget");
    // The first decision past the bound has the cache compacted with bitmaps, after which both
    // are decided exactly: the two are compared within one state of the cache, either one.
    for (int round = 0; round < 5; round++) {
      boolean bitmapsBefore = hasBitmaps(cache);
      List<String> asAbsent = answers(gitC, workC, runC, main, absent, round);
      List<String> asRefused = answers(gitC, workC, runC, main, plan, round);
      if (hasBitmaps(cache) == bitmapsBefore) {
        assertThat(asRefused).isEqualTo(asAbsent);
        return;
      }
    }
    throw new AssertionError("the cache changed during every round");
  }

  /** A fetch of {@code id} and a thin push naming it as its base, as the run sees them. */
  private static List<String> answers(GitRun git, Path work, JsonNode run, ObjectId main,
      ObjectId id, int round) throws Exception {
    String fetched = git.in(work, "fetch", "origin", id.name()).failed().stderr()
        .replace(id.name(), "<id>");
    byte[] made = ("made " + round + "\n").getBytes(StandardCharsets.UTF_8);
    byte[] tree = PackBytes.tree("made.txt", PackBytes.id(Constants.OBJ_BLOB, made));
    byte[] commit = PackBytes.commit(PackBytes.id(Constants.OBJ_TREE, tree), main, "thin");
    String pushed = Wire.post(app.get(), "/git/github.com/acme/gadget.git/git-receive-pack",
        ForgeRefs.credential(run), PackBytes.request(
            RawPush.command(ObjectId.zeroId(), PackBytes.id(Constants.OBJ_COMMIT, commit),
                "refs/heads/probe"),
            PackBytes.pack(PackBytes.refDelta(id, PLAN.length(), made),
                PackBytes.object(Constants.OBJ_TREE, tree),
                PackBytes.object(Constants.OBJ_COMMIT, commit)))).body()
        .replace(id.name(), "<id>");
    return List.of(fetched, pushed);
  }

  private static boolean hasBitmaps(Path cache) throws java.io.IOException {
    try (var packs = Files.list(cache.resolve("objects/pack"))) {
      return packs.anyMatch(f -> f.getFileName().toString().endsWith(".bitmap"));
    }
  }

  /**
   * attack3 finding (medium): a fetch past the bound is told "The gateway is compacting this
   * repository's cache with a bitmap index, which decides it at once: fetch again in a minute",
   * yet no compaction comes: with no fetch reading and the run syncing (ls-remote) for 90 s, the
   * cache keeps its packs, gets no bitmap index, still holds the refused push's blob, and the
   * same fetch is refused the same way. So the refusal is not actionable, every such request
   * keeps spending the bound, and the oracle of the test above stays open.
   */
  @Test
  void aFetchPastTheBoundHasTheCacheCompactedWithBitmapsAsItSays() throws Exception {
    ObjectId plan = refusedPlan("acme/gizmo");
    Path cache = app.get().cacheRepo("acme/gizmo");
    JsonNode runC = app.get().createRun(
        "{\"workspaceId\": \"ws-c3\", \"repository\": \"acme/gizmo\"}");
    GitRun gitC = new GitRun(Files.createDirectories(app.dir().resolve("home-c3")),
        ForgeRefs.env(runC));
    gitC.in(app.dir(), "clone", "-q", "https://github.com/acme/gizmo.git", "c3").ok();
    Path workC = app.dir().resolve("c3");
    assertThat(gitC.in(workC, "fetch", "origin", plan.name()).failed().stderr())
        .contains("The gateway is compacting this repository's cache with a bitmap index");

    dev.pushgate.testkit.Wait.until(java.time.Duration.ofSeconds(90),
        "the cache compacted with a bitmap index, at a sync with no fetch reading", () -> {
          gitC.in(workC, "ls-remote", "origin").ok();
          try (var packs = Files.list(cache.resolve("objects/pack"))) {
            return packs.anyMatch(f -> f.getFileName().toString().endsWith(".bitmap"));
          }
        });
    assertThat(gitC.in(workC, "fetch", "origin", plan.name()).failed().stderr())
        .contains("want " + plan.name() + " not valid");
  }

  /**
   * A second commit on main, pushed by a run allowed to, then run A's push, refused after its
   * pack was received (atomic, one ref denied), whose objects
   * stay in the cache: the id of its plan.txt. Sent whole ({@code --no-thin}): its own bases
   * would go past the bound too.
   */
  private static ObjectId refusedPlan() throws Exception {
    return refusedPlan("acme/widget");
  }

  /** The same, in {@code repo}, in a clone of its own. */
  private static ObjectId refusedPlan(String repo) throws Exception {
    String rev = "HEAD:plan.txt";
    String a = "a-" + System.nanoTime();
    JsonNode setup = app.get().createRun("""
        {"workspaceId": "ws-s", "repository": "%s",
         "rules": {"push": [{"refs": "refs/heads/main", "decision": "allow"}]}}""".formatted(repo));
    GitRun gitS = new GitRun(Files.createDirectories(app.dir().resolve("home-s" + a)),
        ForgeRefs.env(setup));
    gitS.in(app.dir(), "clone", "-q", "https://github.com/" + repo + ".git", "s" + a).ok();
    Path history = app.dir().resolve("s" + a);
    Files.writeString(history.resolve("second.txt"), "a second commit on main\n");
    gitS.in(history, "add", "second.txt").ok();
    gitS.in(history, "-c", "user.name=S", "-c", "user.email=s@example.com", "commit", "-q",
        "-m", "second").ok();
    gitS.in(history, "push", "-q", "origin", "HEAD:main").ok();
    JsonNode runA = app.get().createRun("""
        {"workspaceId": "ws-a", "repository": "%s",
         "rules": {"push": [{"refs": "refs/heads/main", "decision": "deny"}]}}""".formatted(repo));
    GitRun gitA = new GitRun(Files.createDirectories(app.dir().resolve("home-" + a)),
        ForgeRefs.env(runA));
    gitA.in(app.dir(), "clone", "-q", "https://github.com/" + repo + ".git", a).ok();
    Path work = app.dir().resolve(a);
    Files.writeString(work.resolve("plan.txt"), PLAN);
    gitA.in(work, "add", "plan.txt").ok();
    gitA.in(work, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m",
        "refused").ok();
    gitA.in(work, "push", "--no-thin", "--atomic", "origin", "HEAD:main",
        "HEAD:refs/heads/a-side").failed();
    return ObjectId.fromString(gitA.in(work, "rev-parse", rev).ok().stdout().strip());
  }
}
