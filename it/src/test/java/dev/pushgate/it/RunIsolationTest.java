package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.gateway.api.ApiSentinel;
import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.GitRun;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevWalk;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Isolation between runs. Run A (acme/widget, main denied), run B (acme/other) and run C
 * (acme/widget, everything allowed) share one appliance. A's credential reaches neither B's
 * repository nor anything of the control API; objects A pushed and was refused cannot be claimed
 * by C, which may push anywhere in the same repository.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunIsolationTest {
  private static final String AUTH_FAILED =
      "Authentication failed: the run credential is unknown, expired or revoked.\n";

  @RegisterExtension
  static final ApplianceExtension app = ApplianceExtension.serving()
      .withRepos("acme/widget", "acme/other");

  private JsonNode runA;
  private JsonNode runB;
  private JsonNode runC;
  private GitRun gitA;
  private Path workA;

  @BeforeAll
  void start() throws Exception {
    runA = app.get().createRun("""
        {"workspaceId": "ws-a", "repository": "acme/widget",
         "rules": {"push": [{"refs": "refs/heads/main", "decision": "deny",
                             "reason": "push to main is denied"}]}}""");
    runB = app.get().createRun("{\"workspaceId\": \"ws-b\", \"repository\": \"acme/other\"}");
    runC = app.get().createRun("{\"workspaceId\": \"ws-c\", \"repository\": \"acme/widget\"}");
    gitA = new GitRun(Files.createDirectories(app.dir().resolve("home")), ForgeRefs.env(runA));
    gitA.in(app.dir(), "clone", "-q", "https://github.com/acme/widget.git", "a").ok();
    workA = app.dir().resolve("a");
  }

  @Test
  void aRunsCredentialCannotPushToAnotherRunsRepository() throws Exception {
    Map<String, ObjectId> other = ForgeRefs.of(app.get(), "acme/other");
    gitA.in(workA, "remote", "add", "other", "https://github.com/acme/other.git").ok();
    GitRun.Result r = gitA.in(workA, "push", "other", "HEAD:refs/heads/from-a").failed();
    assertThat(r.stderr()).contains("remote: Control Center policy: acme/other is neither this"
        + " run's repository nor attached to its workspace");

    String credentialA = ForgeRefs.credential(runA);
    for (String suffix : List.of("/info/refs?service=git-receive-pack", "/git-receive-pack")) {
      String path = "/git/github.com/acme/other.git" + suffix;
      Wire.Answer a = suffix.startsWith("/info") ? Wire.get(app.get(), path, credentialA)
          : Wire.post(app.get(), path, credentialA, PackBytes.request(RawPush.command(
              ObjectId.zeroId(), other.get("refs/heads/main"), "refs/heads/from-a"),
              RawPush.emptyPack()));
      assertThat(a.status()).as(path).isEqualTo(403);
      assertThat(a.body()).as(path).isEqualTo("Control Center policy: acme/other is neither this"
          + " run's repository nor attached to its workspace\n");
    }
    assertThat(ForgeRefs.of(app.get(), "acme/other")).isEqualTo(other);

    // Nor does A hold anything that reads upstream: its GH_TOKEN is the sentinel of its API
    // boundary, which the forge refuses for B's repository and for A's own alike.
    String tokenA = runA.get("env").get("GH_TOKEN").asText();
    assertThat(tokenA).startsWith(ApiSentinel.PREFIX);
    for (String repo : List.of("acme/other", "acme/widget")) {
      assertThat(Forge.fetchStatus(app.get(), repo, tokenA)).as(repo).isEqualTo(401);
    }

    // Near misses of a credential are nobody's.
    String near = credentialA.substring(0, credentialA.length() - 1)
        + (credentialA.endsWith("A") ? "B" : "A");
    for (String credential : new String[] {near, "", ForgeRefs.credential(runB) + "x"}) {
      Wire.Answer a = Wire.get(app.get(), "/git/github.com/acme/widget.git/info/refs"
          + "?service=git-receive-pack", credential.isEmpty() ? null : credential);
      assertThat(a.status()).isEqualTo(401);
      assertThat(a.body()).isEqualTo(AUTH_FAILED);
    }
  }

  @Test
  void theRunFacingPortsServeNoControlEndpoint() throws Exception {
    String credentialA = ForgeRefs.credential(runA);
    String idB = runB.get("runId").asText();
    List<String[]> requests = List.of(new String[] {"GET", "/v1/runs"},
        new String[] {"GET", "/v1/runs/" + idB}, new String[] {"DELETE", "/v1/runs/" + idB},
        new String[] {"POST", "/v1/runs"}, new String[] {"GET", "/v1/audit"},
        new String[] {"GET", "/v1/audit?runId=" + idB}, new String[] {"GET", "/v1/audit/settled"},
        new String[] {"GET", "/v1/approvals"},
        new String[] {"GET", "/v1/approvals/stream"}, new String[] {"POST", "/v1/terminals"},
        new String[] {"POST", "/v1/approvals/q-1"}, new String[] {"GET", "/v1/run/credential/"
            + idB},
        // Once a run's read token in git's helper format; a run holds no GitHub token now.
        new String[] {"GET", "/v1/run/credential"});
    Path sandboxSocket = runA.path("gateway").hasNonNull("socket")
        ? Path.of(runA.get("gateway").get("socket").asText()) : null;
    for (String[] req : requests) {
      byte[] body = req[0].equals("POST") ? ("{\"workspaceId\": \"x\", \"repository\":"
          + " \"acme/other\", \"decision\": \"allow\"}").getBytes(StandardCharsets.UTF_8) : null;
      String what = req[0] + " " + req[1];
      Wire.Answer withCredential =
          Wire.tcp(app.get().port(), req[0], req[1], credentialA, "application/json", body);
      assertThat(withCredential.status()).as(what).isEqualTo(404);
      assertThat(withCredential.body()).as(what).isEqualTo("no such endpoint\n");
      Wire.Answer without = Wire.tcp(app.get().port(), req[0], req[1], null, "application/json",
          body);
      assertThat(without.status()).as(what).isEqualTo(401);
      assertThat(without.body()).as(what).isEqualTo(AUTH_FAILED);
      if (sandboxSocket != null) {
        Wire.Answer viaSocket = Wire.unix(sandboxSocket, req[0], req[1], credentialA, body);
        assertThat(viaSocket.status()).as("sandbox socket: " + what).isEqualTo(404);
      }
    }
    // B is untouched, and the control API is a socket only the appliance's user can open.
    assertThat(app.get().control().get("/v1/runs/" + idB).body().get("state").asText())
        .isEqualTo("live");
    assertThat(PosixFilePermissions.toString(
        Files.getPosixFilePermissions(app.get().dataDir.resolve("control.sock"))))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(app.get().dataDir)))
        .isEqualTo("rwx------");

    // What the port shows everyone names no run, repository or workspace.
    String metrics = Wire.tcp(app.get().port(), "GET", "/metrics", null, null, null).body();
    for (JsonNode run : List.of(runA, runB, runC)) {
      assertThat(metrics).doesNotContain(run.get("runId").asText());
    }
    assertThat(metrics).doesNotContain("acme/").doesNotContain("ws-a").doesNotContain("ws-b");
  }

  @Test
  void objectsOneRunPushedAndWasRefusedCannotBeClaimedByAnother() throws Exception {
    Files.writeString(workA.resolve("secret-plan.txt"), "refused work of run A\n");
    // Past what a push may hold in memory (docs/push-path.md: a small push's pack is written to
    // the cache only once upstream took it, so a small refused one leaves nothing to claim).
    byte[] noise = new byte[2 << 20];
    new java.util.Random(7).nextBytes(noise);
    Files.write(workA.resolve("noise.bin"), noise);
    gitA.in(workA, "add", "secret-plan.txt", "noise.bin").ok();
    gitA.in(workA, "commit", "-q", "-m", "A's refused commit").ok();
    ObjectId refused =
        ObjectId.fromString(gitA.in(workA, "rev-parse", "HEAD").ok().stdout().strip());
    // Atomic with an allowed ref, so that the gateway receives the pack before refusing it all (a
    // push of denied refs only is refused before its pack is read, and leaves nothing behind).
    assertThat(gitA.in(workA, "push", "--atomic", "origin", "HEAD:main", "HEAD:refs/heads/a-side")
        .failed().stderr()).contains("(Control Center policy: push to main is denied)");
    // The premise: A's objects now sit in the gateway's cache of acme/widget, unreferenced (a
    // pack too large to hold in memory is stored as it arrives).
    try (Repository cache = new FileRepository(
        app.get().dataDir.resolve("cache/acme/widget.git").toFile())) {
      assertThat(cache.getObjectDatabase().has(refused)).isTrue();
    }

    String credentialC = ForgeRefs.credential(runC);
    String receivePack = "/git/github.com/acme/widget.git/git-receive-pack";
    assertThat(Wire.get(app.get(), "/git/github.com/acme/widget.git/info/refs"
        + "?service=git-receive-pack", credentialC).status()).isEqualTo(200);
    // C names A's commit without sending it.
    Wire.Answer claim = Wire.post(app.get(), receivePack, credentialC, PackBytes.request(
        RawPush.command(ObjectId.zeroId(), refused, "refs/heads/stolen"), RawPush.emptyPack()));
    assertThat(claim.status()).isEqualTo(400);
    // As an object nobody has: nothing says the cache holds it (RefusedPushObjectsLookAbsentTest).
    assertThat(claim.body()).isEqualTo(RawPush.ABSENT_OBJECTS);

    // C sends a commit of its own on top of A's, as a thin pack that leaves A's out.
    ObjectId tree;
    try (Repository cache = new FileRepository(
            app.get().dataDir.resolve("cache/acme/widget.git").toFile());
        RevWalk walk = new RevWalk(cache)) {
      tree = walk.parseCommit(refused).getTree().getId();
    }
    byte[] child = PackBytes.commit(tree, refused, "C builds on A's refused work");
    Wire.Answer onTop = Wire.post(app.get(), receivePack, credentialC, PackBytes.request(
        RawPush.command(ObjectId.zeroId(), PackBytes.id(Constants.OBJ_COMMIT, child),
            "refs/heads/stolen"), PackBytes.pack(PackBytes.object(Constants.OBJ_COMMIT, child))));
    assertThat(onTop.status()).isEqualTo(400);
    assertThat(onTop.body()).isEqualTo(RawPush.ABSENT_OBJECTS);

    assertThat(ForgeRefs.of(app.get(), "acme/widget")).doesNotContainKey("refs/heads/stolen");
    JsonNode audit = app.get().control().get("/v1/audit?runId="
        + runC.get("runId").asText()).body();
    // Both claims are audited as what they were: commands read, a pack that did not parse,
    // nothing forwarded (docs/push-path.md, step 7).
    assertThat(audit.get("decisions")).hasSize(2).allSatisfy(d -> {
      assertThat(d.get("ref").asText()).isEqualTo("refs/heads/stolen");
      assertThat(d.get("decision").asText()).isEqualTo("denied");
      assertThat(d.get("code").asText()).isEqualTo("INVALID_COMMAND");
      assertThat(d.get("reason").asText())
          .isEqualTo(RawPush.ABSENT_OBJECTS.strip() + "; nothing was pushed");
      assertThat(d.get("outcome").asText()).isEqualTo("not forwarded");
    });
  }
}
