package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Judgement;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.transport.PacketLineIn;
import org.junit.jupiter.api.Test;

/**
 * The report-status answer to a push refused before its pack, framed as the client asked and
 * read back with JGit's pkt-line reader.
 */
class EarlyRefusalAnswerTest {
  private static final ObjectId A = ObjectId.fromString("a".repeat(40));
  private static final ObjectId B = ObjectId.fromString("b".repeat(40));

  @Test
  void withoutSideBandTheReportIsSentAsIs() throws IOException {
    byte[] answer = respond(Set.of("report-status"), 1, "denied");

    assertThat(new String(answer, StandardCharsets.US_ASCII))
        .isEqualTo("000eunpack ok\n001cng refs/heads/r0 denied\n0000");
  }

  @Test
  void inSideBand64kTheReportIsCarriedOnChannelOneInPacketsOfAtMost65520Bytes()
      throws IOException {
    byte[] answer = respond(Set.of("report-status", "side-band-64k"), 3000, "x".repeat(40));

    List<String> packets = sideBand(answer, 65520);
    assertThat(packets).hasSizeGreaterThan(2);
    assertThat(report(packets)).hasSize(3001).startsWith("unpack ok")
        .endsWith("ng refs/heads/r2999 " + "x".repeat(40));
  }

  @Test
  void inSideBandTheReportIsCarriedInPacketsOfAtMost1000Bytes() throws IOException {
    byte[] answer = respond(Set.of("report-status", "side-band"), 100, "denied by the rules");

    List<String> packets = sideBand(answer, 1000);
    assertThat(packets).hasSizeGreaterThan(2);
    List<String> lines = report(packets);
    assertThat(lines).hasSize(101);
    assertThat(lines.get(100)).isEqualTo("ng refs/heads/r99 denied by the rules");
  }

  @Test
  void withoutReportStatusSideBandGetsItsFlushOnlyAndPlainGetsNothing() throws IOException {
    assertThat(respond(Set.of("side-band-64k"), 1, "denied")).asString(StandardCharsets.US_ASCII)
        .isEqualTo("0000");
    assertThat(respond(Set.of(), 1, "denied")).isEmpty();
  }

  /**
   * The side-band packets of {@code answer}, each checked to be on channel 1 and no longer than
   * {@code max}, and all but the last as long as allowed; then the final flush.
   */
  private static List<String> sideBand(byte[] answer, int max) throws IOException {
    ByteArrayInputStream bytes = new ByteArrayInputStream(answer);
    PacketLineIn in = new PacketLineIn(bytes);
    List<String> packets = new ArrayList<>();
    for (String p; !PacketLineIn.isEnd(p = in.readStringRaw()); ) {
      assertThat(p.charAt(0)).isEqualTo('\u0001');
      assertThat(p.length() + 4).isLessThanOrEqualTo(max);
      packets.add(p.substring(1));
    }
    assertThat(bytes.available()).isZero();
    for (String p : packets.subList(0, packets.size() - 1)) {
      assertThat(p.length() + 5).isEqualTo(max);
    }
    return packets;
  }

  /** The report-status lines inside the side-band data, up to their flush. */
  private static List<String> report(List<String> packets) throws IOException {
    byte[] data = String.join("", packets).getBytes(StandardCharsets.ISO_8859_1);
    ByteArrayInputStream bytes = new ByteArrayInputStream(data);
    PacketLineIn in = new PacketLineIn(bytes);
    List<String> lines = new ArrayList<>();
    for (String l; !PacketLineIn.isEnd(l = in.readString()); ) {
      lines.add(l);
    }
    assertThat(bytes.available()).isZero();
    return lines;
  }

  private static byte[] respond(Set<String> capabilities, int refs, String reason)
      throws IOException {
    List<EarlyRefusal.Refused> refused = new ArrayList<>();
    for (int i = 0; i < refs; i++) {
      refused.add(new EarlyRefusal.Refused("refs/heads/r" + i, A, B, "update",
          new Judgement(Decision.DENY, "policy", reason)));
    }
    CapturedResponse answer = new CapturedResponse();
    EarlyRefusal.respond(answer.response(),
        new EarlyRefusal.Request(refused, capabilities, RefusalCode.RULE_DENIED),
        Collections.nCopies(refs, reason));
    return answer.body.toByteArray();
  }
}
