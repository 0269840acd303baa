package dev.pushgate.types;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

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
   * Takes bytes from a budget several bodies share (the API boundary's buffered bytes) before
   * they are held: a declared length at once, other bodies as they arrive; false when it has not
   * that many left, which refuses the body.
   */
  @FunctionalInterface
  public interface Budget {
    Budget NONE = bytes -> true;

    boolean take(int bytes);

    /** Gives back bytes taken and no longer held (the chunks of a body joined into one). */
    default void give(int bytes) {}
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
   * budget is refused, and nothing of it is kept. Every byte held is taken from the budget before
   * it is held. A body of declared length takes all of it from the budget at once and is read
   * into one buffer of that length, returned as it is: no growing, no final copy. A body of no
   * declared length is kept as the chunks it came in, each taken as it comes, and joined once at
   * the end; the joined copy is taken from the budget before it is made, and the chunks given
   * back once it is.
   */
  public static final class Collector {
    private static final byte[] EMPTY = new byte[0];
    private static final int MIN_CAPACITY = 256;

    private final int limit;
    private final Budget budget;
    /** The body of declared length: its one buffer; null when none was declared. */
    private final byte[] declared;
    /**
     * A body of no declared length: one buffer, grown by doubling, whose whole capacity is taken
     * from the budget. Not a list of the chunks as they came: a body of one-byte chunks held
     * some 30 bytes of heap for each byte the budget counted (attack atk-fairbody).
     */
    private byte[] growing = EMPTY;
    private int size;

    /** {@code declared} is the body's declared length, negative when none was given. */
    public Collector(long declared, int limit, Budget budget) throws Refused {
      if (declared > limit) {
        throw tooLarge(limit);
      }
      this.limit = limit;
      this.budget = budget;
      if (declared >= 0) {
        take((int) declared);
        this.declared = new byte[(int) declared];
      } else {
        this.declared = null;
      }
    }

    public void add(byte[] bytes, int offset, int length) throws Refused {
      add(ByteBuffer.wrap(bytes, offset, length));
    }

    /** Adds the remaining bytes of {@code bytes}, which are consumed. */
    public void add(ByteBuffer bytes) throws Refused {
      int length = bytes.remaining();
      if (size + length > limit) {
        throw tooLarge(limit);
      }
      if (declared != null) {
        if (length > declared.length - size) {
          throw new Refused(Refused.Why.TOO_LARGE,
              "the body is longer than its declared " + declared.length + " bytes");
        }
        bytes.get(declared, size, length);
      } else if (length > 0) {
        if (length > growing.length - size) {
          grow(size + length);
        }
        bytes.get(growing, size, length);
      }
      size += length;
    }

    private void grow(int needed) throws Refused {
      int capacity = (int) Math.min(limit,
          Math.max(needed, Math.max(MIN_CAPACITY, 2L * growing.length)));
      take(capacity - growing.length);
      growing = Arrays.copyOf(growing, capacity);
    }

    /** The whole body; a body of no declared length in more than one chunk is joined here. */
    public byte[] bytes() throws Refused {
      if (declared != null) {
        // Shorter than declared only from a stream that ended early (Jetty fails such a body).
        return size == declared.length ? declared : Arrays.copyOf(declared, size);
      }
      if (size == growing.length) {
        return growing;
      }
      take(size);
      byte[] whole = Arrays.copyOf(growing, size);
      int capacity = growing.length;
      growing = EMPTY;
      budget.give(capacity);
      return whole;
    }

    private void take(int bytes) throws Refused {
      if (!budget.take(bytes)) {
        throw new Refused(Refused.Why.OVER_BUDGET, "the body is more than the bytes left to hold");
      }
    }
  }

  private static Refused tooLarge(int limit) {
    return new Refused(Refused.Why.TOO_LARGE, "the body is larger than " + limit + " bytes");
  }
}
