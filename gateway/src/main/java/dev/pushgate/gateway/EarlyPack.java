package dev.pushgate.gateway;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.Arrays;
import java.util.function.BooleanSupplier;

/**
 * The start of a streamed push's pack, read from the request body while the cache ends the
 * fetch the push's advertisement left running, and sent upstream at once, so that upstream
 * receives the pack during the fetch instead of after it. What goes is what {@link TrailerScan}
 * clears: never 20 bytes that could complete the pack, which stays upstream's to finish only
 * once JGit's parser has checked the whole pack, the push hook has judged it and its record is
 * committed ({@link StreamedForward#finish}).
 *
 * <p>The body has one reader. The bytes read here are replayed to JGit's receive-pack ahead of
 * the rest of the body ({@link #replay}); its parser then hands the copy the whole pack again as
 * it consumes it, and {@link #resume} passes on only what comes after the bytes sent here,
 * checking that those are the ones the parser read: the same buffer, so they are, and a push
 * where they were not would fail rather than go on.
 */
final class EarlyPack {
  /** Read ahead at most: the pack of a small push, whose wait for the fetch this cuts. */
  static final int MAX_BYTES = 16 << 10;

  /** The pack's first {@link #length} bytes, its header first. */
  private final byte[] pack;
  private final int headerLength;
  private int length;
  /** How many of them went to the copy. */
  private int sent;
  /** The read that failed, to fail JGit's at the same point; or null. */
  private IOException failed;
  private boolean ended;

  /** Where the bytes read ahead go: the streamed copy ({@link StreamedForward#objectsNow}). */
  interface Sink {
    void sendNow(byte[] b, int off, int len) throws IOException;
  }

  /** {@code header}: the pack's 12-byte header, already read. */
  EarlyPack(byte[] header) {
    this.pack = Arrays.copyOf(header, Math.max(MAX_BYTES, header.length));
    this.headerLength = header.length;
    this.length = header.length;
  }

  /**
   * Reads {@code body}, the request after the pack's header, while {@code fetching} holds, and
   * hands {@code copy} what {@link TrailerScan} clears as it comes; stops at the body's end, at
   * {@link #MAX_BYTES}, or at a trailer. A read that fails is kept, for JGit's read of the same
   * bytes to fail with it. Once only, before {@link #replay}.
   */
  void send(InputStream body, BooleanSupplier fetching, Sink copy) throws IOException {
    TrailerScan scan = new TrailerScan();
    while (length < pack.length && !scan.foundTrailer() && fetching.getAsBoolean()) {
      int n;
      try {
        n = body.read(pack, length, pack.length - length);
      } catch (IOException e) {
        failed = e;
        break;
      }
      if (n < 0) {
        ended = true;
        break;
      }
      length += n;
      int clear = scan.clear(pack, length);
      if (clear > sent) {
        copy.sendNow(pack, sent, clear - sent);
        sent = clear;
      }
    }
  }

  /** How many bytes of the pack went upstream ahead of JGit's parser. */
  int sent() {
    return sent;
  }

  /** The body as JGit is to read it after the pack's header: what was read here, then the rest. */
  InputStream replay(InputStream rest) {
    InputStream read = new ByteArrayInputStream(pack, headerLength, length - headerLength);
    if (failed != null) {
      return new SequenceInputStream(read, new Failing(failed));
    }
    return ended ? read : new SequenceInputStream(read, rest);
  }

  /**
   * What JGit's parser is to hand the pack to: its first {@link #sent} bytes are compared with
   * those sent and dropped, the rest go on to {@code copy}.
   */
  PackCopy resume(PackCopy copy) {
    return new PackCopy() {
      private int checked;

      @Override
      public void objects(byte[] b, int off, int len) throws IOException {
        int again = Math.min(len, sent - checked);
        if (again > 0) {
          if (!Arrays.equals(b, off, off + again, pack, checked, checked + again)) {
            throw new IOException("the pack parsed differs from the pack sent upstream ahead of"
                + " it at byte " + checked);
          }
          checked += again;
        }
        if (len > again) {
          copy.objects(b, off + again, len - again);
        }
      }

      @Override
      public void objectsEnd(byte[] trailer) throws IOException {
        if (checked < sent) {
          throw new IOException("the pack's objects end at byte " + checked + ", before the "
              + sent + " sent upstream ahead of its parser");
        }
        copy.objectsEnd(trailer);
      }
    };
  }

  /** A body whose next read fails as the client's did. */
  private static final class Failing extends InputStream {
    private final IOException failure;

    Failing(IOException failure) {
      this.failure = failure;
    }

    @Override
    public int read() throws IOException {
      throw failure;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      throw failure;
    }
  }
}
