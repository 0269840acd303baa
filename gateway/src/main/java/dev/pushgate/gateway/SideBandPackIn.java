package dev.pushgate.gateway;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.eclipse.jgit.util.IO;
import org.eclipse.jgit.util.RawParseUtils;

/**
 * The pack of an upload-pack answer in side-band-64k, channel 1 only: progress (channel 2) is
 * skipped, an error (channel 3) or a cut stream is an exception, and the flush that ends the
 * answer is the end of the stream. JGit's own reader of this framing is not public, hence this
 * one; it reads no byte past the flush and at most {@code maxBytes} in all.
 */
final class SideBandPackIn extends InputStream {
  private static final int CH_DATA = 1;
  private static final int CH_PROGRESS = 2;
  private static final int CH_ERROR = 3;
  /** side-band-64k's largest packet, its 4-byte length included. */
  private static final int MAX_PACKET = 65520;
  /** An error from upstream is shown in part: it reaches logs and the person pushing. */
  private static final int MAX_ERROR_CHARS = 200;

  private final InputStream in;
  private final long maxBytes;
  private final byte[] header = new byte[5];
  private long read;
  /** Bytes of channel 1 left in the current packet. */
  private int available;
  private boolean ended;

  SideBandPackIn(InputStream in, long maxBytes) {
    this.in = in;
    this.maxBytes = maxBytes;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    while (available == 0) {
      if (ended || !nextDataPacket()) {
        return -1;
      }
    }
    int n = in.read(b, off, Math.min(len, available));
    if (n < 0) {
      throw new EOFException("upstream's pack was cut short");
    }
    available -= n;
    return n;
  }

  /** Reads packet headers up to the next one of channel 1; false at the flush. */
  private boolean nextDataPacket() throws IOException {
    IO.readFully(in, header, 0, 4);
    int length;
    try {
      length = RawParseUtils.parseHexInt16(header, 0);
    } catch (ArrayIndexOutOfBoundsException e) {
      throw new IOException("upstream's answer is not in side-band framing");
    }
    if (length == 0) {
      ended = true;
      return false;
    }
    if (length < 5 || length > MAX_PACKET) {
      throw new IOException("upstream's answer holds a side-band packet of " + length + " bytes");
    }
    read += length;
    if (read > maxBytes) {
      throw new TooLarge(maxBytes);
    }
    IO.readFully(in, header, 4, 1);
    int payload = length - 5;
    switch (header[4]) {
      case CH_DATA -> available = payload;
      case CH_PROGRESS -> IO.skipFully(in, payload);
      case CH_ERROR -> {
        byte[] message = new byte[Math.min(payload, MAX_ERROR_CHARS)];
        IO.readFully(in, message, 0, message.length);
        throw new IOException("upstream's upload-pack failed: "
            + Forwarder.oneLine(new String(message, StandardCharsets.UTF_8)));
      }
      default -> throw new IOException("upstream's answer uses side-band channel " + header[4]);
    }
    return true;
  }

  /** The answer ran past the bound the reader was given. */
  static final class TooLarge extends IOException {
    private static final long serialVersionUID = 1L;

    TooLarge(long maxBytes) {
      super("upstream's pack is larger than " + maxBytes + " bytes");
    }
  }
}
