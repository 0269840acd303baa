package dev.pushgate.appliance.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.appliance.store.AuditChain;
import dev.pushgate.appliance.store.AuditHash;
import dev.pushgate.appliance.store.AuditSink;
import dev.pushgate.appliance.store.AuditStore;
import dev.pushgate.appliance.store.ChainedRecord;
import dev.pushgate.appliance.store.Database;
import dev.pushgate.types.AuditEntry;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The audit sinks: a JSON line per record in a file, an RFC 5424 message per record to syslog. */
class AuditSinksTest {
  private static final Instant T0 = Instant.parse("2026-12-01T10:00:00.123Z");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  @Test
  void theFileGetsEveryRecordAsAJsonLineThatReverifies() throws Exception {
    Path file = tmp.resolve("audit.jsonl");
    try (Database db = Database.open(tmp.resolve("pushgate.db"))) {
      AuditStore audit = new AuditStore(new AuditChain(db, "host-a", new FileSink(file)));
      List<AuditStore.Row> rows = audit.record(List.of(push("refs/heads/a"),
          push("refs/heads/b\n\"quoted\" ünïcode")));
      audit.settle(rows.get(0), AuditEntry.Outcome.OK, 12);

      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      List<ChainedRecord> stored = audit.timeline("run-1");
      assertThat(lines).hasSize(3).hasSameSizeAs(stored);
      String prev = AuditHash.GENESIS;
      for (int i = 0; i < lines.size(); i++) {
        JsonNode n = JSON.readTree(lines.get(i));
        assertThat(n.get("id").asLong()).isEqualTo(stored.get(i).id());
        assertThat(n.get("seq").asLong()).isEqualTo(i + 1);
        assertThat(n.get("prev_hash").asText()).isEqualTo(prev);
        assertThat(n.get("hash").asText()).isEqualTo(stored.get(i).hash());
        // The line alone is enough to recompute its hash.
        assertThat(AuditHash.of(fromLine(n))).isEqualTo(n.get("hash").asText());
        prev = n.get("hash").asText();
      }
      assertThat(JSON.readTree(lines.get(1)).get("ref").asText())
          .isEqualTo("refs/heads/b\n\"quoted\" ünïcode");
      assertThat(JSON.readTree(lines.get(2)).get("record_type").asText())
          .isEqualTo("push-outcome");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
          .isEqualTo("rw-------");
    }
  }

  /**
   * attack35c: a write that a full disk cut short (ENOSPC after the last page's free bytes) leaves
   * the file ending mid-line; the next batch was appended right after the fragment, so the record
   * of a decision that was then allowed and answered is on no line of its own and cannot be read.
   */
  @Test
  void aLineCutShortByAFullDiskDoesNotSwallowTheNextRecord() throws Exception {
    Path file = tmp.resolve("audit.jsonl");
    try (Database db = Database.open(tmp.resolve("pushgate.db"))) {
      AuditStore audit = new AuditStore(new AuditChain(db, "host-a", new FileSink(file)));
      audit.record(List.of(push("refs/heads/a")));
      String whole = Files.readString(file, StandardCharsets.UTF_8);
      // What the disk took of the next batch before it was full: part of a line, no newline.
      Files.writeString(file, whole + whole.substring(0, whole.length() / 2),
          StandardCharsets.UTF_8);
      audit.record(List.of(push("refs/heads/b")));
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      String last = lines.get(lines.size() - 1);
      assertThat(JSON.readTree(last).get("ref").asText()).isEqualTo("refs/heads/b");
    }
  }

  /**
   * A fragment left by a failed write before the appliance stopped: the next appliance's sink cuts
   * it off before its first line, so every line of the file is a whole record.
   */
  @Test
  void aFileFoundEndingMidLineIsCutBackToItsLastWholeLine() throws Exception {
    Path file = tmp.resolve("audit.jsonl");
    try (Database db = Database.open(tmp.resolve("pushgate.db"))) {
      new AuditStore(new AuditChain(db, "host-a", new FileSink(file)))
          .record(List.of(push("refs/heads/a")));
    }
    String whole = Files.readString(file, StandardCharsets.UTF_8);
    Files.writeString(file, whole + "{\"id\":2,\"ref\":\"refs/he", StandardCharsets.UTF_8);
    try (Database db = Database.open(tmp.resolve("pushgate.db"))) {
      new AuditStore(new AuditChain(db, "host-a", new FileSink(file)))
          .record(List.of(push("refs/heads/b")));
    }
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    assertThat(lines).hasSize(2);
    assertThat(JSON.readTree(lines.get(0)).get("ref").asText()).isEqualTo("refs/heads/a");
    assertThat(JSON.readTree(lines.get(1)).get("ref").asText()).isEqualTo("refs/heads/b");
  }

  @Test
  void aFileThatCannotBeWrittenRefusesTheDecision() throws Exception {
    Path file = tmp.resolve("missing-dir").resolve("audit.jsonl");
    try (Database db = Database.open(tmp.resolve("pushgate.db"))) {
      AuditStore audit = new AuditStore(new AuditChain(db, "host-a", new FileSink(file)));
      assertThatThrownBy(() -> audit.record(List.of(push("refs/heads/a"))))
          .hasMessageContaining("audit sink").hasMessageContaining("missing-dir");
      // kept in the database all the same, settled as not sent
      assertThat(audit.timeline("run-1")).extracting(r -> r.entry().type().id())
          .containsExactly("push", "push-outcome");
    }
  }

  /**
   * attack35c: a decision refused because the sink failed was left in the database as {@code
   * allowed … pending} (or an API call's {@code ok}) for good; it is settled as not sent, and a
   * refusal is left as it was.
   */
  @Test
  void aDecisionRefusedForTheSinkIsSettledAsNotSent() throws Exception {
    Path file = tmp.resolve("missing-dir").resolve("audit.jsonl");
    try (Database db = Database.open(tmp.resolve("pushgate.db"))) {
      AuditStore audit = new AuditStore(new AuditChain(db, "host-a", new FileSink(file)));
      AuditEntry denied = AuditEntry.builder(AuditEntry.Type.PUSH).at(T0).runId("run-1")
          .workspaceId("ws-1").repository("acme/widget").ref("refs/heads/main")
          .oldId("0".repeat(40)).newId("1".repeat(40)).kind("update")
          .decision(AuditEntry.Decision.DENIED).rule("push main").code("RULE_DENIED")
          .reason("main is protected").outcome(AuditEntry.Outcome.NOT_FORWARDED).durationMillis(0L)
          .build();
      assertThatThrownBy(() -> audit.record(List.of(push("refs/heads/a"), denied)))
          .hasMessageContaining("audit sink");
      AuditEntry call = AuditEntry.builder(AuditEntry.Type.API_CALL).at(T0).runId("run-1")
          .workspaceId("ws-1").repository("acme/widget").ref("#12").kind("comment")
          .decision("allowed").outcome("ok").subject("POST api.github.com/repos/acme/widget/"
              + "issues/12/comments").build();
      assertThatThrownBy(() -> audit.record(List.of(call)))
          .hasMessageContaining("audit sink");

      List<ChainedRecord> all = audit.timeline("run-1");
      assertThat(all).extracting(r -> r.entry().type().id() + " " + r.entry().ref() + " "
          + r.entry().outcome()).containsExactly(
              "push refs/heads/a pending", "push refs/heads/main not forwarded",
              "push-outcome refs/heads/a not forwarded: the audit log is unavailable",
              "api-call #12 ok",
              "push-outcome #12 not forwarded: the audit log is unavailable");
      assertThat(all.get(2).entry().settles()).isEqualTo(all.get(0).id());
      assertThat(all.get(4).entry().settles()).isEqualTo(all.get(3).id());
      assertThat(audit.list(AuditStore.Query.all())).extracting(AuditEntry::outcome)
          .containsExactly("not forwarded: the audit log is unavailable", "not forwarded",
              "not forwarded: the audit log is unavailable");
    }
  }

  @Test
  void syslogReceivesAnRfc5424MessagePerRecordOverUdp() throws Exception {
    try (DatagramSocket server = new DatagramSocket(0, InetAddress.getLoopbackAddress());
        Database db = Database.open(tmp.resolve("pushgate.db"))) {
      server.setSoTimeout(10_000); // a deadline, not a wait: receive returns on arrival
      SyslogSink syslog = new SyslogSink(
          new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()),
          "host-a");
      AuditStore audit = new AuditStore(new AuditChain(db, "host-a",
          new Sinks(List.of(syslog))));
      audit.record(List.of(push("refs/heads/a"), push("refs/heads/b")));

      List<String> messages = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        DatagramPacket p = new DatagramPacket(new byte[65_536], 65_536);
        server.receive(p);
        messages.add(new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8));
      }
      List<ChainedRecord> stored = audit.timeline("run-1");
      for (int i = 0; i < 2; i++) {
        String m = messages.get(i);
        assertThat(m).startsWith("<110>1 2026-12-01T10:00:00.123Z host-a pushgate ")
            .contains(" push - \uFEFF{");
        JsonNode n = JSON.readTree(m.substring(m.indexOf('{')));
        assertThat(n.get("hash").asText()).isEqualTo(stored.get(i).hash());
      }
      syslog.close();
    }
  }

  @Test
  void aSyslogAddressIsParsed() {
    assertThat(SyslogSink.parse("127.0.0.1:5514").getPort()).isEqualTo(5514);
    assertThat(SyslogSink.parse("logs.internal").getPort()).isEqualTo(514);
    InetSocketAddress v6 = SyslogSink.parse("[::1]:515");
    assertThat(v6.getAddress().isLoopbackAddress()).isTrue();
    assertThat(v6.getPort()).isEqualTo(515);
    assertThatThrownBy(() -> SyslogSink.parse("host:port"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static AuditEntry push(String ref) {
    return AuditEntry.builder(AuditEntry.Type.PUSH).at(T0).runId("run-1").workspaceId("ws-1")
        .repository("acme/widget").ref(ref).oldId("0".repeat(40)).newId("1".repeat(40))
        .kind("update").decision(AuditEntry.Decision.ALLOWED).rule("push refs/heads/*")
        .outcome(AuditEntry.Outcome.PENDING).durationMillis(0L).build();
  }

  private static ChainedRecord fromLine(JsonNode n) {
    AuditEntry e = new AuditEntry(AuditEntry.Type.of(n.get("record_type").asText()),
        Instant.ofEpochMilli(n.get("at").asLong()), text(n, "run_id"), text(n, "workspace_id"),
        text(n, "repository"), text(n, "ref"), text(n, "old_id"), text(n, "new_id"),
        text(n, "kind"), text(n, "decision"), text(n, "rule"), text(n, "code"),
        text(n, "reason"), text(n, "outcome"), number(n, "duration_ms"), number(n, "settles"),
        text(n, "subject"), text(n, "actor"));
    return new ChainedRecord(n.get("id").asLong(), text(n, "host"), n.get("seq").asLong(),
        text(n, "prev_hash"), null, text(n, "chained"), e);
  }

  private static String text(JsonNode n, String field) {
    return n.get(field).isNull() ? null : n.get(field).asText();
  }

  private static Long number(JsonNode n, String field) {
    return n.get(field).isNull() ? null : n.get(field).asLong();
  }
}
