package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.testkit.GitRun;
import dev.pushgate.testkit.Cli;
import dev.pushgate.testkit.Cli.Result;
import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What an operator runs: runs, audit (live and from a stopped appliance), config check. */
class OperatorCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  @Test
  void runsAndAuditWorkWhileRunningAndAuditAfterwards() throws Exception {
    Path data = tmp.resolve("data");
    Path sink = tmp.resolve("audit.jsonl");
    String runId;
    try (RunningAppliance app = RunningAppliance.start(data, "--audit-file", sink.toString())) {
      app.forgeCreate("acme/widget");
      JsonNode run = app.createRun("""
          {"workspaceId": "ws-ops", "repository": "acme/widget", "mode": "chat",
           "rules": {"push": [{"refs": "refs/heads/main", "decision": "deny",
                               "reason": "push to main is denied"}]}}""");
      runId = run.get("runId").asText();
      GitRun git = new GitRun(Files.createDirectories(tmp.resolve("home")),
          RunningAppliance.runEnv(run));
      Path w = Clones.withOneCommit(git, tmp, "acme/widget", "x\n", "x");
      git.in(w, "push", "origin", "main:feature").ok();
      git.in(w, "push", "origin", "main").failed();

      String runs = RunningAppliance.cli("runs", "--data-dir", data.toString());
      assertThat(runs).contains("RUN").contains(runId).contains("acme/widget").contains("chat")
          .doesNotContain("ghs_").doesNotContain("pgr_");
      assertThat(runs.lines().findFirst().orElseThrow()).contains("BACKEND", "STARTED", "EXPIRES");
      assertThat(runs).containsPattern("\\(in \\d+[smhd]\\)");
      List<JsonNode> runsJson = jsonLines(RunningAppliance.cli("runs", "--json", "--data-dir",
          data.toString()));
      assertThat(runsJson).singleElement().satisfies(n -> {
        assertThat(n.get("runId").asText()).isEqualTo(runId);
        assertThat(n.get("backend").isTextual()).isTrue();
      });
      assertThat(RunningAppliance.cli("approvals", "--json", "--data-dir", data.toString()))
          .isEmpty();

      String table = RunningAppliance.cli("audit", "--refused", "--data-dir", data.toString());
      assertThat(table.lines().findFirst().orElseThrow())
          .startsWith("TIME").contains("REPOSITORY").contains("DECISION");
      assertThat(table).containsPattern(
          "acme/widget +main +update-or-force +denied +RULE_DENIED +push to main is denied");
      assertThat(table).containsPattern("(?m)^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ ");
      assertThat(table).doesNotContain("feature");

      List<JsonNode> live = jsonLines(RunningAppliance.cli("audit", "--json", "--run", runId,
          "--decisions", "--data-dir", data.toString()));
      assertThat(live).hasSize(2);
      assertThat(live).extracting(n -> n.get("ref").asText())
          .containsExactlyInAnyOrder("refs/heads/feature", "refs/heads/main");

      assertThat(RunningAppliance.cli("runs", "stop", runId, "--data-dir", data.toString()))
          .startsWith(runId + " ended: ");
      assertThat(RunningAppliance.cli("runs", "--data-dir", data.toString())).contains("no live run");
    }
    // The appliance is stopped: the audit is read from its database.
    List<JsonNode> stopped = jsonLines(RunningAppliance.cli("audit", "--refused", "--json",
        "--since", "1h", "--data-dir", data.toString()));
    assertThat(stopped).singleElement().satisfies(n -> {
      assertThat(n.get("runId").asText()).isEqualTo(runId);
      assertThat(n.get("code").asText()).isEqualTo("RULE_DENIED");
    });
    checkTheChain(data, sink, runId);
  }

  /** The chain the appliance wrote verifies, the run's timeline is whole, the sink has it all. */
  private void checkTheChain(Path data, Path sink, String runId) throws Exception {
    String intact = RunningAppliance.cli("audit", "verify", "--data-dir", data.toString());
    String host = Files.readString(data.resolve("host.id")).strip();
    assertThat(intact).matches("audit chain intact: \\d+ records \\(hosts: " + host + "\\)\n");
    long records = Long.parseLong(intact.replaceAll("\\D+(\\d+) records[\\s\\S]*", "$1"));
    assertThat(Files.readAllLines(sink)).hasSize((int) records);

    List<JsonNode> timeline = jsonLines(RunningAppliance.cli("audit", "--run", runId,
        "--json", "--data-dir", data.toString()));
    List<String> types = timeline.stream().map(n -> n.get("record_type").asText()).toList();
    assertThat(types.get(0)).isEqualTo("token-issued");
    assertThat(types).contains("push", "push-outcome", "token-revoked");
    assertThat(types.indexOf("push-outcome")).isGreaterThan(types.indexOf("push"));
    assertThat(timeline.toString()).doesNotContain("ghs_").doesNotContain("pgr_");

    try (java.sql.Connection c = java.sql.DriverManager.getConnection(
        "jdbc:sqlite:" + data.resolve("pushgate.db"));
        java.sql.Statement s = c.createStatement()) {
      s.executeUpdate("UPDATE audit SET decision = 'allowed' WHERE decision = 'denied'");
    }
    Result broken = run(Map.of(), "audit", "verify", "--data-dir", data.toString());
    assertThat(broken.exit()).isEqualTo(3);
    assertThat(broken.out()).startsWith("audit chain broken at record ")
        .contains("(host " + host + ", seq ").endsWith("): hash mismatch\n");
  }

  @Test
  void configPrecedenceIsFlagsThenEnvironmentThenFileThenDefaults() throws Exception {
    Path data = Files.createDirectories(tmp.resolve("cfg"));
    Files.writeString(data.resolve("pushgate.yaml"), """
        port: 7171
        run-ttl: 2h
        github:
          api-url: https://ghe.example.com/api/v3
        database-url: postgresql://pushgate:s3cret-password@127.0.0.1:5432/pushgate
        """);
    Result r = run(Map.of("PUSHGATE_RUN_TTL", "3h"), "config", "check", "--data-dir", data.toString());
    assertThat(r.exit()).isZero();
    assertThat(r.out()).containsPattern("port: +7171 +# file");
    assertThat(r.out()).containsPattern("run-ttl: +3h +# env");
    assertThat(r.out()).containsPattern("github-api-url: +https://ghe.example.com/api/v3 +# file");
    assertThat(r.out()).containsPattern("bind: +127.0.0.1 +# default");
    assertThat(r.out()).doesNotContain("s3cret-password");

    Files.writeString(data.resolve("pushgate.yaml"), "port: 7171\nbogus-key: 1\n");
    Result bad = run(Map.of(), "config", "check", "--data-dir", data.toString());
    assertThat(bad.exit()).isNotZero();
    assertThat(bad.out()).contains("unknown key bogus-key");
    Result serve = run(Map.of(), "serve", "--data-dir", data.toString());
    assertThat(serve.exit()).isNotZero();
    assertThat(serve.out()).contains("unknown key bogus-key");
  }

  @Test
  void webhooksFromTheEnvironmentAreCheckedAndShownWithoutTheirUrlsOrSecrets() throws Exception {
    Path data = Files.createDirectories(tmp.resolve("hooks"));
    Result r = run(Map.of("PUSHGATE_WEBHOOKS", "[{\"url\": \"https://hooks.slack.com/services/"
        + "T0/B0/env-secretpath\", \"format\": \"slack\", \"secret\": \"env-key-s3cret\"}]"),
        "config", "check", "--data-dir", data.toString());
    assertThat(r.exit()).as(r.out()).isZero();
    assertThat(r.out()).containsPattern(
        "webhooks: +slack https://hooks.slack.com/\\*\\*\\* \\(signed\\) +# env")
        .doesNotContain("env-secretpath").doesNotContain("env-key-s3cret");

    Result bad = run(Map.of("PUSHGATE_WEBHOOKS",
        "[{\"url\": \"http://hooks.example.com/env-secretpath\"}]"), "serve", "--data-dir",
        data.toString());
    assertThat(bad.exit()).isNotZero();
    assertThat(bad.out()).contains("webhook 1: plain http is allowed only to a loopback address")
        .doesNotContain("env-secretpath").doesNotContain("Exception");
  }

  /**
   * Every form a database URL takes, from the environment and from the file, in config check's
   * listing and in the errors of config check, serve and audit: no part of the password shows.
   */
  @Test
  void noFormOfADatabaseUrlShowsItsPasswordInAnyMessage() throws Exception {
    Path data = Files.createDirectories(tmp.resolve("db-forms"));
    String secret = "hun@ter2&S3cret";
    String enc = "hun%40ter2%26S3cret";
    Map<String, String> good = Map.of(
        "postgresql://pushgate:" + enc + "@db.internal:5432/pushgate",
        "postgresql://pushgate:***@db.internal:5432/pushgate",
        "postgres://db.internal/pushgate?user=pushgate&password=" + enc + "&sslmode=require",
        "postgresql://pushgate:***@db.internal/pushgate?sslmode=require",
        "jdbc:postgresql://db.internal:5432/pushgate?user=pushgate&password=" + enc + "&ssl=true",
        "jdbc:postgresql://db.internal:5432/pushgate?ssl=true&password=***",
        "jdbc:postgresql://pushgate:" + secret + "@db.internal/pushgate",
        "jdbc:postgresql://db.internal/pushgate?password=***",
        "jdbc:postgresql://db.internal/pushgate?sslmode=verify-full&sslpassword=" + enc,
        "jdbc:postgresql://db.internal/pushgate?sslmode=verify-full&sslpassword=***");
    for (Map.Entry<String, String> form : good.entrySet()) {
      Result env = run(Map.of("PUSHGATE_DATABASE_URL", form.getKey()),
          "config", "check", "--data-dir", data.toString());
      assertThat(env.exit()).as(env.out()).isZero();
      assertThat(env.out()).contains("database-url:").contains(form.getValue() + " ");
      assertNoPartOf(secret, env.out());
      Files.writeString(data.resolve("pushgate.yaml"),
          "database-url: '" + form.getKey() + "'\n");
      Result file = run(Map.of(), "config", "check", "--data-dir", data.toString());
      assertThat(file.exit()).as(file.out()).isZero();
      assertThat(file.out()).contains(form.getValue() + " ");
      assertNoPartOf(secret, file.out());
      Files.delete(data.resolve("pushgate.yaml"));
    }
    List<String> bad = List.of(
        "postgresql://pushgate:" + secret + "@db.internal:5432/pushgate",
        "postgresql://pushgate:" + secret + "/x#y@db.internal/pushgate",
        "postgresql://pushgate:" + secret + "@db.internal:5432",
        "jdbc:postgresql://db.internal/pushgate?user=pushgate&password=" + secret + "&ssl=true",
        "jdbc:postgresql://db.internal/pushgate?sslmode=verify-full&sslpassword=" + secret,
        "mysql://root:" + secret + "@db.internal/pushgate?password=" + secret);
    for (String url : bad) {
      Result check = run(Map.of("PUSHGATE_DATABASE_URL", url),
          "config", "check", "--data-dir", data.toString());
      assertThat(check.exit()).as(check.out()).isNotZero();
      assertThat(check.out()).contains("database URL");
      assertNoPartOf(secret, check.out());
      Result serve = run(Map.of(), "serve", "--data-dir", data.resolve("serve").toString(),
          "--port", "0", "--database-url", url);
      assertThat(serve.exit()).as(serve.out()).isNotZero();
      assertNoPartOf(secret, serve.out());
    }
    // Nothing listens on port 1: the driver's refusal is printed, and the password is not.
    for (String url : List.of(
        "postgresql://pushgate:" + enc + "@127.0.0.1:1/pushgate",
        "jdbc:postgresql://127.0.0.1:1/pushgate?user=pushgate&password=" + enc,
        "jdbc:postgresql://pushgate:" + secret + "@127.0.0.1:1/pushgate")) {
      Result audit = run(Map.of(), "audit", "--data-dir", data.toString(), "--database-url", url);
      assertThat(audit.exit()).as(audit.out()).isNotZero();
      assertThat(audit.out()).contains("127.0.0.1:1");
      assertNoPartOf(secret, audit.out());
    }
  }

  private static void assertNoPartOf(String secret, String out) {
    assertThat(out).doesNotContain("hun@ter2").doesNotContain("ter2").doesNotContain("S3cret")
        .doesNotContain("hun%40");
  }

  @Test
  void serveOnATakenPortSaysSoAndHowToPickAnother() throws Exception {
    try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1,
        java.net.InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();
      Result serve = run(Map.of(), "serve", "--data-dir", tmp.resolve("taken").toString(),
          "--port", String.valueOf(port));
      assertThat(serve.exit()).as(serve.out()).isNotZero();
      assertThat(serve.out()).contains("pushgate: cannot listen on 127.0.0.1:" + port
              + " (Address already in use): another pushgate or another program has it. Stop that"
              + " one, or start this one with --port N (--port 0 picks a free port)")
          .doesNotContain("pushgate stopping").doesNotContain("Failed to bind");
    }
  }

  private static Result run(Map<String, String> env, String... args) throws Exception {
    return Cli.of(args).env(env).run();
  }

  private static List<JsonNode> jsonLines(String text) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    for (String line : text.lines().filter(l -> !l.isBlank()).toList()) {
      out.add(JSON.readTree(line));
    }
    return out;
  }
}
