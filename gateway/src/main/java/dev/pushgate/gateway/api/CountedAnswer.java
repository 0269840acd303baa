package dev.pushgate.gateway.api;

import dev.pushgate.types.BoundedBody;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * GitHub's answer as the boundary's JSON reader takes it in ({@link DownloadLinks}): the reader
 * holds one value at a time (a string whole: a contents answer's {@code content}, a file's
 * base64), so what it holds is the bytes read past the last value passed on (the value it is
 * reading, and what it read ahead). Each is taken from the call's budget ({@link BufferedBytes},
 * the run's share) before the reader has it, {@link #HELD_PER_BYTE} times, and given back once
 * its value is passed on ({@link #passedOn}); a value of more than {@link #MAX_VALUE} bytes is
 * not read at all. Either
 * refusal fails the read with {@link Unread}: nothing more of the answer is passed on.
 */
final class CountedAnswer extends FilterInputStream {
  /**
   * The longest value read: GitHub puts a file's content in a contents answer's JSON only up to
   * 1 MB (1.4 MB of base64 with its line breaks); larger files are read with {@code Accept:
   * application/vnd.github.raw}, whose bytes pass as they come.
   */
  static final int MAX_VALUE = 2 * 1024 * 1024;
  /**
   * What the reader holds per byte of a value while it passes it on: the parser's characters (two
   * bytes each), the string, and the string written out again.
   */
  static final int HELD_PER_BYTE = 4;

  private final BoundedBody.Budget budget;
  /** Bytes of the answer read so far. */
  private long read;
  /** Bytes of the answer whose values have been passed on: the rest are held, and counted. */
  private long passedOn;

  CountedAnswer(InputStream in, BoundedBody.Budget budget) {
    super(in);
    this.budget = budget;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    int n = in.read(b, off, len);
    if (n > 0) {
      if (read + n - passedOn > MAX_VALUE) {
        throw new Unread(502, "GitHub's answer holds a value longer than the " + MAX_VALUE
            + " bytes pushgate reads for download links, so none of it is passed on (a file's"
            + " bytes: ask for Accept: application/vnd.github.raw)");
      }
      if (!budget.take(n * HELD_PER_BYTE)) {
        throw new Unread(503, "pushgate is reading as many GitHub answers and holding as many"
            + " request bodies as it can for this run or every run together; retry after "
            + ApiBoundary.RETRY_AFTER_SECONDS + " s");
      }
      read += n;
    }
    return n;
  }

  /**
   * The answer's first {@code offset} bytes have been passed on (the reader's offset after its
   * last value): they are no longer held; what it read past them still is.
   */
  void passedOn(long offset) {
    long upTo = Math.min(offset, read);
    if (upTo > passedOn) {
      budget.give((int) (upTo - passedOn) * HELD_PER_BYTE);
      passedOn = upTo;
    }
  }

  @Override
  public long skip(long n) throws IOException {
    throw new IOException("an answer read for its links is read, not skipped");
  }

  /**
   * An answer not read to its end, so not passed on: {@link #status} and the message are the
   * run's (they quote nothing of the answer).
   */
  static final class Unread extends IOException {
    private static final long serialVersionUID = 1L;
    private final int status;

    Unread(int status, String message) {
      super(message);
      this.status = status;
    }

    int status() {
      return status;
    }
  }
}
