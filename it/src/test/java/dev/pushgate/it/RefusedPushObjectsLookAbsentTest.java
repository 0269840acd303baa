package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Attack finding (push path, reach; severity: low-medium, an information leak across runs): the
 * fetch side answers an object a refused push left in the cache as an absent one on every path
 * (docs/push-path.md, "A read through the gateway", step 4), but the push path tells them apart.
 * A push naming such an object without sending it gets {@code Missing commit <id>} (its type and
 * that the cache holds it); one naming an object nobody has gets {@code Missing unknown <id>}. So
 * any run on the repository can test a guessed id (a hashed guess of another run's refused file
 * or commit) against the cache. (A delta base likewise: {@code Missing blob} vs
 * {@code Missing delta base}.)
 */
class RefusedPushObjectsLookAbsentTest {
  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().withRepos("acme/widget");

  @Test
  void aRefusedPushsObjectAnswersAsAnAbsentOneOnThePushPathToo() throws Exception {
    JsonNode runA = app.get().createRun("""
        {"workspaceId": "ws-a", "repository": "acme/widget",
         "rules": {"push": [{"refs": "refs/heads/main", "decision": "deny"}]}}""");
    JsonNode runC = app.get().createRun("{\"workspaceId\": \"ws-c\", \"repository\": \"acme/widget\"}");
    GitRun gitA = new GitRun(Files.createDirectories(app.dir().resolve("home")), ForgeRefs.env(runA));
    gitA.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", "a").ok();
    Path workA = app.dir().resolve("a");
    Files.writeString(workA.resolve("plan.txt"), "run A's refused plan\n");
    gitA.in(workA, "add", "plan.txt").ok();
    gitA.in(workA, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m",
        "refused").ok();
    gitA.in(workA, "push", "--atomic", "origin", "HEAD:main", "HEAD:refs/heads/a-side").failed();
    ObjectId refused = ObjectId.fromString(gitA.in(workA, "rev-parse", "HEAD").ok().stdout().strip());
    ObjectId nobodys = ObjectId.fromString("0123456789abcdef0123456789abcdef01234567");

    String credentialC = ForgeRefs.credential(runC);
    String receivePack = "/git/github.com/acme/widget.git/git-receive-pack";
    Wire.Answer held = Wire.post(app.get(), receivePack, credentialC, PackBytes.request(
        RawPush.command(ObjectId.zeroId(), refused, "refs/heads/probe"), RawPush.emptyPack()));
    Wire.Answer absent = Wire.post(app.get(), receivePack, credentialC, PackBytes.request(
        RawPush.command(ObjectId.zeroId(), nobodys, "refs/heads/probe"), RawPush.emptyPack()));

    assertThat(held.status()).isEqualTo(absent.status());
    assertThat(held.body().replace(refused.name(), "<id>"))
        .as("the answer for an object only a refused push left in the cache")
        .isEqualTo(absent.body().replace(nobodys.name(), "<id>"));
  }

  // --- variants: every way the push path reads the cache by an id the pusher names ---

  private static final String RECEIVE_PACK = "/git/github.com/acme/widget.git/git-receive-pack";
  private static final ObjectId NOBODYS = ObjectId.fromString("89abcdef".repeat(5));
  /** Valid as a file, invalid as {@code .gitmodules}: git's fsck refuses a URL like an option. */
  private static final String NOT_A_GITMODULES =
      "[submodule \"x\"]\n\tpath = x\n\turl = -u./evil\n";
  private static final String PLAN = "run A's refused plan, version two\n";

  /** What run A's refused push left in the cache: its commit, tree, blobs and tag. */
  private record Refused(ObjectId commit, ObjectId tree, ObjectId plan, ObjectId notes,
      ObjectId tag) {}

  private static Refused refused;

  /** Run A's push, refused after its pack was received, whose objects stay in the cache. */
  private static synchronized Refused refused() throws Exception {
    if (refused == null) {
      JsonNode runA = app.get().createRun("""
          {"workspaceId": "ws-variants-a", "repository": "acme/widget",
           "rules": {"push": [{"refs": "refs/heads/main", "decision": "deny"}]}}""");
      GitRun gitA = new GitRun(Files.createDirectories(app.dir().resolve("home-variants")),
          ForgeRefs.env(runA));
      gitA.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", "variants").ok();
      Path work = app.dir().resolve("variants");
      Files.writeString(work.resolve("plan.txt"), PLAN);
      Files.writeString(work.resolve("notes.txt"), NOT_A_GITMODULES);
      // Past what a push may hold in memory: stored as it arrives, so it stays when refused (a
      // small refused push leaves nothing in the cache; docs/push-path.md, step 5).
      byte[] noise = new byte[2 << 20];
      new java.util.Random(11).nextBytes(noise);
      Files.write(work.resolve("noise.bin"), noise);
      gitA.in(work, "add", "plan.txt", "notes.txt", "noise.bin").ok();
      gitA.in(work, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m",
          "refused").ok();
      gitA.in(work, "-c", "user.name=A", "-c", "user.email=a@example.com", "tag", "-a", "-m",
          "refused tag", "a-tag").ok();
      gitA.in(work, "push", "--atomic", "origin", "HEAD:main", "HEAD:refs/heads/a-side",
          "refs/tags/a-tag").failed();
      refused = new Refused(id(gitA, work, "HEAD"), id(gitA, work, "HEAD^{tree}"),
          id(gitA, work, "HEAD:plan.txt"), id(gitA, work, "HEAD:notes.txt"),
          id(gitA, work, "a-tag"));
      try (org.eclipse.jgit.lib.Repository cache =
          new org.eclipse.jgit.internal.storage.file.FileRepository(
              app.get().cacheRepo("acme/widget").toFile())) {
        assertThat(cache.getObjectDatabase().has(refused.plan()))
            .as("the premise: the refused push's objects are in the cache").isTrue();
      }
    }
    return refused;
  }

  private static ObjectId id(GitRun git, Path work, String rev) throws Exception {
    return ObjectId.fromString(git.in(work, "rev-parse", rev).ok().stdout().strip());
  }

  private static String credentialOfANewRun(String workspace) throws Exception {
    return ForgeRefs.credential(app.get().createRun(
        "{\"workspaceId\": \"" + workspace + "\", \"repository\": \"acme/widget\"}"));
  }

  private static Wire.Answer push(String credential, ObjectId newId, PackBytes.Entry... objects)
      throws Exception {
    return Wire.post(app.get(), RECEIVE_PACK, credential, PackBytes.request(
        RawPush.command(ObjectId.zeroId(), newId, "refs/heads/probe"), PackBytes.pack(objects)));
  }

  /** The answer naming {@code held} is the one naming {@code absent}, each id written alike. */
  private static void assertAlike(String what, Wire.Answer held, ObjectId heldId,
      Wire.Answer absent, ObjectId absentId) {
    assertThat(held.status()).as(what).isEqualTo(absent.status());
    assertThat(held.body().replace(heldId.name(), "<id>")).as(what)
        .isEqualTo(absent.body().replace(absentId.name(), "<id>"));
  }

  @Test
  void aRefusedPushsTreeBlobOrTagAsANewIdAnswersAsAnAbsentObject() throws Exception {
    Refused a = refused();
    String credential = credentialOfANewRun("ws-variants-ids");
    Wire.Answer absent = push(credential, NOBODYS);
    for (ObjectId held : List.of(a.tree(), a.plan(), a.tag())) {
      assertAlike("new id " + held.name(), push(credential, held), held, absent, NOBODYS);
    }
  }

  @Test
  void aSentObjectNamingARefusedPushsObjectAnswersAsOneNamingAnAbsentObject() throws Exception {
    Refused a = refused();
    String credential = credentialOfANewRun("ws-variants-walk");
    ObjectId main = ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/main");
    byte[] own = "C's own file\n".getBytes(StandardCharsets.UTF_8);
    PackBytes.Entry ownBlob = PackBytes.object(Constants.OBJ_BLOB, own);
    byte[] ownTree = PackBytes.tree("own.txt", PackBytes.id(Constants.OBJ_BLOB, own));
    ObjectId ownTreeId = PackBytes.id(Constants.OBJ_TREE, ownTree);

    // a commit whose parent is A's commit
    Map<ObjectId, Wire.Answer> onParent = new LinkedHashMap<>();
    for (ObjectId parent : List.of(a.commit(), NOBODYS)) {
      byte[] commit = PackBytes.commit(ownTreeId, parent, "on top of " + parent.name());
      onParent.put(parent, push(credential, PackBytes.id(Constants.OBJ_COMMIT, commit), ownBlob,
          PackBytes.object(Constants.OBJ_TREE, ownTree),
          PackBytes.object(Constants.OBJ_COMMIT, commit)));
    }
    assertAlike("parent", onParent.get(a.commit()), a.commit(), onParent.get(NOBODYS), NOBODYS);

    // a tree naming A's blob, A's tree as a file, A's not-a-.gitmodules blob as .gitmodules
    Map<String, ObjectId> entries = new LinkedHashMap<>();
    entries.put("plan.txt", a.plan());
    entries.put("a-tree-as-file", a.tree());
    entries.put(".gitmodules", a.notes());
    for (var e : entries.entrySet()) {
      Map<ObjectId, Wire.Answer> answers = new LinkedHashMap<>();
      for (ObjectId named : List.of(e.getValue(), NOBODYS)) {
        byte[] tree = PackBytes.tree(e.getKey(), named);
        byte[] commit = PackBytes.commit(PackBytes.id(Constants.OBJ_TREE, tree), main,
            "names " + e.getKey());
        answers.put(named, push(credential, PackBytes.id(Constants.OBJ_COMMIT, commit),
            PackBytes.object(Constants.OBJ_TREE, tree),
            PackBytes.object(Constants.OBJ_COMMIT, commit)));
      }
      assertAlike(e.getKey(), answers.get(e.getValue()), e.getValue(), answers.get(NOBODYS),
          NOBODYS);
    }
  }

  @Test
  void aThinPacksBaseOnlyARefusedPushLeftAnswersAsAnAbsentBase() throws Exception {
    Refused a = refused();
    JsonNode runC = app.get().createRun(
        "{\"workspaceId\": \"ws-variants-thin\", \"repository\": \"acme/widget\"}");
    String credential = ForgeRefs.credential(runC);
    ObjectId main = ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/main");
    byte[] made = "what C's delta makes\n".getBytes(StandardCharsets.UTF_8);
    byte[] tree = PackBytes.tree("made.txt", PackBytes.id(Constants.OBJ_BLOB, made));
    byte[] commit = PackBytes.commit(PackBytes.id(Constants.OBJ_TREE, tree), main, "thin");
    ObjectId commitId = PackBytes.id(Constants.OBJ_COMMIT, commit);
    int planSize = PLAN.getBytes(StandardCharsets.UTF_8).length;
    java.util.function.BiFunction<ObjectId, Integer, Wire.Answer> thin = (base, size) -> {
      try {
        return push(credential, commitId, PackBytes.refDelta(base, size, made),
            PackBytes.object(Constants.OBJ_TREE, tree),
            PackBytes.object(Constants.OBJ_COMMIT, commit));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    };

    Wire.Answer absent = thin.apply(NOBODYS, planSize);
    // The right size (the pack would complete from A's blob), and a wrong one (JGit said "base
    // length incorrect", telling the size of what the cache holds).
    assertAlike("a base of the right size", thin.apply(a.plan(), planSize), a.plan(), absent,
        NOBODYS);
    assertAlike("a base of the wrong size", thin.apply(a.plan(), planSize + 7), a.plan(), absent,
        NOBODYS);
    assertThat(ForgeRefs.of(app.get(), "acme/widget")).doesNotContainKey("refs/heads/probe");

    // A base upstream's branches reach still completes a thin pack, as git's pushes need.
    GitRun gitC = new GitRun(Files.createDirectories(app.dir().resolve("home-thin")),
        ForgeRefs.env(runC));
    gitC.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", "thin").ok();
    String entry = gitC.in(app.dir().resolve("thin"), "ls-tree", "-l", "HEAD").ok().stdout()
        .lines().filter(l -> l.contains(" blob ")).findFirst().orElseThrow();
    String[] fields = entry.split("\\s+");
    Wire.Answer reached = thin.apply(ObjectId.fromString(fields[2]), Integer.parseInt(fields[3]));
    assertThat(reached.status()).isEqualTo(200);
    assertThat(reached.body()).contains("ok refs/heads/probe");
    assertThat(ForgeRefs.of(app.get(), "acme/widget")).containsEntry("refs/heads/probe",
        commitId);
  }
}
