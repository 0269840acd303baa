package dev.pushgate.gateway;

import static dev.pushgate.gateway.WireBytes.ascii;
import static dev.pushgate.gateway.WireBytes.concat;
import static dev.pushgate.gateway.WireBytes.sideBand;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.transport.PacketLineOut;
import org.eclipse.jgit.transport.SideBandOutputStream;
import org.junit.jupiter.api.Test;

/** Upstream's answer to a push, as receive-pack writes it with JGit's own writers. */
class UpstreamReportTest {
  @Test
  void aReportWrittenByJGitsWritersIsReadBack() throws IOException {
    ByteArrayOutputStream answer = new ByteArrayOutputStream();
    progress(answer, "Resolving deltas: 100% (1/1)\rdone.\n");
    status(answer, SideBandOutputStream.MAX_BUF, "unpack ok\n", "ok refs/heads/main\n",
        "ng refs/heads/x failed to lock\n", "ng refs/heads/y\n");
    new PacketLineOut(answer).end();

    UpstreamReport r = UpstreamReport.read(new ByteArrayInputStream(answer.toByteArray()));

    assertThat(r.unpack()).isEqualTo("ok");
    assertThat(r.refs()).containsExactly(Map.entry("refs/heads/main", ""),
        Map.entry("refs/heads/x", "failed to lock"), Map.entry("refs/heads/y", "rejected"));
    assertThat(r.messages()).isEqualTo("Resolving deltas: 100% (1/1)\rdone.\n");
    assertThat(r.error()).isNull();
  }

  @Test
  void aReasonWhoseCharactersAreCutBetweenSideBandPacketsIsReadWhole() throws IOException {
    // Small side-band packets of 995 bytes: the reason's two-byte characters straddle them.
    String reason = "é".repeat(1500);
    ByteArrayOutputStream answer = new ByteArrayOutputStream();
    status(answer, SideBandOutputStream.SMALL_BUF, "unpack ok\n",
        "ng refs/heads/main " + reason + "\n");
    new PacketLineOut(answer).end();

    UpstreamReport r = UpstreamReport.read(new ByteArrayInputStream(answer.toByteArray()));

    assertThat(r.refs()).containsExactly(Map.entry("refs/heads/main", reason));
  }

  @Test
  void aFatalErrorOnChannelThreeIsKeptForTheOutcome() throws IOException {
    ByteArrayOutputStream answer = new ByteArrayOutputStream();
    progress(answer, "Counting objects\n");
    OutputStream err = new SideBandOutputStream(SideBandOutputStream.CH_ERROR,
        SideBandOutputStream.MAX_BUF, answer);
    err.write("fatal: the repository is read-only\n".getBytes(StandardCharsets.UTF_8));
    err.flush();

    UpstreamReport r = UpstreamReport.read(new ByteArrayInputStream(answer.toByteArray()));

    assertThat(r.error()).isEqualTo("fatal: the repository is read-only\n");
    assertThat(r.unpack()).isNull();
    assertThat(r.refs()).isEmpty();
  }

  @Test
  void anAnswerEndingWithoutItsFlushStillCounts() throws IOException {
    ByteArrayOutputStream answer = new ByteArrayOutputStream();
    SideBandOutputStream data = new SideBandOutputStream(SideBandOutputStream.CH_DATA,
        SideBandOutputStream.MAX_BUF, answer);
    PacketLineOut pkt = new PacketLineOut(data);
    pkt.writeString("unpack ok\n");
    pkt.writeString("ok refs/heads/main\n");
    data.flush();

    UpstreamReport r = UpstreamReport.read(new ByteArrayInputStream(answer.toByteArray()));

    assertThat(r.refs()).containsOnlyKeys("refs/heads/main");
  }

  @Test
  void aMalformedReportInsideTheSideBandIsAnError() {
    List<String> malformed = List.of(
        "0010unpack ok",         // cut inside its payload
        "000eunpack ok\n0003",   // a length below the header's own
        "000eunpack ok\n00zz",   // not a length
        "000eunpack ok\n00");    // cut inside a length
    for (String status : malformed) {
      byte[] answer = concat(sideBand(1, ascii(status)), ascii("0000"));
      assertThatThrownBy(() -> UpstreamReport.read(new ByteArrayInputStream(answer)))
          .as(status).isInstanceOf(IOException.class);
    }
  }

  @Test
  void aMalformedSideBandIsAnError() {
    List<byte[]> malformed = List.of(
        ascii("0005"),                                    // a length with nothing after it
        ascii("ffff\u0001unpack ok"),                     // cut far inside its payload
        concat(ascii("0009"), new byte[] {0, 'o', 'k', '\n', 0}), // channel 0, a NUL as channel
        concat(ascii("0009"), new byte[] {4, 'o', 'k', '\n', 0}), // no channel 4
        ascii("0g00"));                                   // not a length
    for (byte[] answer : malformed) {
      assertThatThrownBy(() -> UpstreamReport.read(new ByteArrayInputStream(answer)))
          .as(new String(answer, StandardCharsets.ISO_8859_1)).isInstanceOf(IOException.class);
    }
  }

  @Test
  void anAnswerLongerThanAReportCanBeIsAnError() throws IOException {
    ByteArrayOutputStream answer = new ByteArrayOutputStream();
    progress(answer, "x".repeat(UpstreamReport.MAX_BYTES + 1));

    assertThatThrownBy(() -> UpstreamReport.read(new ByteArrayInputStream(answer.toByteArray())))
        .isInstanceOf(IOException.class).hasMessage("upstream's report is too long");
  }

  /** The report-status lines and their flush inside channel 1, as receive-pack sends them. */
  private static void status(ByteArrayOutputStream answer, int packetSize, String... lines)
      throws IOException {
    SideBandOutputStream data =
        new SideBandOutputStream(SideBandOutputStream.CH_DATA, packetSize, answer);
    PacketLineOut pkt = new PacketLineOut(data);
    for (String line : lines) {
      pkt.writeString(line);
    }
    pkt.end();
  }

  private static void progress(ByteArrayOutputStream answer, String text) throws IOException {
    // Flushed, not closed: closing a SideBandOutputStream writes nothing.
    OutputStream out = new SideBandOutputStream(SideBandOutputStream.CH_PROGRESS,
        SideBandOutputStream.MAX_BUF, answer);
    out.write(text.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }
}
