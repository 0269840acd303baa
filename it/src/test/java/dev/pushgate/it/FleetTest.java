package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.RunningAppliance;
import dev.pushgate.testkit.Wait;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two appliances, A and B, as two hosts of a fleet on one PostgreSQL database (a schema of this
 * test's own): a push held on A is answered through B, a run A started is torn down through B,
 * and B lists A's runs. {@code PUSHGATE_TEST_POSTGRES_URL} names the database; without it the
 * test is skipped, except under {@code CI=true}, where it fails.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FleetTest {
  static final String ENV = "PUSHGATE_TEST_POSTGRES_URL";
  private static final String ASK_MAIN = """
      {"workspaceId": "ws", "repository": "acme/widget",
       "rules": {"push": [{"refs": "refs/heads/main", "decision": "ask",
                           "reason": "main needs a human"}]}}""";

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The class's directory, given to @BeforeAll: an instance @TempDir field is set per test. */
  private Path tmp;
  String schema;
  String databaseUrl;
  RunningAppliance a;
  RunningAppliance b;

  @BeforeAll
  void startTwoAppliancesOnOneDatabase(@TempDir Path dir) throws Exception {
    tmp = dir;
    String url = System.getenv(ENV);
    if (url == null || url.isBlank()) {
      if ("true".equals(System.getenv("CI"))) {
        fail(ENV + " is not set under CI=true: .ci/run starts PostgreSQL and sets it");
      }
      assumeTrue(false, ENV + " is not set; the fleet test is skipped");
    }
    schema = "pushgate_fleet_" + UUID.randomUUID().toString().replace("-", "");
    sql("CREATE SCHEMA " + schema);
    databaseUrl = url.strip() + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    a = RunningAppliance.start(tmp.resolve("a"), "--database-url", databaseUrl,
        "--approver-poll-grace", "2s");
    // A fleet shares the ledger key (docs/operations.md): B can revoke what A issued.
    Path bData = Files.createDirectories(tmp.resolve("b"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Files.copy(a.dataDir.resolve("ledger.key"), bData.resolve("ledger.key"),
        StandardCopyOption.COPY_ATTRIBUTES);
    b = RunningAppliance.start(bData, "--database-url", databaseUrl, "--approver-poll-grace", "2s");
    a.forgeCreate("acme/widget");
  }

  @AfterAll
  void stop() throws Exception {
    if (b != null) {
      b.close();
    }
    if (a != null) {
      a.close();
    }
    if (schema != null) {
      sql("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  @Test
  void aPushHeldOnAIsApprovedThroughB() throws Exception {
    Map<String, String> env = RunningAppliance.runEnv(a.createRun(ASK_MAIN));
    Path w = worktree(env, "approved-on-b", "main");
    // The only approver watches B's stream, and answers with B's CLI.
    try (ApprovalStream events = ApprovalStream.connect(b.dataDir)) {
      Wait.until(Duration.ofSeconds(30), "A to count B's approver as connected",
          () -> a.control().get("/v1/approvals").body().get("approverConnected").asBoolean());

      ApprovalFlowTest.LivePush push = ApprovalFlowTest.LivePush.start(w, tmp.resolve("home"),
          env, "push", "origin", "main");
      push.awaitStderr("waiting for approval of update refs/heads/main");
      String line;
      while ((line = events.readLine()) != null && !line.equals("event: question")) {
        // keepalives and the ends of other questions
      }
      assertThat(line).as("B's stream shows A's question").isEqualTo("event: question");
      JsonNode question = JSON.readTree(events.readLine().substring("data: ".length()));
      assertThat(question.get("summary").asText()).startsWith("update refs/heads/main of acme/widget");
      String id = question.get("id").asText();
      assertThat(RunningAppliance.cli("approvals", "--data-dir", b.dataDir.toString()))
          .contains(id);
      RunningAppliance.cli("approvals", "answer", id, "allow", "--by", "bob",
          "--data-dir", b.dataDir.toString());

      assertThat(push.finish()).as(push.stderr()).isZero();
      assertThat(forgeRef("refs/heads/main")).isEqualTo(head(env, w));
    }

    // A's audit says who answered; B reads the same audit, A's chain included.
    for (RunningAppliance app : new RunningAppliance[] {a, b}) {
      JsonNode audit = app.control().get("/v1/audit?decision=allowed").body();
      assertThat(audit.get("decisions")).anySatisfy(d -> {
        assertThat(d.get("ref").asText()).isEqualTo("refs/heads/main");
        assertThat(d.get("reason").asText()).isEqualTo("main needs a human (approved by bob)");
      });
    }
    // The answered question is gone from both appliances' lists.
    assertThat(b.control().get("/v1/approvals").body().get("questions")).isEmpty();
    assertThat(a.control().get("/v1/approvals").body().get("questions")).isEmpty();
  }

  @Test
  void aRunStartedOnAAndTornDownThroughBIsRefusedOnA() throws Exception {
    JsonNode run = a.createRun("{\"workspaceId\": \"ws\", \"repository\": \"acme/widget\"}");
    String runId = run.get("runId").asText();
    Map<String, String> env = RunningAppliance.runEnv(run);
    Path w = worktree(env, "torn-down-on-b", "feature/fleet");
    git(env).in(w, "push", "origin", "feature/fleet").ok();
    String landed = forgeRef("refs/heads/feature/fleet");

    // B lists A's run, in its control API and its CLI.
    assertThat(b.control().get("/v1/runs").body().get("runs"))
        .anySatisfy(r -> assertThat(r.get("runId").asText()).isEqualTo(runId));
    assertThat(RunningAppliance.cli("runs", "--data-dir", b.dataDir.toString())).contains(runId);

    // What an agent could keep of its run: the git config, with the gateway credential in it
    // (the teardown removes the run's own copy).
    Path kept = tmp.resolve("kept-gitconfig");
    Files.copy(Path.of(env.get("GIT_CONFIG_GLOBAL")), kept);
    Map<String, String> keptEnv = Map.of("GIT_CONFIG_GLOBAL", kept.toString(),
        "GH_TOKEN", env.get("GH_TOKEN"));
    assertThat(b.control().delete("/v1/runs/" + runId).status()).isEqualTo(200);

    // At once, whether or not A heard of it yet: A reads the run's row on every request.
    commit(keptEnv, w, "after teardown");
    GitRun.Result refused = git(keptEnv).in(w, "push", "origin", "feature/fleet").failed();
    // The gateway answered 401: git, which may not prompt, asks for a user name it cannot get.
    assertThat(refused.stderr()).contains("could not read Username");
    assertThat(forgeRef("refs/heads/feature/fleet")).isEqualTo(landed);
    Wait.until(Duration.ofSeconds(30), "A to end the run B tore down",
        () -> listed(a, runId) == false);
    assertThat(listed(b, runId)).isFalse();
  }

  @Test
  void theQuestionsOfAnApplianceThatDiesAreWithdrawnNeverAllowed() throws Exception {
    // An appliance of its own, C, so that killing it leaves A and B to the other tests.
    try (RunningAppliance c = RunningAppliance.start(tmp.resolve("c"), "--database-url",
        databaseUrl,
        "--approver-poll-grace", "2s")) {
      c.forgeCreate("acme/widget");
      Map<String, String> env = RunningAppliance.runEnv(c.createRun(ASK_MAIN));
      Path w = worktree(env, "held-on-c", "main");
      Thread approver = longPoll(b);
      Wait.until(Duration.ofSeconds(30), "C to count B's approver as connected",
          () -> c.control().get("/v1/approvals").body().get("approverConnected").asBoolean());
      ApprovalFlowTest.LivePush push = ApprovalFlowTest.LivePush.start(w, tmp.resolve("home"),
          env, "push", "origin", "main");
      push.awaitStderr("waiting for approval of update refs/heads/main");
      String id = Wait.forPresent(Duration.ofSeconds(30), "B to list C's question", () -> {
        JsonNode q = b.control().get("/v1/approvals").body().get("questions");
        return q.size() > 0 ? java.util.Optional.of(q.get(0).get("id").asText())
            : java.util.Optional.empty();
      });

      c.kill9();
      assertThat(push.finish()).isNotZero();
      Wait.until(Duration.ofSeconds(60), "B to stop listing the question of a dead appliance",
          () -> b.control().get("/v1/approvals").body().get("questions").isEmpty());
      assertThat(b.control().post("/v1/approvals/" + id, "{\"decision\": \"allow\"}").status())
          .isEqualTo(404);
      approver.interrupt();
    }
  }

  /** Keeps an approver counted on {@code app} (a long poll, again and again) until interrupted. */
  private static Thread longPoll(RunningAppliance app) {
    Thread t = new Thread(() -> {
      try {
        while (!Thread.currentThread().isInterrupted()) {
          app.control().get("/v1/approvals?wait=2");
        }
      } catch (Exception e) {
        // the test is over
      }
    });
    t.setDaemon(true);
    t.start();
    return t;
  }

  // --- fixtures ---

  private static boolean listed(RunningAppliance app, String runId) throws Exception {
    for (JsonNode r : app.control().get("/v1/runs").body().get("runs")) {
      if (r.get("runId").asText().equals(runId)) {
        return true;
      }
    }
    return false;
  }

  private GitRun git(Map<String, String> env) throws Exception {
    return new GitRun(Files.createDirectories(tmp.resolve("home")), env);
  }

  /** A clone of acme/widget (through A) on {@code branch}, with one new commit. */
  private Path worktree(Map<String, String> env, String name, String branch)
      throws Exception {
    git(env).in(tmp, "clone", "-q", "https://github.com/acme/widget.git", name).ok();
    Path w = tmp.resolve(name);
    if (!branch.equals("main")) {
      git(env).in(w, "checkout", "-qb", branch).ok();
    }
    commit(env, w, name);
    return w;
  }

  private void commit(Map<String, String> env, Path w, String what) throws Exception {
    Files.writeString(w.resolve(what.replace(' ', '-') + ".txt"), what + "\n");
    git(env).in(w, "add", ".").ok();
    git(env).in(w, "commit", "-qm", what).ok();
  }

  private String head(Map<String, String> env, Path w) throws Exception {
    return git(env).in(w, "rev-parse", "HEAD").ok().stdout().strip();
  }

  private String forgeRef(String ref) throws Exception {
    try (Repository r = new FileRepository(a.forgeRepo("acme/widget").toFile())) {
      Ref found = r.exactRef(ref);
      return found == null ? null : found.getObjectId().name();
    }
  }

  /** Runs {@code statement} as the test's database user (the URL's {@code postgresql://} form). */
  private static void sql(String statement) throws SQLException {
    URI u = URI.create(System.getenv(ENV).strip().replaceFirst("^postgres(ql)?://", "http://"));
    String user = null;
    String password = null;
    if (u.getRawUserInfo() != null) {
      String[] parts = u.getRawUserInfo().split(":", 2);
      user = URLDecoder.decode(parts[0], StandardCharsets.UTF_8);
      password = parts.length > 1 ? URLDecoder.decode(parts[1], StandardCharsets.UTF_8) : null;
    }
    String jdbc = "jdbc:postgresql://" + u.getHost() + (u.getPort() < 0 ? "" : ":" + u.getPort())
        + u.getRawPath();
    try (Connection c = DriverManager.getConnection(jdbc, user, password);
        Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }
}
