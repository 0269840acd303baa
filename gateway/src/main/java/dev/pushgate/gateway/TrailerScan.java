package dev.pushgate.gateway;

import java.security.MessageDigest;
import java.util.Arrays;
import org.eclipse.jgit.lib.Constants;

/**
 * How much of a pack's start may go upstream before the gateway has parsed and judged it: the
 * longest prefix holding no 20 bytes that equal the SHA-1 of every byte before them, read as it
 * arrives.
 *
 * <p>Such 20 bytes are what a pack's trailer is, whatever its objects: git's {@code index-pack}
 * and {@code unpack-objects}, JGit's parser, any receiver completes a pack only where the 20
 * bytes after its last object equal the SHA-1 of all the bytes before them, and applies nothing
 * before. So a prefix without such a run cannot be completed upstream, however its objects are
 * read, and nothing here has to know where they end: no second parse of the pack, which could
 * disagree with JGit's, decides what goes upstream. Bytes after a trailer (junk that would move
 * the real trailer out of the last 20 bytes read) change nothing: the scan stops at the first
 * trailer it finds, for good.
 *
 * <p>Each position costs a SHA-1 finished on a copy of the running digest (a block or two), some
 * 100 times the cost of hashing the bytes once: it is meant for a pack's first few KiB.
 */
final class TrailerScan {
  static final int TRAILER_BYTES = 20;

  private final MessageDigest before = Constants.newMessageDigest();
  /** The next position whose 20 bytes are to be checked; {@link #before} has every byte before. */
  private int next;
  /** Where a trailer was found, or -1. */
  private int trailerAt = -1;

  /**
   * How many of {@code pack}'s first {@code length} bytes may go upstream: all but the last 20,
   * or up to the first trailer found in them. {@code pack} holds the same bytes at every call,
   * {@code length} grows; the answer never shrinks.
   */
  int clear(byte[] pack, int length) {
    if (trailerAt >= 0) {
      return trailerAt;
    }
    for (; next + TRAILER_BYTES <= length; next++) {
      if (isTrailerAt(pack, next)) {
        trailerAt = next;
        return next;
      }
      before.update(pack[next]);
    }
    return Math.max(0, length - TRAILER_BYTES);
  }

  /** Whether a trailer was found: the pack's end, or the start of what is held back for good. */
  boolean foundTrailer() {
    return trailerAt >= 0;
  }

  private boolean isTrailerAt(byte[] pack, int at) {
    byte[] sum;
    try {
      sum = ((MessageDigest) before.clone()).digest();
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("the JDK's SHA-1 cannot be copied", e);
    }
    return Arrays.equals(sum, 0, TRAILER_BYTES, pack, at, at + TRAILER_BYTES);
  }
}
