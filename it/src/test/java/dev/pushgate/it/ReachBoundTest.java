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
    Clone c = clone("ws-c", "acme/widget", null, "c");

    // A want by id (protocol v2, as git 2.39 fetches), then as a thin pack's delta base.
    GitRun.Result fetch = c.git().in(c.work(), "fetch", "origin", plan.name()).failed();
    assertThat(fetch.stderr()).contains("remote error: what this repository's branches and"
        + " tags reach could not be decided within 3 objects read and 10 s; nothing was sent."
        + " The gateway is compacting this repository's cache with a bitmap index, which"
        + " decides it at once: fetch again in a minute, or fetch a branch or tag by name");
    assertThat(c.git().in(c.work(), "cat-file", "-e", plan.name()).exit()).isNotZero();

    // In a repository of its own: the fetch's refusal has the cache above compacted with
    // bitmaps, which then decide exactly (and drop the refused push's objects).
    assertThat(refusedPlan("acme/sprocket")).isEqualTo(plan);
    JsonNode runC = app.get().createRun(
        "{\"workspaceId\": \"ws-c\", \"repository\": \"acme/sprocket\"}");
    Wire.Answer push = thinPush(runC, "acme/sprocket", plan, "what C's delta makes\n");
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
    Clone c = clone("ws-c2", "acme/gadget", null, "c2");
    Path cache = app.get().cacheRepo("acme/gadget");
    // The first decision past the bound has the cache compacted with bitmaps, after which both
    // are decided exactly: the two are compared within one state of the cache, either one.
    for (int round = 0; round < 5; round++) {
      boolean bitmapsBefore = hasBitmaps(cache);
      List<String> asAbsent = answers(c, absent, round);
      List<String> asRefused = answers(c, plan, round);
      if (hasBitmaps(cache) == bitmapsBefore) {
        assertThat(asRefused).isEqualTo(asAbsent);
        return;
      }
    }
    throw new AssertionError("the cache changed during every round");
  }

  /** A fetch of {@code id} and a thin push naming it as its base, as the run sees them. */
  private static List<String> answers(Clone c, ObjectId id, int round) throws Exception {
    String fetched = c.git().in(c.work(), "fetch", "origin", id.name()).failed().stderr()
        .replace(id.name(), "<id>");
    String pushed = thinPush(c.run(), "acme/gadget", id, "made " + round + "\n").body()
        .replace(id.name(), "<id>");
    return List.of(fetched, pushed);
  }

  /**
   * A push to {@code refs/heads/probe} of a commit on {@code repo}'s main whose one file is a
   * delta, {@code made} from {@code base} (as long as {@link #PLAN}), which the pack leaves out.
   */
  private static Wire.Answer thinPush(JsonNode run, String repo, ObjectId base, String made)
      throws Exception {
    ObjectId main = ForgeRefs.ref(app.get(), repo, "refs/heads/main");
    byte[] content = made.getBytes(StandardCharsets.UTF_8);
    byte[] tree = PackBytes.tree("made.txt", PackBytes.id(Constants.OBJ_BLOB, content));
    byte[] commit = PackBytes.commit(PackBytes.id(Constants.OBJ_TREE, tree), main, "thin");
    return Wire.post(app.get(), "/git/github.com/" + repo + ".git/git-receive-pack",
        ForgeRefs.credential(run), PackBytes.request(
            RawPush.command(ObjectId.zeroId(), PackBytes.id(Constants.OBJ_COMMIT, commit),
                "refs/heads/probe"),
            PackBytes.pack(PackBytes.refDelta(base, PLAN.length(), content),
                PackBytes.object(Constants.OBJ_TREE, tree),
                PackBytes.object(Constants.OBJ_COMMIT, commit))));
  }

  /** A run, its git with a home of its own, and its clone of the run's repository. */
  private record Clone(JsonNode run, GitRun git, Path work) {}

  /** A run of {@code repo}, its push to main {@code mainPush} (or none), cloned in dir. */
  private static Clone clone(String workspace, String repo, String mainPush, String dir)
      throws Exception {
    String rules = mainPush == null ? "" : """
        , "rules": {"push": [{"refs": "refs/heads/main", "decision": "%s"}]}""".formatted(mainPush);
    JsonNode run = app.get().createRun("""
        {"workspaceId": "%s", "repository": "%s"%s}""".formatted(workspace, repo, rules));
    GitRun git = new GitRun(Files.createDirectories(app.dir().resolve("home-" + dir)),
        ForgeRefs.env(run));
    git.in(app.dir(), "clone", "-q", "https://github.com/" + repo + ".git", dir).ok();
    return new Clone(run, git, app.dir().resolve(dir));
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
    Clone c = clone("ws-c3", "acme/gizmo", null, "c3");
    assertThat(c.git().in(c.work(), "fetch", "origin", plan.name()).failed().stderr())
        .contains("The gateway is compacting this repository's cache with a bitmap index");

    dev.pushgate.testkit.Wait.until(java.time.Duration.ofSeconds(90),
        "the cache compacted with a bitmap index, at a sync with no fetch reading", () -> {
          c.git().in(c.work(), "ls-remote", "origin").ok();
          return hasBitmaps(cache);
        });
    assertThat(c.git().in(c.work(), "fetch", "origin", plan.name()).failed().stderr())
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
    Clone s = clone("ws-s", repo, "allow", "s" + a);
    GitRun gitS = s.git();
    Path history = s.work();
    Files.writeString(history.resolve("second.txt"), "a second commit on main\n");
    gitS.in(history, "add", "second.txt").ok();
    gitS.in(history, "-c", "user.name=S", "-c", "user.email=s@example.com", "commit", "-q",
        "-m", "second").ok();
    gitS.in(history, "push", "-q", "origin", "HEAD:main").ok();
    Clone runA = clone("ws-a", repo, "deny", a);
    GitRun gitA = runA.git();
    Path work = runA.work();
    Files.writeString(work.resolve("plan.txt"), PLAN);
    gitA.in(work, "add", "plan.txt").ok();
    gitA.in(work, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m",
        "refused").ok();
    gitA.in(work, "push", "--no-thin", "--atomic", "origin", "HEAD:main",
        "HEAD:refs/heads/a-side").failed();
    return ObjectId.fromString(gitA.in(work, "rev-parse", rev).ok().stdout().strip());
  }
}
