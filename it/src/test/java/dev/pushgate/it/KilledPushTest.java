package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.TreeFormatter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A git client killed while its push is judged: the judgement is abandoned within seconds (not
 * at the end of its 3-minute budget), its run's judgement slot is free for the next push, the
 * audit says why, and nothing reaches the forge.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KilledPushTest {
  private static final String RUN = """
      {"workspaceId": "ws-killed", "mode": "chat", "repository": "acme/widget"}""";
  /** Files each commit swaps between two contents: nothing new to scan, all of it to walk. */
  private static final int FILES = 20_000;
  /** Commits of the slow push: judged for minutes on a quiet machine, within the budget. */
  private static final int COMMITS = 2_000;

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving().withRepos("acme/widget");

  private JsonNode run;
  private GitRun git;
  private Path work;

  @BeforeAll
  void start() throws Exception {
    run = app.get().createRun(RUN);
    git = new GitRun(Files.createDirectories(app.dir().resolve("home")),
        RunningAppliance.runEnv(run));
    git.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", "widget").ok();
    work = app.dir().resolve("widget");
  }

  @Test
  void aKilledGitsJudgementIsAbandonedItsSlotFreedAndNothingLands() throws Exception {
    ObjectId slow = swappingHistory(work.resolve(".git"), "refs/heads/slow", "swap ");
    Path out = app.dir().resolve("push.out");
    Path err = app.dir().resolve("push.err");
    Process push = git.start(work, out, err, "push", "origin", "slow");

    // The pack has arrived in the gateway's copy of the repository: it is being judged.
    Wait.until(Duration.ofSeconds(120), "the slow push's pack to reach the gateway",
        () -> received(slow));
    killWithItsHelpers(push);

    Wait.until(Duration.ofSeconds(60), "the killed push's judgement to be audited as abandoned",
        () -> !auditOf("refs/heads/slow", runId()).isEmpty());
    assertThat(auditOf("refs/heads/slow", runId())).singleElement().satisfies(d -> {
      assertThat(d.get("decision").asText()).isEqualTo("denied");
      assertThat(d.get("code").asText()).isEqualTo("ABANDONED");
      assertThat(d.get("reason").asText()).isEqualTo("judgement abandoned: the client closed its"
          + " connection; nothing was pushed, push again");
    });
    assertThat(app.get().logText()).contains("push to acme/widget not judged further, judgement"
        + " abandoned: the client closed its connection");
    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/slow")).isNull();

    // The run has one judgement slot on this machine's share: the next push takes it at once
    // (on a slot still held it would wait 60 s, then be refused as JUDGE_BUSY).
    // Sent chunked (a pack larger than git's post buffer): the judgement's look at the
    // connection reads the end of that body and leaves the answer intact.
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < 4_000; i++) {
      lines.append("after ").append(i * 7919L % 104_729).append('\n');
    }
    Files.writeString(work.resolve("after.txt"), lines);
    git.in(work, "add", "after.txt").ok();
    git.in(work, "commit", "-q", "-m", "after the killed push").ok();
    git.in(work, "-c", "http.postBuffer=1024", "push", "-q", "origin", "HEAD:refs/heads/after")
        .ok();
    ObjectId head = ObjectId.fromString(git.in(work, "rev-parse", "HEAD").ok().stdout().strip());
    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/after")).isEqualTo(head);
    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/slow")).isNull();
  }

  /**
   * The same inside {@code pushgate exec}: git talks to the gateway through the sandbox's bridge
   * (socat, then the gateway's Unix socket), and git killed in there closes the bridge's
   * connection to the gateway too, so its judgement is abandoned the same way.
   */
  @Test
  void aGitKilledInsidePushgateExecClosesTheBridgesConnectionAndItsJudgementIsAbandoned()
      throws Exception {
    Path inside = app.dir().resolve("exec-widget");
    git.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", inside.toString()).ok();
    ObjectId slow = swappingHistory(inside.resolve(".git"), "refs/heads/slow-exec", "exec ");
    // The sandbox's own user works in the clone: it may pass through the test's directory.
    Files.setPosixFilePermissions(app.dir(), java.nio.file.attribute.PosixFilePermissions
        .fromString("rwx--x--x"));
    Process chmod = new ProcessBuilder("chmod", "-R", "a+rwX", inside.toString()).start();
    assertThat(chmod.waitFor()).isZero();
    PushgateExec.Started exec = PushgateExec.on(app.get().dataDir, app.dir().resolve("exec-home"))
        .withDenyLayer().start(inside, Map.of(), "--workdir", inside.toString(), "--", "sh", "-c",
            "git push origin slow-exec; echo git ended");

    try {
      Wait.until(Duration.ofSeconds(180), "the push from inside the sandbox to reach the gateway",
          () -> received(slow) || !exec.process().isAlive());
    } finally {
      assertThat(received(slow)).as(() -> "exec's output:\n" + read(exec.out()) + read(exec.err()))
          .isTrue();
    }
    List<ProcessHandle> gits = exec.process().descendants()
        .filter(p -> p.info().command().map(c -> Path.of(c).getFileName().toString())
            .filter(name -> name.startsWith("git")).isPresent())
        .toList();
    assertThat(gits).as("git and its remote helper inside the sandbox").isNotEmpty();
    kill(gits);

    Wait.until(Duration.ofSeconds(60), "the killed push's judgement to be audited as abandoned",
        () -> !auditOf("refs/heads/slow-exec", null).isEmpty());
    assertThat(auditOf("refs/heads/slow-exec", null)).singleElement().satisfies(d -> {
      assertThat(d.get("code").asText()).isEqualTo("ABANDONED");
      assertThat(d.get("reason").asText()).startsWith("judgement abandoned: the client closed");
    });
    PushgateExec.Result ended = PushgateExec.finish(exec);
    assertThat(ended.stdout()).as(ended.stderr()).isEqualTo("git ended\n");
    assertThat(ForgeRefs.ref(app.get(), "acme/widget", "refs/heads/slow-exec")).isNull();
  }

  /** SIGKILL for git and the remote helper it started, which holds the connection. */
  private void killWithItsHelpers(Process git) throws Exception {
    List<ProcessHandle> all = new ArrayList<>(git.descendants().toList());
    all.add(git.toHandle());
    kill(all);
  }

  private void kill(List<ProcessHandle> all) throws Exception {
    all.forEach(ProcessHandle::destroyForcibly);
    for (ProcessHandle p : all) {
      p.onExit().get();
    }
  }

  private String read(Path file) {
    try {
      return PushgateExec.read(file);
    } catch (Exception e) {
      return e.toString();
    }
  }

  private boolean received(ObjectId id) throws Exception {
    try (Repository cache = new FileRepository(app.get().cacheRepo("acme/widget").toFile())) {
      return cache.getObjectDatabase().has(id);
    }
  }

  /**
   * {@link #COMMITS} commits on top of main, each swapping {@link #FILES} files between two
   * contents (a few hundred KiB of pack, minutes of tree walking), at {@code ref}; with a file of
   * 2 MiB that does not deflate, so that the pack is stored in the cache as it arrives, where the
   * test sees it, not held in memory (docs/push-path.md, step 5).
   */
  private ObjectId swappingHistory(Path gitDir, String ref, String message)
      throws Exception {
    try (Repository db = new FileRepository(gitDir.toFile());
        ObjectInserter ins = db.newObjectInserter()) {
      // Contents of its own per history: no verdict the gateway cached for another applies.
      ObjectId one = ins.insert(Constants.OBJ_BLOB, (message + "one\n").getBytes());
      ObjectId two = ins.insert(Constants.OBJ_BLOB, (message + "two\n").getBytes());
      byte[] noise = new byte[2 << 20];
      new java.util.Random(message.hashCode()).nextBytes(noise);
      ObjectId big = ins.insert(Constants.OBJ_BLOB, noise);
      ObjectId even = tree(ins, one, two, big);
      ObjectId odd = tree(ins, two, one, big);
      ObjectId parent = db.resolve("refs/heads/main");
      PersonIdent who = new PersonIdent("Agent", "agent@example.com");
      for (int i = 0; i < COMMITS; i++) {
        CommitBuilder c = new CommitBuilder();
        c.setTreeId(i % 2 == 0 ? even : odd);
        c.setParentId(parent);
        c.setAuthor(who);
        c.setCommitter(who);
        c.setMessage(message + i);
        parent = ins.insert(c);
      }
      ins.flush();
      RefUpdate u = db.updateRef(ref);
      u.setNewObjectId(parent);
      u.forceUpdate();
      return parent;
    }
  }

  private ObjectId tree(ObjectInserter ins, ObjectId first, ObjectId second, ObjectId noise)
      throws Exception {
    Map<String, ObjectId> files = new TreeMap<>();
    files.put("noise.bin", noise);
    for (int i = 0; i < FILES; i++) {
      files.put("f" + i + ".txt", i % 2 == 0 ? first : second);
    }
    TreeFormatter t = new TreeFormatter();
    files.forEach((name, id) -> t.append(name, org.eclipse.jgit.lib.FileMode.REGULAR_FILE, id));
    return ins.insert(t);
  }

  private String runId() {
    return run.get("runId").asText();
  }

  /** The audit's decisions on {@code ref}, of {@code runId} or of every run. */
  private List<JsonNode> auditOf(String ref, String runId) throws Exception {
    JsonNode all = app.get().control().get("/v1/audit" + (runId == null ? "" : "?runId=" + runId))
        .body();
    List<JsonNode> out = new ArrayList<>();
    all.get("decisions").forEach(d -> {
      if (ref.equals(d.path("ref").asText())) {
        out.add(d);
      }
    });
    return out;
  }
}
