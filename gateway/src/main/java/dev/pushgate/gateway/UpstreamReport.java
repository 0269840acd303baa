package dev.pushgate.gateway;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.jgit.transport.PacketLineIn;
import org.eclipse.jgit.transport.SideBandOutputStream;

/**
 * Upstream's answer: the report-status lines inside side-band channel 1, progress and messages
 * on channel 2, a fatal error on channel 3.
 *
 * @param refs ref name → "" when upstream applied it, else its reason
 */
record UpstreamReport(String unpack, Map<String, String> refs, String messages, String error) {
  /** Upstream's answer is a few lines per ref; anything much longer is not a report. */
  static final int MAX_BYTES = 1 << 20;

  static UpstreamReport read(InputStream in) throws IOException {
    ByteArrayOutputStream report = new ByteArrayOutputStream();
    StringBuilder messages = new StringBuilder();
    String error = null;
    long total = 0;
    for (byte[] packet; (packet = sideBandPacket(in)) != null; ) {
      total += packet.length;
      if (total > MAX_BYTES) {
        throw new IOException("upstream's report is too long");
      }
      if (packet.length == 0) {
        continue;
      }
      String text = new String(packet, 1, packet.length - 1, StandardCharsets.UTF_8);
      switch (packet[0]) {
        case SideBandOutputStream.CH_DATA -> report.write(packet, 1, packet.length - 1);
        case SideBandOutputStream.CH_PROGRESS -> messages.append(text);
        case SideBandOutputStream.CH_ERROR -> error = text;
        default -> throw new IOException("upstream's report has an unknown side-band channel");
      }
    }
    return parseStatus(report.toByteArray(), messages.toString(), error);
  }

  /** The report-status pkt-lines, reassembled from channel 1, read with JGit's reader. */
  private static UpstreamReport parseStatus(byte[] status, String messages, String error)
      throws IOException {
    String unpack = null;
    Map<String, String> refs = new LinkedHashMap<>();
    ByteArrayInputStream bytes = new ByteArrayInputStream(status);
    PacketLineIn in = new PacketLineIn(bytes);
    while (bytes.available() > 0) {
      String line = in.readString();
      if (PacketLineIn.isEnd(line)) {
        break;
      }
      if (line.startsWith("unpack ")) {
        unpack = line.substring("unpack ".length());
      } else if (line.startsWith("ok ")) {
        refs.put(line.substring(3), "");
      } else if (line.startsWith("ng ")) {
        String rest = line.substring(3);
        int sp = rest.indexOf(' ');
        refs.put(sp < 0 ? rest : rest.substring(0, sp),
            sp < 0 ? "rejected" : rest.substring(sp + 1));
      }
    }
    return new UpstreamReport(unpack, refs, messages, error);
  }

  /**
   * One side-band packet as bytes (its channel first); empty for a delimiter or an empty packet;
   * null at a flush or where the answer ends. Hand-written because JGit's side-band demultiplexer
   * ({@code SideBandInputStream}) cannot be constructed outside its package, and its
   * {@link PacketLineIn} only returns packets as text, which a UTF-8 character cut between two
   * packets would not survive.
   */
  private static byte[] sideBandPacket(InputStream in) throws IOException {
    byte[] head = in.readNBytes(4);
    if (head.length == 0) {
      return null;
    }
    if (head.length < 4) {
      throw new EOFException("upstream's report ends inside a pkt-line");
    }
    int length = 0;
    for (byte b : head) {
      int digit = Character.digit(b, 16);
      if (digit < 0) {
        throw new IOException("upstream's report is not made of pkt-lines");
      }
      length = length * 16 + digit;
    }
    if (length == 0) {
      return null;
    }
    if (length <= 4) {
      return new byte[0];
    }
    byte[] payload = in.readNBytes(length - 4);
    if (payload.length < length - 4) {
      throw new EOFException("upstream's report ends inside a pkt-line");
    }
    return payload;
  }
}
