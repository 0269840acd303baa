package dev.pushgate.gateway;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.eclipse.jgit.transport.PacketLineOut;

/** Bytes of git's wire format, written by hand where a test needs them exactly or malformed. */
final class WireBytes {
  private WireBytes() {}

  /** One byte per character: what a test writes is what goes on the wire. */
  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  /** One pkt-line carrying {@code payload}, as JGit writes it. */
  static byte[] pkt(byte[] payload) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      new PacketLineOut(out).writePacket(payload);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** One side-band packet: {@code data} on {@code channel}. */
  static byte[] sideBand(int channel, byte[] data) {
    return pkt(concat(new byte[] {(byte) channel}, data));
  }

  /** One side-band packet: {@code text} in UTF-8 on {@code channel}. */
  static byte[] sideBand(int channel, String text) {
    return sideBand(channel, text.getBytes(StandardCharsets.UTF_8));
  }
}
