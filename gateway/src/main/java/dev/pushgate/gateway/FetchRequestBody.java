package dev.pushgate.gateway;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.eclipse.jgit.lib.ObjectId;

/**
 * A POST to upload-pack as its pkt-lines, read by the gateway before JGit sees it: whether it is
 * whole, and its haves, so that JGit is handed only those the cache's branches and tags reach
 * ({@link CommonHaves}). JGit acknowledges any have the cache holds, reachable or not (a refused
 * push's commit, a blob); a have line is then an existence probe of whatever the cache holds.
 *
 * <p>A body is whole when every pkt-line is (a hex length of 0000, 0001 or 4 to 65520, and that
 * many bytes) and it ends as git ends one: with a flush, or (protocol v0) with {@code done}. A
 * have line is {@code have }, an object id and an optional LF, as JGit reads it; any other line
 * starting {@code have } is malformed. JGit would fail a cut request with an internal error.
 */
final class FetchRequestBody {
  private static final int MAX_PKT_LINE = 65520;
  private static final byte[] HAVE = "have ".getBytes(StandardCharsets.US_ASCII);

  private final byte[] body;
  private final boolean fetches;
  /** Where each pkt-line starts, and its length as its header says (0 or 1: a flush, a delim). */
  private final int[] starts;
  private final int[] lengths;

  private FetchRequestBody(byte[] body, boolean v2, int[] starts, int[] lengths) {
    this.body = body;
    this.starts = starts;
    this.lengths = lengths;
    this.fetches = !v2 || starts.length > 0 && payloadIs(0, "command=fetch");
  }

  /** Why a body is not a request git sends; the message names no byte of it. */
  static final class Malformed extends Exception {
    private static final long serialVersionUID = 1L;

    Malformed(String message) {
      super(message, null, false, false);
    }
  }

  /** {@code body} in protocol v2 or v0 as its pkt-lines. */
  static FetchRequestBody read(byte[] body, boolean v2) throws Malformed {
    List<Integer> starts = new ArrayList<>();
    List<Integer> lengths = new ArrayList<>();
    for (int at = 0; at < body.length; ) {
      if (body.length - at < 4) {
        throw new Malformed("cut within a pkt-line's length header");
      }
      int len = length(body, at);
      if (len == 2 || len == 3 || len > MAX_PKT_LINE) {
        throw new Malformed("a pkt-line's length header is not valid");
      }
      int size = len < 4 ? 4 : len;
      if (body.length - at < size) {
        throw new Malformed("cut within a pkt-line");
      }
      starts.add(at);
      lengths.add(len);
      at += size;
    }
    int n = starts.size();
    int[] s = starts.stream().mapToInt(Integer::intValue).toArray();
    int[] l = lengths.stream().mapToInt(Integer::intValue).toArray();
    FetchRequestBody read = new FetchRequestBody(body, v2, s, l);
    boolean ended = n > 0 && (l[n - 1] == 0 || !v2 && read.payloadIs(n - 1, "done"));
    if (!ended) {
      throw new Malformed("cut before its final flush" + (v2 ? "" : " or done"));
    }
    for (int i = 0; i < n; i++) {
      if (read.isHaveLine(i) && read.have(i) == null) {
        throw new Malformed("a have line does not name one object id");
      }
    }
    return read;
  }

  /** Whether the body asks for a pack: protocol v0, or v2's {@code command=fetch}. */
  boolean fetches() {
    return fetches;
  }

  /** The object ids its have lines name, in order. */
  List<ObjectId> haves() {
    List<ObjectId> haves = new ArrayList<>();
    for (int i = 0; i < starts.length; i++) {
      if (isHaveLine(i)) {
        haves.add(have(i));
      }
    }
    return haves;
  }

  /** The body without the have lines whose ids are not in {@code kept}; all else byte for byte. */
  byte[] keepingHaves(Set<ObjectId> kept) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(body.length);
    for (int i = 0; i < starts.length; i++) {
      if (!isHaveLine(i) || kept.contains(have(i))) {
        out.write(body, starts[i], Math.max(lengths[i], 4));
      }
    }
    return out.toByteArray();
  }

  private static int length(byte[] body, int at) throws Malformed {
    int len = 0;
    for (int i = at; i < at + 4; i++) {
      int d = Character.digit(body[i], 16);
      if (d < 0) {
        throw new Malformed("a pkt-line's length header is not valid");
      }
      len = len << 4 | d;
    }
    return len;
  }

  /** Whether pkt-line {@code i} says {@code text}, with or without a trailing LF. */
  private boolean payloadIs(int i, String text) {
    return line(i).equals(text);
  }

  private boolean isHaveLine(int i) {
    return lengths[i] >= 4 + HAVE.length
        && Arrays.equals(body, starts[i] + 4, starts[i] + 4 + HAVE.length, HAVE, 0, HAVE.length);
  }

  /** The id of have line {@code i}, or null if it names none. */
  private ObjectId have(int i) {
    String id = line(i).substring(HAVE.length);
    return id.length() == 40 && ObjectId.isId(id) ? ObjectId.fromString(id) : null;
  }

  /** Pkt-line {@code i}'s payload as text, less one trailing LF (a flush or delim: empty). */
  private String line(int i) {
    int len = lengths[i] < 4 ? 0 : lengths[i] - 4;
    int from = starts[i] + 4;
    if (len > 0 && body[from + len - 1] == '\n') {
      len--;
    }
    return new String(body, from, len, StandardCharsets.ISO_8859_1);
  }
}
