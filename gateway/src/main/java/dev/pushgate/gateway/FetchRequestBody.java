package dev.pushgate.gateway;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
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
 * starting {@code have } is malformed, and so is one where JGit reads no have (v0: before the
 * wants' flush or after {@code done}; v2: outside the command's arguments), so that the haves
 * judged are the haves JGit reads. JGit would fail a cut request with an internal error.
 *
 * <p>The same one reading gives what the request asks for ({@link #wants}, {@link
 * #capabilities}, {@link #arguments}, {@link #done}), which {@link StreamedFetch} decides by:
 * nothing else reads the body's bytes before JGit. In v0 the request ends at {@code done} (git
 * sends a flush after it, nothing more); in v2 at the command's flush. A data line past its end,
 * a delim in v0, or a v2 fetch without the delim before its arguments is malformed: git sends
 * none of them, and JGit would read no such line or refuse the fetch.
 */
final class FetchRequestBody {
  private static final int MAX_PKT_LINE = 65520;
  private static final byte[] HAVE = "have ".getBytes(StandardCharsets.US_ASCII);

  private static final int FLUSH = 0;
  private static final int DELIM = 1;

  private final byte[] body;
  private final boolean v2;
  private final boolean fetches;
  /** Where each pkt-line starts, and its length as its header says (0 or 1: a flush, a delim). */
  private final int[] starts;
  private final int[] lengths;
  private final Set<ObjectId> wants = new LinkedHashSet<>();
  private final Set<String> capabilities = new LinkedHashSet<>();
  private final List<String> arguments = new ArrayList<>();
  private final List<ObjectId> haves = new ArrayList<>();
  private boolean done;

  private FetchRequestBody(byte[] body, boolean v2, int[] starts, int[] lengths) {
    this.body = body;
    this.v2 = v2;
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
    int end = v2 ? read.readV2() : read.readV0();
    for (int i = end; i < n; i++) {
      if (l[i] != FLUSH) {
        throw new Malformed("a line follows the request's end (" + (v2 ? "its flush" : "done")
            + ")");
      }
    }
    return read;
  }

  /**
   * Reads a v0 request as JGit does: want lines (and shallow, deepen, filter) up to a flush, then
   * rounds of haves ending with {@code done} or a flush; where the request ends.
   */
  private int readV0() throws Malformed {
    int i = 0;
    for (; i < starts.length && lengths[i] != FLUSH; i++) {
      refuseV0Delim(i);
      if (isHaveLine(i)) {
        throw new Malformed("a have line comes before the wants' flush");
      }
      String line = line(i);
      ObjectId want = want(line, wants.isEmpty());
      if (want == null) {
        arguments.add(line); // shallow, deepen, filter, or a want git does not spell so
        continue;
      }
      if (wants.isEmpty()) {
        capabilities.addAll(Arrays.asList(line.substring(45).trim().split(" +")));
      }
      wants.add(want);
    }
    for (i++; i < starts.length; i++) {
      refuseV0Delim(i);
      if (lengths[i] == FLUSH) {
        continue;
      }
      if (isHaveLine(i)) {
        haves.add(have(i));
      } else if (payloadIs(i, "done")) {
        done = true;
        return i + 1;
      } else {
        arguments.add(line(i));
      }
    }
    return starts.length;
  }

  private void refuseV0Delim(int i) throws Malformed {
    if (lengths[i] == DELIM) {
      throw new Malformed("a delim-pkt in a protocol v0 request");
    }
  }

  /**
   * Reads a v2 request as JGit does: its command, capabilities up to a delim, then arguments up
   * to a flush; where the request ends.
   */
  private int readV2() throws Malformed {
    int i = 1;
    for (; i < starts.length && lengths[i] > DELIM; i++) {
      if (isHaveLine(i)) {
        throw new Malformed("a have line is not among the command's arguments");
      }
      capabilities.add(line(i)); // agent=, object-format=, session-id=, server-option=
    }
    if (i >= starts.length || lengths[i] == FLUSH) {
      if (fetches) {
        throw new Malformed("a fetch command has no delim before its arguments");
      }
      return Math.min(i + 1, starts.length);
    }
    for (i++; i < starts.length && lengths[i] != FLUSH; i++) {
      if (lengths[i] == DELIM) {
        throw new Malformed("a second delim-pkt among the command's arguments");
      }
      String line = line(i);
      ObjectId want = want(line, false);
      if (want != null) {
        wants.add(want);
      } else if (isHaveLine(i)) {
        haves.add(have(i));
      } else if (line.equals("done")) {
        done = true;
      } else {
        arguments.add(line); // ofs-delta, thin-pack, shallow, filter, a want not so spelt, …
      }
    }
    return i + 1;
  }

  /**
   * The id a want line names: {@code want }, an object id, and (the first line of v0 only) its
   * capabilities; null for any other line.
   */
  private static ObjectId want(String line, boolean mayHaveCapabilities) {
    boolean plain = line.length() == 45 || mayHaveCapabilities && line.length() > 45;
    return plain && line.startsWith("want ") && ObjectId.isId(line.substring(5, 45))
        ? ObjectId.fromString(line.substring(5, 45)) : null;
  }

  /** Whether this is protocol v2's request. */
  boolean v2() {
    return v2;
  }

  /** Whether the body asks for a pack: protocol v0, or v2's {@code command=fetch}. */
  boolean fetches() {
    return fetches;
  }

  /** The object ids its have lines name, in order. */
  List<ObjectId> haves() {
    return Collections.unmodifiableList(haves);
  }

  /** The object ids its well-formed want lines name, in order, once each. */
  Set<ObjectId> wants() {
    return Collections.unmodifiableSet(wants);
  }

  /** v0: the first want line's capabilities; v2: the command's capability lines. */
  Set<String> capabilities() {
    return Collections.unmodifiableSet(capabilities);
  }

  /**
   * Its other lines, in order: v0's before its wants' flush that are not a want as git spells
   * one (shallow, deepen, filter) and any in its rounds that is not a have; v2's arguments other
   * than want, have and done (ofs-delta, thin-pack, shallow, filter, an argument unknown).
   */
  List<String> arguments() {
    return Collections.unmodifiableList(arguments);
  }

  /** Whether it ends its negotiation with {@code done}. */
  boolean done() {
    return done;
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
