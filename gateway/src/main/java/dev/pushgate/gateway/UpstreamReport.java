package dev.pushgate.gateway;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

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
    for (byte[] packet; (packet = readPacket(in)) != null; ) {
      total += packet.length;
      if (total > MAX_BYTES) {
        throw new IOException("upstream's report is too long");
      }
      if (packet.length == 0) {
        continue;
      }
      String text = new String(packet, 1, packet.length - 1, StandardCharsets.UTF_8);
      switch (packet[0]) {
        case 1 -> report.write(packet, 1, packet.length - 1);
        case 2 -> messages.append(text);
        case 3 -> error = text;
        default -> throw new IOException("upstream's report has an unknown side-band channel");
      }
    }
    return parseStatus(report.toByteArray(), messages.toString(), error);
  }

  private static UpstreamReport parseStatus(byte[] status, String messages, String error)
      throws IOException {
    String unpack = null;
    Map<String, String> refs = new LinkedHashMap<>();
    InputStream in = new ByteArrayInputStream(status);
    for (byte[] packet; (packet = readPacket(in)) != null; ) {
      String line = new String(packet, StandardCharsets.UTF_8);
      if (line.endsWith("\n")) {
        line = line.substring(0, line.length() - 1);
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

  /** One pkt-line's payload; empty for a delimiter; null at a flush or at the end. */
  private static byte[] readPacket(InputStream in) throws IOException {
    try {
      return PktLine.read(in, "upstream's report");
    } catch (EOFException e) {
      return null;
    }
  }
}
