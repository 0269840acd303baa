package dev.pushgate.appliance.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.types.AuditEntry;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An audit chain written before {@link AuditEntry.Builder} still verifies: the same records,
 * built by name, chain to the hashes the constructor-built records of commit 39f599f chained to
 * (one record of every type, every column filled somewhere, text with non-ASCII, a line break
 * and a bidi control), and read back from the table they verify.
 */
class OldChainTest {
  private static final Instant T = Instant.parse("2026-12-01T10:00:00Z");
  private static final String Z = "0".repeat(40);
  private static final String O = "1".repeat(40);

  /** What AuditHash gave these records at 39f599f, chained in this order on host host-a. */
  private static final List<String> HASHES_AT_39F599F = List.of(
      "11a54f226e23b324ce9e65563b1240bbea3a57d4106bf16887f02a4956f6cf13",
      "6b0692d307e42b4ff1ce37d12bac878d8414e7a0df28c6bd1d87e58a80426b59",
      "91f183a735ef3a3d9a88feba11f7a5718361cc2e465a068a83fbd61c97eda58c",
      "a0eedbf30ef1991ceb7303e264d16a2059c1a7196532add4e3bd57b77150dbae",
      "2397625861d99bd5e25edacf953642be17945d091c338d0a99da7ecbce2dba0d",
      "4fb7d50ededf46590d9a56db3ee598a33a1d81929e49dd89f92a7fba4d3aab16",
      "0af3c944e340b6d12c12c372085fd2cf4fa06ac588c14598df5cf4ce49704fe9",
      "0209de1e22ade278277c6fb73fb7b85558e352aaf9ca89983455df0983824498",
      "8a5fe038aa0662fc818535c98ced595f0caadfcb8c8e51457a76c0a8cf6a2c40");

  @TempDir Path tmp;

  static List<AuditEntry> records() {
    return List.of(
        AuditEntry.builder(AuditEntry.Type.PUSH).at(T).runId("run-1").workspaceId("ws-1")
            .repository("acme/widget").ref("refs/heads/main").oldId(Z).newId(O).kind("update")
            .decision("denied").rule("push refs/heads/main -> deny").code("RULE_DENIED")
            .reason("push to main is denied").outcome("not forwarded").durationMillis(12L)
            .build(),
        AuditEntry.builder(AuditEntry.Type.PUSH_OUTCOME).at(T.plusMillis(1500)).runId("run-1")
            .workspaceId("ws-1").repository("acme/widget").ref("refs/heads/b").oldId(Z).newId(O)
            .kind("create").decision("allowed").outcome("ok").durationMillis(345L).settles(1L)
            .build(),
        AuditEntry.builder(AuditEntry.Type.COMMAND).at(T.plusSeconds(2)).runId("run-1")
            .repository("acme/widget").ref("git push --force origin main").kind("command")
            .decision("asked").rule("push -> ask")
            .reason("caf\u00e9 \u202e \ud83d\ude00 line\nbreak").outcome("not run")
            .durationMillis(0L).build(),
        AuditEntry.builder(AuditEntry.Type.APPROVAL_ASKED).at(T.plusSeconds(3)).runId("run-1")
            .workspaceId("ws-1").repository("acme/widget").ref("refs/heads/main").oldId(Z)
            .newId(O).kind("update").decision("asked").rule("push refs/heads/main -> ask")
            .reason("needs a person").subject("q-1").build(),
        AuditEntry.builder(AuditEntry.Type.APPROVAL_ANSWERED).at(T.plusSeconds(4))
            .runId("run-1").workspaceId("ws-1").repository("acme/widget").ref("refs/heads/main")
            .oldId(Z).newId(O).kind("update").decision("denied").code("APPROVAL_DENIED")
            .reason("not today").subject("q-1").actor("alice@example.com").build(),
        AuditEntry.builder(AuditEntry.Type.TOKEN_ISSUED).at(T.plusSeconds(5)).runId("run-1")
            .repository("acme/widget").kind("write").decision("issued")
            .reason("expires 2026-12-01T11:00:00Z").subject("7").build(),
        AuditEntry.builder(AuditEntry.Type.TOKEN_REVOKED).at(T.plusSeconds(6)).runId("run-1")
            .repository("acme/widget").kind("write").decision("revoked").subject("7").build(),
        AuditEntry.builder(AuditEntry.Type.RUN_END_FINDING).at(T.plusSeconds(7)).runId("run-1")
            .repository("").ref("/work/.git/hooks/pre-push").kind("git-metadata")
            .decision("reported").reason("a hook the run wrote, removed").build(),
        AuditEntry.builder(AuditEntry.Type.API_CALL).at(T.plusSeconds(8)).runId("run-1")
            .workspaceId("ws-1").repository("acme/widget").ref("#12").kind("open-pull-request")
            .decision("allowed").reason("").outcome("ok").durationMillis(90L)
            .subject("POST api.github.com/repos/acme/widget/pulls").build());
  }

  @Test
  void recordsBuiltByNameChainToTheHashesOfTheOldConstructorAndVerifyFromTheTable()
      throws Exception {
    List<String> hashes = new ArrayList<>();
    try (Database db = Database.open(tmp.resolve("pushgate.db").toString())) {
      AuditChain chain = new AuditChain(db, "host-a", AuditSink.NONE);
      for (AuditEntry e : records()) {
        hashes.add(chain.append((c, a) -> a.append(e)).hash());
      }
      assertThat(hashes).isEqualTo(HASHES_AT_39F599F);
      List<ChainedRecord> stored = db.with(c -> {
        List<ChainedRecord> out = new ArrayList<>();
        try (var s = c.createStatement();
            var rs = s.executeQuery("SELECT " + AuditRows.COLUMNS + " FROM audit ORDER BY seq")) {
          while (rs.next()) {
            out.add(AuditRows.read(rs));
          }
        }
        return out;
      });
      assertThat(stored).extracting(ChainedRecord::hash).isEqualTo(HASHES_AT_39F599F);
      assertThat(stored).allMatch(ChainedRecord::hashMatches);
      assertThat(stored).extracting(ChainedRecord::entry).isEqualTo(records());
    }
  }
}
