package dev.pushgate.gateway;

import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Follows a pack as it streams past, to tell where its objects end and its 20-byte SHA-1 trailer
 * begins. The gateway copies a pack upstream while receiving it, and must never copy the trailer
 * before the push has been judged: without it upstream cannot finish the pack, so it applies
 * nothing. A pack's end is only known by walking its objects, whose compressed data has no
 * length, so each zlib stream is inflated into a scratch buffer to find where it stops.
 *
 * <p>Anything unexpected (a bad header, an object larger than it declared, bytes after the
 * trailer) makes the scanner {@linkplain #failed() fail}; after that it lets nothing through.
 */
final class PackBoundary {
  private enum State { HEADER, OBJECT_HEADER, OFS_BASE, REF_BASE, DATA, TRAILER, DONE, FAILED }

  private final long maxObjectBytes;
  private final Inflater inflater = new Inflater();
  private final byte[] scratch = new byte[64 * 1024];
  private final byte[] header = new byte[12];
  private final byte[] trailer = new byte[20];
  private State state = State.HEADER;
  private int filled;
  private long objectsLeft;
  private long declaredSize;
  private int shift;
  private boolean firstHeaderByte;
  private int objectType;
  private String failure;

  PackBoundary(long maxObjectBytes) {
    this.maxObjectBytes = maxObjectBytes;
  }

  /**
   * Scans the next bytes of the pack; returns how many of them lie before the trailer, and so may
   * be copied upstream now.
   */
  int feed(byte[] b, int off, int len) {
    int pos = off;
    int end = off + len;
    int beforeTrailer = 0;
    try {
      while (pos < end) {
        switch (state) {
          case FAILED -> {
            return 0;
          }
          case DONE -> {
            fail("bytes after the pack's trailer");
            return 0;
          }
          case TRAILER -> {
            trailer[filled++] = b[pos++];
            if (filled == trailer.length) {
              state = State.DONE;
            }
          }
          default -> {
            pos += step(b, pos, end);
            beforeTrailer = pos - off;
          }
        }
      }
    } catch (DataFormatException e) {
      fail("an object's compressed data is corrupt");
    }
    return state == State.FAILED ? 0 : beforeTrailer;
  }

  /** Whether every object has been seen: what follows is the trailer. */
  boolean objectsEnded() {
    return state == State.TRAILER || state == State.DONE;
  }

  /** Whether the whole pack, trailer included, has been seen and nothing after it. */
  boolean done() {
    return state == State.DONE;
  }

  boolean failed() {
    return state == State.FAILED;
  }

  String failure() {
    return failure;
  }

  /** The pack's SHA-1 trailer, once {@link #done()}. */
  byte[] trailer() {
    if (!done()) {
      throw new IllegalStateException("the pack has not been seen to its end");
    }
    return trailer.clone();
  }

  void release() {
    inflater.end();
  }

  private int step(byte[] b, int pos, int end) throws DataFormatException {
    switch (state) {
      case HEADER -> {
        int n = Math.min(end - pos, header.length - filled);
        System.arraycopy(b, pos, header, filled, n);
        filled += n;
        if (filled == header.length) {
          startPack();
        }
        return n;
      }
      case OBJECT_HEADER -> {
        int c = b[pos] & 0xff;
        if (firstHeaderByte) {
          int type = (c >> 4) & 7;
          if (type == 0 || type == 5) {
            fail("an object of unknown type " + type);
            return 1;
          }
          declaredSize = c & 0x0f;
          shift = 4;
          firstHeaderByte = false;
          objectType = type;
        } else {
          if (shift > 56) {
            fail("an object's size does not fit 64 bits");
            return 1;
          }
          declaredSize |= (long) (c & 0x7f) << shift;
          shift += 7;
        }
        if ((c & 0x80) == 0) {
          if (declaredSize > maxObjectBytes) {
            fail("an object of " + declaredSize + " bytes");
          } else if (objectType == 6) {
            state = State.OFS_BASE;
            filled = 0;
          } else if (objectType == 7) {
            state = State.REF_BASE;
            filled = 0;
          } else {
            startData();
          }
        }
        return 1;
      }
      case OFS_BASE -> {
        if (++filled > 10) {
          fail("a delta's base offset does not fit 64 bits");
        } else if ((b[pos] & 0x80) == 0) {
          startData();
        }
        return 1;
      }
      case REF_BASE -> {
        int n = Math.min(end - pos, 20 - filled);
        filled += n;
        if (filled == 20) {
          startData();
        }
        return n;
      }
      case DATA -> {
        return inflate(b, pos, end);
      }
      default -> throw new IllegalStateException(state.name());
    }
  }

  private void startPack() {
    if (header[0] != 'P' || header[1] != 'A' || header[2] != 'C' || header[3] != 'K') {
      fail("no pack signature");
      return;
    }
    long version = readInt(4);
    if (version != 2 && version != 3) {
      fail("pack version " + version);
      return;
    }
    objectsLeft = readInt(8);
    nextObject();
  }

  private void nextObject() {
    filled = 0;
    if (objectsLeft-- == 0) {
      state = State.TRAILER;
      return;
    }
    state = State.OBJECT_HEADER;
    firstHeaderByte = true;
  }

  private void startData() {
    inflater.reset();
    state = State.DATA;
  }

  private int inflate(byte[] b, int pos, int end) throws DataFormatException {
    inflater.setInput(b, pos, end - pos);
    while (!inflater.finished()) {
      int n = inflater.inflate(scratch);
      if (inflater.getBytesWritten() > declaredSize) {
        fail("an object larger than it declared");
        return end - pos;
      }
      if (n == 0 && !inflater.finished()) {
        if (!inflater.needsInput()) {
          fail("an object's compressed data asks for a dictionary");
        }
        return end - pos;
      }
    }
    if (inflater.getBytesWritten() != declaredSize) {
      fail("an object smaller than it declared");
      return end - pos;
    }
    int used = (end - pos) - inflater.getRemaining();
    nextObject();
    return used;
  }

  private long readInt(int at) {
    return ((header[at] & 0xffL) << 24) | ((header[at + 1] & 0xffL) << 16)
        | ((header[at + 2] & 0xffL) << 8) | (header[at + 3] & 0xffL);
  }

  private void fail(String why) {
    if (state != State.FAILED) {
      failure = why;
      state = State.FAILED;
    }
  }
}
