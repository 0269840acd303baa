package dev.pushgate.appliance.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.appliance.DataDirectory;
import dev.pushgate.approvals.Answer;
import dev.pushgate.approvals.Question;
import dev.pushgate.appliance.store.ApprovalStore;
import dev.pushgate.appliance.store.AuditChain;
import dev.pushgate.appliance.store.AuditSink;
import dev.pushgate.appliance.store.AuditStore;
import dev.pushgate.appliance.store.Database;
import dev.pushgate.appliance.store.Ledger;
import dev.pushgate.appliance.store.SecretBox;
import dev.pushgate.testkit.MutableClock;
import dev.pushgate.types.AuditEntry;
import dev.pushgate.types.Secret;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code pushgate audit verify}'s exit status and {@code audit --run ID}'s order. */
class AuditCommandTest {
  private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

  @TempDir Path tmp;
  Path data;
  long tokenId;
  long pushId;

  @BeforeEach
  void writeARun() throws Exception {
    data = DataDirectory.prepare(tmp.resolve("data"));
    try (Database db = Database.open(data.resolve("pushgate.db"))) {
      AuditChain chain = new AuditChain(db, "host-a", AuditSink.NONE);
      AuditStore audit = new AuditStore(chain);
      Ledger ledger = new Ledger(db, SecretBox.openOrCreate(tmp.resolve("key")), "host-a", chain);
      tokenId = ledger.recordCredential("run-1", "read", "acme/widget", Secret.of("ghs_x"), T0,
          null);
      audit.record(List.of(AuditEntry.builder(AuditEntry.Type.COMMAND).at(T0.plusSeconds(1))
          .runId("run-1").workspaceId("ws").repository("acme/widget").ref("git push --force")
          .kind("command").decision(AuditEntry.Decision.ASKED).rule("command policy")
          .reason("force asks first").durationMillis(0L).build()));
      Question q = new Question("q-1", T0.plusSeconds(2), T0.plusSeconds(60), "command",
          "run-1", "ws", "acme/widget", null, null, null, null, "git push --force",
          "ask force", "force asks first", List.of());
      ApprovalStore approvals = new ApprovalStore(chain, new MutableClock(T0.plusSeconds(3)));
      approvals.asked(q);
      approvals.ended(q, new Answer(Answer.Outcome.DENIED, "bob", "not today"));
      pushId = audit.record(List.of(AuditEntry.builder(AuditEntry.Type.PUSH).at(T0.plusSeconds(4))
          .runId("run-1").workspaceId("ws").repository("acme/widget").ref("refs/heads/main")
          .oldId("0".repeat(40)).newId("1".repeat(40)).kind("update")
          .decision(AuditEntry.Decision.DENIED).rule("push refs/heads/main").code("RULE_DENIED")
          .reason("no").outcome(AuditEntry.Outcome.NOT_FORWARDED).durationMillis(0L).build()))
          .get(0).id();
      audit.record(List.of(AuditEntry.builder(AuditEntry.Type.PUSH).at(T0.plusSeconds(5))
          .runId("run-2").workspaceId("ws").repository("acme/widget").ref("refs/heads/x")
          .kind("update").decision(AuditEntry.Decision.ALLOWED).rule("r")
          .outcome(AuditEntry.Outcome.PENDING).durationMillis(0L).build()));
      ledger.markRevoked(tokenId, T0.plusSeconds(6));
    }
  }

  /**
   * An API call is a record of its own type wherever the audit is read, whether it was written
   * as one or, before that type existed, as a push record of kind {@code api:…}.
   */
  @Test
  void apiCallsAreShownAsApiCallsNotPushes() throws Exception {
    try (Database db = Database.open(data.resolve("pushgate.db"))) {
      AuditStore audit = new AuditStore(new AuditChain(db, "host-a", AuditSink.NONE));
      audit.record(List.of(AuditEntry.builder(AuditEntry.Type.PUSH).at(T0.plusSeconds(7))
          .runId("run-3").workspaceId("ws").repository("acme/widget")
          .ref("POST api.github.com/repos/acme/widget/pulls").kind("api:open-pull-request")
          .decision(AuditEntry.Decision.DENIED).rule("#new").code("RULE_DENIED")
          .reason("no pull requests").outcome(AuditEntry.Outcome.NOT_FORWARDED).durationMillis(2L)
          .build()));
      new dev.pushgate.appliance.api.AuditedApiCalls(audit).record(List.of(
          new dev.pushgate.gateway.api.ApiRecord(T0.plusSeconds(8), "run-3", "ws", "PUT",
              "api.github.com", "/repos/acme/widget/contents/a.txt", "push", "acme/widget",
              "refs/heads/main", "allowed", "push to main is allowed", -1, 4)));
    }

    Result table = run("audit", "--run", "run-3", "--decisions", "--data-dir",
        data.toString());
    assertThat(table.status).isZero();
    String[] lines = table.out.split("\n");
    assertThat(lines).hasSize(3);
    assertThat(lines[1]).containsPattern(" +acme/widget +POST api.github.com/repos/acme/widget/"
        + "pulls #new +api-call open-pull-request +denied +RULE_DENIED +no pull requests$");
    assertThat(lines[2]).containsPattern(" +acme/widget +PUT api.github.com/repos/acme/widget/"
        + "contents/a.txt main +api-call push +allowed +- +ok$");

    Result json = run("audit", "--run", "run-3", "--decisions", "--json", "--data-dir",
        data.toString());
    ObjectMapper m = new ObjectMapper();
    List<JsonNode> rows = new ArrayList<>();
    for (String line : json.out.split("\n")) {
      rows.add(m.readTree(line));
    }
    assertThat(rows).extracting(r -> r.get("action").asText()).containsOnly("api-call");
    assertThat(rows).extracting(r -> r.get("kind").asText())
        .containsExactly("open-pull-request", "push");
    assertThat(rows.get(0).get("call").asText())
        .isEqualTo("POST api.github.com/repos/acme/widget/pulls");
    assertThat(rows.get(0).get("ref").asText()).isEqualTo("#new");
    assertThat(rows.get(0).get("rule").isNull()).isTrue();

    Result timeline = run("audit", "--run", "run-3", "--data-dir", data.toString());
    String[] events = timeline.out.split("\n");
    assertThat(events).hasSize(3);
    assertThat(events[1]).contains("  api-call  ", "open-pull-request #new (POST"
        + " api.github.com/repos/acme/widget/pulls)").doesNotContain(" push ");
    assertThat(events[2]).contains("  api-call  ", "push refs/heads/main (PUT"
        + " api.github.com/repos/acme/widget/contents/a.txt)");
  }

  @Test
  void verifyExitsZeroOnAnIntactChainAndThreeOnABrokenOne() throws Exception {
    Result ok = run("audit", "verify", "--data-dir", data.toString());
    assertThat(ok.status).isZero();
    assertThat(ok.out).isEqualTo("audit chain intact: 7 records (hosts: host-a)\n");

    try (Database db = Database.open(data.resolve("pushgate.db"))) {
      db.with(c -> {
        try (Statement s = c.createStatement()) {
          return s.executeUpdate("UPDATE audit SET decision = 'allowed' WHERE id = " + pushId);
        }
      });
    }
    Result broken = run("audit", "verify", "--data-dir", data.toString());
    assertThat(broken.status).isEqualTo(AuditVerifyCommand.BROKEN).isEqualTo(3);
    assertThat(broken.out).isEqualTo("audit chain broken at record " + pushId
        + " (host host-a, seq 5): hash mismatch\n");
  }

  @Test
  void verifyWithoutADatabaseIsAnErrorNotABreak() {
    Result r = run("audit", "verify", "--data-dir", tmp.resolve("nowhere").toString());
    assertThat(r.status).isEqualTo(1);
  }

  @Test
  void theTimelineListsTheRunsRecordsInOrder() throws Exception {
    Result json = run("audit", "--run", "run-1", "--json", "--data-dir",
        data.toString());
    assertThat(json.status).isZero();
    List<String> types = new ArrayList<>();
    ObjectMapper m = new ObjectMapper();
    for (String line : json.out.split("\n")) {
      types.add(m.readTree(line).get("record_type").asText());
    }
    assertThat(types).containsExactly("token-issued", "command", "approval-asked",
        "approval-answered", "push", "token-revoked");

    Result table = run("audit", "--run", "run-1", "--data-dir", data.toString());
    assertThat(table.status).isZero();
    String[] lines = table.out.split("\n");
    assertThat(lines).hasSize(7);
    assertThat(lines[0]).startsWith("TIME").contains("TYPE", "WHAT", "DECISION", "DETAIL");
    assertThat(lines[1]).contains("token-issued", "read token " + tokenId + " on acme/widget");
    assertThat(lines[4]).contains("approval-answered", "denied", "by bob; not today");
    assertThat(lines[5]).contains("push", "main (acme/widget)", "denied");
    assertThat(lines[6]).contains("token-revoked", "revoked");
    assertThat(table.out).doesNotContain("ghs_x");

    Result decisions = run("audit", "--run", "run-1", "--decisions", "--data-dir",
        data.toString());
    assertThat(decisions.status).isZero();
    assertThat(decisions.out).startsWith("TIME").contains("REF / COMMAND")
        .doesNotContain("token-issued").doesNotContain("approval-asked");
  }

  @Test
  void theSinksAreKeysOfTheConfigurationFile() throws Exception {
    Path yaml = tmp.resolve("pushgate.yaml");
    java.nio.file.Files.writeString(yaml, "audit:\n  file: " + tmp.resolve("audit.jsonl")
        + "\n  syslog: 127.0.0.1:5514\n");
    Result r = run("config", "check", "--config", yaml.toString(), "--data-dir", data.toString());
    assertThat(r.status).isZero();
    assertThat(r.out).containsPattern("audit-file: +" + tmp.resolve("audit.jsonl") + " +# file")
        .containsPattern("audit-syslog: +127.0.0.1:5514 +# file");

    java.nio.file.Files.writeString(yaml, "audit:\n  syslog: 127.0.0.1:port\n");
    assertThat(run("config", "check", "--config", yaml.toString(), "--data-dir",
        data.toString()).status).isNotZero();
  }

  private record Result(int status, String out) {}

  private static Result run(String... args) {
    PrintStream saved = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      int status = Main.run(args);
      return new Result(status, out.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(saved);
    }
  }
}
