package dev.pushgate.gateway;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/** Reads git's pkt-lines from upstream's answers: four hex digits of length, then the payload. */
final class PktLine {
  private PktLine() {}

  /**
   * The next pkt-line's payload: null for a flush ({@code 0000}), empty for the special lengths
   * {@code 0001}–{@code 0004}. An {@link EOFException} when the stream ends before a pkt-line
   * starts; an {@link IOException} when one is cut short or its length is not four hex digits.
   */
  static byte[] read(InputStream in, String what) throws IOException {
    byte[] head = in.readNBytes(4);
    if (head.length == 0) {
      throw new EOFException(what + " ends before its end");
    }
    if (head.length < 4) {
      throw new IOException(what + " ends inside a pkt-line");
    }
    int length = 0;
    for (byte b : head) {
      int digit = Character.digit(b, 16);
      if (digit < 0) {
        throw new IOException(what + " is not made of pkt-lines");
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
      throw new IOException(what + " ends inside a pkt-line");
    }
    return payload;
  }
}
