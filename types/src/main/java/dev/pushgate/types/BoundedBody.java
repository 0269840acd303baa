package dev.pushgate.types;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reads an HTTP body whole, never more than the limit its caller passes: the control API, the
 * approvals page, the GitHub API boundary and the local forge read requests with it, the broker
 * GitHub's answers, each with its own limit. A body is refused as soon as it passes the limit,
 * declared or as it arrives, so an oversized body is never held.
 */
public final class BoundedBody {
  private static final int CHUNK = 64 * 1024;
  /** The first read's buffer for a body of no declared length. */
  static final int FIRST_UNDECLARED_CHUNK = 1024;

  /**
   * Takes bytes, as they arrive, from a budget several bodies share (the API boundary's per-run
   * buffered bytes); false when it has not that many left, which refuses the body.
   */
  @FunctionalInterface
  public interface Budget {
    Budget NONE = bytes -> true;

    boolean take(int bytes);
  }

  /** A body not read: {@link #why} says which bound it broke; the message says it to a person. */
  public static final class Refused extends IOException {
    private static final long serialVersionUID = 1L;

    /** Which bound the body broke. */
    public enum Why {
      /** Larger than the limit, as declared or as read. */
      TOO_LARGE,
      /** More than the shared budget had left. */
      OVER_BUDGET,
      /** Not valid UTF-8, where text was expected. */
      NOT_UTF8
    }

    private final Why why;

    Refused(Why why, String message) {
      super(message);
      this.why = why;
    }

    public Why why() {
      return why;
    }
  }

  private BoundedBody() {}

  /**
   * The body's bytes; {@code declared} is its declared length, negative when none was given.
   *
   * @throws Refused {@link Refused.Why#TOO_LARGE} past {@code limit} bytes (message: {@code the
   *     body is larger than LIMIT bytes}), {@link Refused.Why#OVER_BUDGET} when {@code budget}
   *     would not take a chunk
   * @throws IOException the body could not be read
   */
  public static byte[] read(InputStream in, long declared, int limit, Budget budget)
      throws IOException {
    Collector body = new Collector(declared, limit, budget);
    // Most bodies are empty or small (every GET, an API call's JSON): a buffer as large as what
    // was declared, or a small one, grown while reads fill it, not 64 KiB for each.
    byte[] chunk = new byte[declared >= 0 ? (int) Math.max(1, Math.min(CHUNK, declared))
        : FIRST_UNDECLARED_CHUNK];
    int n;
    while ((n = in.read(chunk)) > 0) {
      body.add(chunk, 0, n);
      if (n == chunk.length && chunk.length < CHUNK) {
        chunk = new byte[Math.min(CHUNK, chunk.length * 8)];
      }
    }
    return body.bytes();
  }

  /** {@link #read(InputStream, long, int, Budget)} with no budget but the limit. */
  public static byte[] read(InputStream in, long declared, int limit) throws IOException {
    return read(in, declared, limit, Budget.NONE);
  }

  /** The bytes as UTF-8 text, strictly: a malformed sequence is refused, never replaced. */
  public static String utf8(byte[] bytes) throws Refused {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new Refused(Refused.Why.NOT_UTF8, "the body is not valid UTF-8");
    }
  }

  /**
   * One body's bytes as they arrive, in chunks, for a reader that is handed chunks rather than a
   * stream (a request read without blocking a thread): the chunk that passes the limit or the
   * budget is refused, and nothing of it is kept.
   */
  public static final class Collector {
    private final int limit;
    private final Budget budget;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();

    /** {@code declared} is the body's declared length, negative when none was given. */
    public Collector(long declared, int limit, Budget budget) throws Refused {
      if (declared > limit) {
        throw tooLarge(limit);
      }
      this.limit = limit;
      this.budget = budget;
    }

    public void add(byte[] bytes, int offset, int length) throws Refused {
      if (kept.size() + length > limit) {
        throw tooLarge(limit);
      }
      if (!budget.take(length)) {
        throw new Refused(Refused.Why.OVER_BUDGET, "the body is more than the bytes left to hold");
      }
      kept.write(bytes, offset, length);
    }

    public byte[] bytes() {
      return kept.toByteArray();
    }
  }

  private static Refused tooLarge(int limit) {
    return new Refused(Refused.Why.TOO_LARGE, "the body is larger than " + limit + " bytes");
  }
}
