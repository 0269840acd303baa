package dev.pushgate.gateway;

import dev.pushgate.types.Secret;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URISyntaxException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.transport.PacketLineIn;
import org.eclipse.jgit.transport.PacketLineOut;
import org.eclipse.jgit.transport.UserAgent;

/**
 * Upstream's branches and tags, read with one request: protocol v2's {@code ls-refs} ({@code POST
 * git-upload-pack}, stateless, with {@code symrefs}, and {@code peel} for a fetch). Before every
 * push the gateway asks whether upstream moved; most often it has not, and answering that needs no
 * more than this list. The same answer names upstream's symbolic refs ({@code symref-target:}, the
 * ref git resolves each to), which the push's judge needs ({@link UpstreamSymrefs}); protocol
 * v0's advertisement names HEAD's only.
 *
 * <p>The list only ever lets the gateway skip a fetch when it is read whole and well formed; on
 * anything else {@link #read} is empty, and the caller fetches as usual, which reports the error.
 */
final class UpstreamRefList {
  /** A ref list of a repository with a million refs is about 60 MB; a push gateway stops earlier. */
  static final int MAX_BYTES = 16 << 20;

  /**
   * The {@code ls-refs} request of a push's sync and of a symref lookup: HEAD (for its target),
   * branches and tags; symrefs. Nothing peeled: only a fetch's advertisement shows peeled tags, and
   * peeling makes upstream read each ref's object (git's own push asks for no peeled tag either).
   */
  static final byte[] LS_REFS = request(false);

  /** The same for a fetch's advertisement: each annotated tag peeled too. */
  static final byte[] LS_REFS_PEELED = request(true);

  private static final String SYMREF_TARGET = "symref-target:";
  private static final String PEELED = "peeled:";

  /**
   * One whole, well-formed list.
   *
   * @param refs upstream's {@code refs/heads/*} and {@code refs/tags/*}, each at the id its name
   *     resolves to (a symref's is its target's)
   * @param head the branch upstream's HEAD names, or null
   * @param peeled each annotated tag and the object it peels to
   * @param symrefs each symbolic branch or tag and the ref it resolves to
   */
  record Listing(Map<String, ObjectId> refs, String head, Map<String, ObjectId> peeled,
      Map<String, String> symrefs) {
    Listing {
      refs = Map.copyOf(refs);
      peeled = Map.copyOf(peeled);
      symrefs = Map.copyOf(symrefs);
    }
  }

  private UpstreamRefList() {}

  /** Upstream's {@code refs/heads/*} and {@code refs/tags/*}, or empty if it cannot tell. */
  static Optional<Map<String, ObjectId>> read(String remoteUrl, Secret token, int timeoutSeconds) {
    return list(remoteUrl, token, timeoutSeconds, false).map(Listing::refs);
  }

  /**
   * Upstream's list, or empty if it cannot tell; with each annotated tag's peeled id when {@code
   * peeled} (a fetch's advertisement shows them), else with none.
   */
  static Optional<Listing> list(String remoteUrl, Secret token, int timeoutSeconds,
      boolean peeled) {
    HttpURLConnection http = null;
    boolean reusable = false;
    try {
      http = new UpstreamHttp(timeoutSeconds).lsRefs(remoteUrl, token);
      try (OutputStream out = http.getOutputStream()) {
        out.write(peeled ? LS_REFS_PEELED : LS_REFS);
      }
      if (http.getResponseCode() != HttpURLConnection.HTTP_OK
          || !UpstreamHttp.UPLOAD_PACK_RESULT.equals(http.getContentType())) {
        return Optional.empty();
      }
      Optional<Listing> listing;
      try (InputStream in = http.getInputStream()) {
        listing = parse(in);
        reusable = listing.isPresent() && in.read() == -1;
      }
      return listing;
    } catch (IOException | URISyntaxException | IllegalArgumentException e) {
      return Optional.empty();
    } finally {
      if (http != null && !reusable) {
        http.disconnect();
      }
    }
  }

  /** Parses an {@code ls-refs} answer; empty unless it is whole and well formed. */
  static Optional<Listing> parse(InputStream body) throws IOException {
    PacketLineIn in = new PacketLineIn(body);
    Map<String, ObjectId> refs = new HashMap<>();
    Map<String, ObjectId> peeled = new HashMap<>();
    Map<String, String> symrefs = new HashMap<>();
    Set<String> names = new HashSet<>();
    String head = null;
    long total = 0;
    for (String l; (l = line(in)) != null; ) {
      total += l.length();
      if (total > MAX_BYTES) {
        return Optional.empty();
      }
      String[] fields = l.split(" ", -1);
      if (fields.length < 2 || !isId(fields[0]) || !isName(fields[1])
          || !names.add(fields[1])) {
        return Optional.empty(); // git lists each ref once, at an id
      }
      String name = fields[1];
      String target = null;
      ObjectId peel = null;
      for (int i = 2; i < fields.length; i++) {
        String a = fields[i];
        if (a.startsWith(SYMREF_TARGET) && target == null
            && isName(a.substring(SYMREF_TARGET.length()))) {
          target = a.substring(SYMREF_TARGET.length());
        } else if (a.startsWith(PEELED) && peel == null && isId(a.substring(PEELED.length()))) {
          peel = ObjectId.fromString(a.substring(PEELED.length()));
        } else {
          return Optional.empty(); // an attribute git does not send, or one sent twice
        }
      }
      if (name.equals(Constants.HEAD)) {
        head = target;
        continue;
      }
      if (!(name.startsWith(Constants.R_HEADS) || name.startsWith(Constants.R_TAGS))) {
        continue; // asked for none: not mirrored
      }
      refs.put(name, ObjectId.fromString(fields[0]));
      if (target != null) {
        symrefs.put(name, target);
      }
      if (peel != null && name.startsWith(Constants.R_TAGS)) {
        peeled.put(name, peel);
      }
    }
    if (head != null && !(head.startsWith(Constants.R_HEADS) && refs.containsKey(head))) {
      head = null;
    }
    return Optional.of(new Listing(refs, head, peeled, symrefs));
  }

  private static boolean isId(String s) {
    return s.length() == Constants.OBJECT_ID_STRING_LENGTH && ObjectId.isId(s);
  }

  private static boolean isName(String s) {
    return !s.isEmpty() && s.chars().noneMatch(c -> c <= ' ' || c == 0x7f);
  }

  private static byte[] request(boolean peel) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    try {
      PacketLineOut out = new PacketLineOut(body);
      out.writeString("command=ls-refs\n");
      out.writeString("agent=" + UserAgent.get() + "\n");
      out.writeDelim();
      if (peel) {
        out.writeString("peel\n");
      }
      out.writeString("symrefs\n");
      out.writeString("ref-prefix HEAD\n");
      out.writeString("ref-prefix " + Constants.R_HEADS + "\n");
      out.writeString("ref-prefix " + Constants.R_TAGS + "\n");
      out.end();
    } catch (IOException e) {
      throw new IllegalStateException(e); // a byte array does not fail
    }
    return body.toByteArray();
  }

  /** One pkt-line without its newline; null for a flush; an exception when cut or malformed. */
  private static String line(PacketLineIn in) throws IOException {
    String line = in.readString();
    if (PacketLineIn.isEnd(line)) {
      return null;
    }
    if (PacketLineIn.isDelimiter(line) || line.isEmpty()) {
      throw new IOException("the ref list holds an empty or reserved pkt-line");
    }
    return line;
  }
}
