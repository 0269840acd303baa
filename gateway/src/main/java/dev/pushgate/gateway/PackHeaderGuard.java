package dev.pushgate.gateway;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;
import java.util.zip.GZIPInputStream;

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
    private final int packAt;
    private final InputStream rest;

    private Guarded(HttpServletRequest original, List<String> commands, byte[] read, int packAt,
        InputStream rest) {
      this.original = original;
      this.commands = commands;
      this.read = read;
      this.packAt = packAt;
      this.rest = rest;
    }

    List<String> commands() {
      return commands;
    }

    /** The request to hand on, its body whole again. */
    HttpServletRequest request() {
      return replayed(original, new SequenceInputStream(new ByteArrayInputStream(read), rest));
    }

    /** The same, with the pack (from its header on) read through {@code tap}. */
    HttpServletRequest request(UnaryOperator<InputStream> tap) {
      if (packAt < 0) {
        return request();
      }
      InputStream pack = tap.apply(new SequenceInputStream(
          new ByteArrayInputStream(read, packAt, read.length - packAt), rest));
      return replayed(original,
          new SequenceInputStream(new ByteArrayInputStream(read, 0, packAt), pack));
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
    ByteArrayOutputStream seen = new ByteArrayOutputStream();
    List<String> commands = new ArrayList<>();
    boolean inCommands = true;
    int packAt = -1;
    while (true) {
      byte[] head = in.readNBytes(4);
      seen.writeBytes(head);
      if (head.length == 0 && seen.size() == 0) {
        throw new Refused("the request holds no command");
      }
      if (head.length == 0) {
        break; // after a flush: a push of deletes only, which sends no pack
      }
      if (head.length < 4) {
        throw new Refused("the request ends inside a pkt-line length");
      }
      String h = new String(head, StandardCharsets.ISO_8859_1);
      if (h.equals("PACK")) {
        packAt = seen.size() - 4;
        byte[] rest = in.readNBytes(8);
        seen.writeBytes(rest);
        if (rest.length == 8) {
          long count = ((rest[4] & 0xffL) << 24) | ((rest[5] & 0xffL) << 16)
              | ((rest[6] & 0xffL) << 8) | (rest[7] & 0xffL);
          if (count > maxObjects) {
            throw new Refused("the pack declares " + count + " objects, more than a push may"
                + " hold (" + maxObjects + ")");
          }
        }
        break;
      }
      int len;
      try {
        len = Integer.parseInt(h, 16);
      } catch (NumberFormatException e) {
        break; // not a pkt-line: JGit refuses it
      }
      if (len > 4) {
        byte[] payload = in.readNBytes(len - 4);
        seen.writeBytes(payload);
        if (payload.length < len - 4) {
          throw new Refused("the request ends inside a pkt-line of " + len + " bytes");
        }
        if (inCommands) {
          commands.add(new String(payload, StandardCharsets.UTF_8));
        }
      } else if (len == 0) {
        inCommands = false; // push options, when sent, follow until the next flush
      }
      if (seen.size() > MAX_COMMAND_BYTES) {
        throw new Refused(String.format(Locale.ROOT, "the push's command list exceeds %,d bytes"
            + " (%,d refs and more); push fewer refs at a time", MAX_COMMAND_BYTES,
            commands.size()));
      }
    }
    return new Guarded(req, List.copyOf(commands), seen.toByteArray(), packAt, in);
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
