package dev.pushgate.gateway;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * nothing else reads the body's bytes before JGit. In v0 the request ends at {@code done} or at
 * its round's flush (JGit, serving HTTP, reads one round a request and fails one with any byte
 * after {@code done}); in v2 at the command's flush, which only flushes may follow. A line past
 * its end, a delim in v0, or a v2 fetch without the delim before its arguments is malformed: git
 * sends none of them, and JGit would read no such line or refuse the fetch. So is a number JGit
 * cannot read ({@code deepen}, {@code deepen-since}) and a {@code shallow} line that names no
 * object id: JGit would fail either with an internal error.
 *
 * <p>Every object id the request names that JGit looks up in the cache ({@link #named}: have,
 * shallow, and a deepen-not that is an id) is judged by one rule, {@link #handedOn}: one no
 * branch or tag reaches is handed to JGit as one the cache lacks, so that what else the cache
 * holds (a refused or held push) answers as an absent object does.
 */
final class FetchRequestBody {
  private static final int MAX_PKT_LINE = 65520;
  private static final byte[] HAVE = "have ".getBytes(StandardCharsets.US_ASCII);
  private static final String SHALLOW = "shallow ";
  private static final String DEEPEN_NOT = "deepen-not ";
  /** Arguments whose value JGit reads with {@link Integer#parseInt}. */
  private static final List<String> NUMBERS = List.of("deepen ", "deepen-since ");
  /** What JGit's upload-pack cannot serve: it throws, as an internal error. */
  private static final String DEEPEN_RELATIVE = "deepen-relative";

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
  /** Which lines JGit reads as arguments: v0's before the wants' flush, v2's after the delim. */
  private final Set<Integer> argumentLines = new LinkedHashSet<>();
  private final List<ObjectId> haves = new ArrayList<>();
  /** Of the lines JGit reads an object id from, which one ({@link IdLine}). */
  private final Map<Integer, IdLine> idLines = new LinkedHashMap<>();
  private boolean done;

  private FetchRequestBody(byte[] body, boolean v2, int[] starts, int[] lengths) {
    this.body = body;
    this.v2 = v2;
    this.starts = starts;
    this.lengths = lengths;
    this.fetches = !v2 || starts.length > 0 && payloadIs(0, "command=fetch");
  }

  /**
   * A line JGit reads an object id from and looks it up in the cache: a have or a shallow line,
   * which JGit ignores when the cache lacks the object ({@code mustExist} false), or a
   * deepen-not naming an id, which it fails on (true).
   */
  private record IdLine(String argument, ObjectId id, boolean mustExist) {}

  /**
   * A deepen-not naming an object id no branch or tag reaches: JGit fails on one the cache
   * lacks. The message names the id and no other byte of the body.
   */
  static final class NotReached extends Exception {
    private static final long serialVersionUID = 1L;

    NotReached(String message) {
      super(message, null, false, false);
    }
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
      if (l[i] != FLUSH || !v2) {
        throw new Malformed("a line follows the request's end (" + (v2 ? "its flush"
            : "done or its round's flush") + ")");
      }
    }
    read.readArguments();
    return read;
  }

  /**
   * Reads the arguments JGit parses a value of: shallow and deepen-not (the ids it looks up),
   * deepen and deepen-since (numbers). v0's come before the wants' flush; any later one JGit
   * refuses itself, as a line its negotiation does not expect. A v2 command other than fetch
   * has none of them.
   */
  private void readArguments() throws Malformed {
    if (!fetches) {
      return;
    }
    for (int i : argumentLines) {
      String line = line(i);
      if (line.startsWith(SHALLOW)) {
        ObjectId id = id(line.substring(SHALLOW.length()));
        if (id == null) {
          throw new Malformed("a shallow line does not name one object id");
        }
        idLines.put(i, new IdLine("shallow", id, false));
      } else if (line.startsWith(DEEPEN_NOT)) {
        // JGit reads an id as one, anything else as a ref name, which it resolves among the
        // branches and tags it shows
        ObjectId id = id(line.substring(DEEPEN_NOT.length()));
        if (id != null) {
          idLines.put(i, new IdLine("deepen-not", id, true));
        }
      }
      for (String number : NUMBERS) {
        if (line.startsWith(number) && !isInt(line.substring(number.length()))) {
          throw new Malformed("a " + number.trim() + " line's value is not a number JGit reads");
        }
      }
    }
  }

  private static boolean isInt(String s) {
    try {
      Integer.parseInt(s);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /**
   * Reads a v0 request as JGit serving HTTP does: want lines (and shallow, deepen, filter) up to
   * a flush, then one round of haves ending with {@code done} or a flush; where it ends.
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
        arguments.add(line); // shallow, deepen, filter
        argumentLines.add(i);
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
        return i + 1; // the round's end
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
        arguments.add(line); // ofs-delta, thin-pack, shallow, filter, …
        argumentLines.add(i);
      }
    }
    return i + 1;
  }

  /**
   * The id a want line names: {@code want }, an object id, and (the first line of v0 only) a
   * space and its capabilities; null for a line that is not a want. A line that starts as a want
   * but names no one object id so (a short or long id, two spaces, a trailing space, a NUL) is
   * malformed: JGit would fail on it with a stack trace rather than an answer.
   */
  private static ObjectId want(String line, boolean mayHaveCapabilities) throws Malformed {
    if (!line.startsWith("want ")) {
      return null;
    }
    boolean plain = line.length() == 45
        || mayHaveCapabilities && line.length() > 46 && line.charAt(45) == ' ';
    if (!plain || !ObjectId.isId(line.substring(5, 45))) {
      throw new Malformed("a want line names no one object id");
    }
    return ObjectId.fromString(line.substring(5, 45));
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

  /**
   * Every object id it names that JGit looks up in the cache (have, shallow, a deepen-not that
   * is an id), in order: what {@link #handedOn} is to be told the reach of.
   */
  List<ObjectId> named() {
    List<ObjectId> named = new ArrayList<>(haves);
    idLines.values().forEach(l -> named.add(l.id()));
    return named;
  }

  /**
   * What JGit does not serve that the request asks for, or empty: {@code deepen-relative} (git
   * sends it for {@code fetch --deepen}; JGit's upload-pack throws on it) and v2's {@code
   * object-info} command (not advertised; it would tell any object's size, reached or not).
   */
  Optional<String> unserved() {
    if (capabilities.contains(DEEPEN_RELATIVE) || arguments.contains(DEEPEN_RELATIVE)) {
      return Optional.of("deepen-relative (git fetch --deepen); fetch with --depth=<n> to"
          + " deepen a shallow clone to n commits from the tips");
    }
    if (v2 && starts.length > 0 && payloadIs(0, "command=object-info")) {
      return Optional.of("the object-info command");
    }
    return Optional.empty();
  }

  /**
   * The body as JGit's upload-pack is to read it, judging every id it looks up ({@link #named})
   * by one rule: one not in {@code reached} (the commits the cache's branches and tags reach,
   * {@link CommonHaves#common}) is handed on as one the cache lacks. A have or shallow line
   * naming one is left out, as JGit ignores one naming an object the cache lacks; a deepen-not
   * naming one is refused, as JGit fails on one the cache lacks. All else byte for byte.
   */
  byte[] handedOn(Set<ObjectId> reached) throws NotReached {
    ByteArrayOutputStream out = new ByteArrayOutputStream(body.length);
    for (int i = 0; i < starts.length; i++) {
      IdLine named = idLines.get(i);
      boolean unreached = isHaveLine(i) && !reached.contains(have(i))
          || named != null && !reached.contains(named.id());
      if (unreached && named != null && named.mustExist()) {
        throw new NotReached("the fetch request's " + named.argument() + " names "
            + named.id().name() + ", which is no commit this repository's branches and tags"
            + " reach");
      }
      if (!unreached) {
        out.write(body, starts[i], Math.max(lengths[i], 4));
      }
    }
    return out.toByteArray();
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
    return id(line(i).substring(HAVE.length));
  }

  /** {@code text} as an object id, as JGit reads one; null if it is not one. */
  private static ObjectId id(String text) {
    return text.length() == 40 && ObjectId.isId(text) ? ObjectId.fromString(text) : null;
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
