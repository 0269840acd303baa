package dev.pushgate.gateway;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.io.SequenceInputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
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

    private Guarded(HttpServletRequest original, List<String> commands, byte[] read,
        InputStream rest) {
      this.original = original;
      this.commands = commands;
      this.read = read;
      this.rest = rest;
    }

    List<String> commands() {
      return commands;
    }

    /** The request to hand on, its body whole again. */
    HttpServletRequest request() {
      return replayed(original, new SequenceInputStream(new ByteArrayInputStream(read), rest));
    }
  }

  private PackHeaderGuard() {}

  static long maxObjects(long maxPackBytes) {
    return Math.max(1, Math.min(MAX_OBJECTS, maxPackBytes / MIN_OBJECT_BYTES));
  }

  /** The request with the commands and pack header already checked and replayed to JGit. */
  static Guarded check(HttpServletRequest req, long maxObjects) throws IOException {
    boolean gzip = "gzip".equalsIgnoreCase(req.getHeader("Content-Encoding"));
    InputStream in = gzip ? new GZIPInputStream(req.getInputStream()) : req.getInputStream();
    PushbackInputStream body = new PushbackInputStream(in, 4);
    ByteArrayOutputStream seen = new ByteArrayOutputStream();
    // Read as JGit's receive-pack reads it, so that the commands looked at here are those it runs.
    PacketLineIn pkt = new PacketLineIn(new Recorded(body, seen));
    List<String> commands = new ArrayList<>();
    boolean inCommands = true;
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
    return new Guarded(req, List.copyOf(commands), seen.toByteArray(), body);
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
  private static final class Recorded extends FilterInputStream {
    private final ByteArrayOutputStream seen;

    Recorded(InputStream in, ByteArrayOutputStream seen) {
      super(in);
      this.seen = seen;
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        seen.write(b);
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = in.read(b, off, len);
      if (n > 0) {
        seen.write(b, off, n);
      }
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      // JGit reads every byte of a command list; skipping would lose bytes from the replay.
      throw new IOException("a pkt-line is read, not skipped");
    }
  }

  private static HttpServletRequest replayed(HttpServletRequest req, InputStream replay) {
    ServletInputStream body = blocking(replay);
    return new HttpServletRequestWrapper(req) {
      @Override
      public ServletInputStream getInputStream() {
        return body;
      }

      @Override
      public String getHeader(String name) {
        // The body is handed on decompressed.
        return "Content-Encoding".equalsIgnoreCase(name) ? null : super.getHeader(name);
      }
    };
  }

  /** {@code in} as a servlet body for blocking reads, as JGit reads it. */
  static ServletInputStream blocking(InputStream in) {
    return new ServletInputStream() {
      @Override
      public int read() throws IOException {
        return in.read();
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return in.read(b, off, len);
      }

      @Override
      public int available() throws IOException {
        return in.available();
      }

      @Override
      public boolean isFinished() {
        return false;
      }

      @Override
      public boolean isReady() {
        return true;
      }

      @Override
      public void setReadListener(ReadListener listener) {
        throw new UnsupportedOperationException("blocking reads only");
      }
    };
  }
}
