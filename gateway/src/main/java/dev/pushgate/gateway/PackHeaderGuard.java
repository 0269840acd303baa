package dev.pushgate.gateway;

import jakarta.servlet.http.HttpServletRequest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.io.SequenceInputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.eclipse.jgit.transport.PacketLineIn;
import org.eclipse.jgit.util.NB;
import org.eclipse.jgit.util.RawParseUtils;

/**
 * Reads a push request up to its pack header and refuses a pack that declares more objects than
 * a push of the allowed size can hold, before JGit sizes its tables by that count: a few bytes
 * declaring a billion objects would otherwise take the heap.
 *
 * <p>The pack starts at a pkt-line boundary with {@code PACK}, which is never a pkt-line length,
 * so finding it needs no knowledge of the capabilities in use.
 */
final class PackHeaderGuard {
  /** The smallest an object can be in a pack: a header byte and an empty zlib stream. */
  static final long MIN_OBJECT_BYTES = 10;
  /** Far more than any real push (a full clone of Linux has about 10 million objects). */
  static final long MAX_OBJECTS = 20_000_000;
  /**
   * What JGit's receive-pack reads of a command list at most (its default, about 30,000 refs),
   * here and upstream on the local forge: refused before the pack with a reason, instead of
   * failing inside JGit (a 500) after a streamed forward had begun.
   */
  static final int MAX_COMMAND_BYTES = 3 << 20;

  private static final byte[] PACK = {'P', 'A', 'C', 'K'};

  /** Thrown for a request that must be refused; the message is for the person pushing. */
  static final class Refused extends IOException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  /**
   * A request read up to its pack, to hand on with what was read replayed; and the pkt-lines of
   * its command list as sent (the first one with its capabilities after a NUL), for a look before
   * the pack is read.
   */
  static final class Guarded {
    private final HttpServletRequest original;
    private final List<String> commands;
    private final byte[] read;
    private final InputStream rest;
    /** The pack's 12-byte header, the end of {@link #read}; empty when the request has none. */
    private final byte[] packHeader;

    private Guarded(HttpServletRequest original, List<String> commands, byte[] read,
        InputStream rest, byte[] packHeader) {
      this.original = original;
      this.commands = commands;
      this.read = read;
      this.rest = rest;
      this.packHeader = packHeader;
    }

    List<String> commands() {
      return commands;
    }

    /** The pack's header, when the request reached a whole one. */
    Optional<byte[]> packHeader() {
      return packHeader.length == 0 ? Optional.empty() : Optional.of(packHeader.clone());
    }

    /** The body after what was read here: after the pack's header, when there is one. */
    InputStream rest() {
      return rest;
    }

    /**
     * This request with {@code rest} in place of the body after what was read here: the same
     * bytes, some of them read since ({@link EarlyPack#replay}).
     */
    Guarded withRest(InputStream rest) {
      return new Guarded(original, commands, read, rest, packHeader);
    }

    /** The request to hand on, its body whole again. */
    HttpServletRequest request() {
      return HandedOn.withDecodedBody(original,
          new SequenceInputStream(new ByteArrayInputStream(read), rest));
    }
  }

  private PackHeaderGuard() {}

  static long maxObjects(long maxPackBytes) {
    return Math.max(1, Math.min(MAX_OBJECTS, maxPackBytes / MIN_OBJECT_BYTES));
  }

  /** The request with the commands and pack header already checked and replayed to JGit. */
  static Guarded check(HttpServletRequest req, long maxObjects) throws IOException {
    PushbackInputStream body = new PushbackInputStream(HandedOn.decoded(req, "a push request"),
        4);
    ByteArrayOutputStream seen = new ByteArrayOutputStream();
    // Read as JGit's receive-pack reads it, so that the commands looked at here are those it runs.
    PacketLineIn pkt = new PacketLineIn(new Recorded(body, seen));
    List<String> commands = new ArrayList<>();
    boolean inCommands = true;
    byte[] packHeader = new byte[0];
    while (true) {
      byte[] head = body.readNBytes(4);
      body.unread(head);
      if (head.length == 0 && seen.size() == 0) {
        throw new Refused("the request holds no command");
      }
      if (head.length == 0) {
        break; // after a flush: a push of deletes only, which sends no pack
      }
      if (head.length < 4) {
        throw new Refused("the request ends inside a pkt-line length");
      }
      if (Arrays.equals(head, PACK)) {
        byte[] header = body.readNBytes(12);
        seen.writeBytes(header);
        if (header.length == 12) {
          packHeader = header;
          long count = NB.decodeUInt32(header, 8);
          if (count > maxObjects) {
            throw new Refused("the pack declares " + count + " objects, more than a push may"
                + " hold (" + maxObjects + ")");
          }
        }
        break;
      }
      int len = lengthOf(head);
      if (len < 0) {
        break; // not a pkt-line: JGit refuses it, in its own words
      }
      String line;
      try {
        // readStringRaw keeps the newline as sent, but fails on a delimiter (JGit 7.5).
        line = len == 1 ? pkt.readString() : pkt.readStringRaw();
      } catch (EOFException e) {
        if (e.getClass() != EOFException.class) {
          throw e; // the connection's end (Jetty's EofException), not a cut pkt-line
        }
        throw new Refused("the request ends inside a pkt-line of " + len + " bytes");
      }
      if (PacketLineIn.isEnd(line)) {
        inCommands = false; // push options, when sent, follow until the next flush
      } else if (inCommands && len > 4) {
        commands.add(line);
      }
      if (seen.size() > MAX_COMMAND_BYTES) {
        throw new Refused(String.format(Locale.ROOT, "the push's command list exceeds %,d bytes"
            + " (%,d refs and more); push fewer refs at a time", MAX_COMMAND_BYTES,
            commands.size()));
      }
    }
    return new Guarded(req, List.copyOf(commands), seen.toByteArray(), body, packHeader);
  }

  /**
   * A pkt-line's length as JGit's reader takes it (0 a flush, 1 a delimiter, 4 and more a line);
   * -1 for anything it refuses.
   */
  private static int lengthOf(byte[] head) {
    int len;
    try {
      len = RawParseUtils.parseHexInt16(head, 0);
    } catch (ArrayIndexOutOfBoundsException e) {
      return -1;
    }
    return len == 2 || len == 3 ? -1 : len;
  }

  /** What is read through it, copied into {@code seen}: to replay the request to JGit whole. */
  private static final class Recorded extends HandedOn.Tapped {
    private final ByteArrayOutputStream seen;

    Recorded(InputStream in, ByteArrayOutputStream seen) {
      super(in);
      this.seen = seen;
    }

    @Override
    void onRead(byte[] b, int off, int n) {
      seen.write(b, off, n);
    }

    @Override
    public long skip(long n) throws IOException {
      // JGit reads every byte of a command list; skipping would lose bytes from the replay.
      throw new IOException("a pkt-line is read, not skipped");
    }
  }
}
