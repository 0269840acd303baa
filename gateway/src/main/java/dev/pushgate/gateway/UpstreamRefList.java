package dev.pushgate.gateway;

import dev.pushgate.types.Secret;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URISyntaxException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.transport.PacketLineIn;

/**
 * Upstream's branches and tags, read with the single request a fetch starts with ({@code GET
 * info/refs?service=git-upload-pack}, protocol v0). Before every push the gateway asks whether
 * upstream moved; most often it has not, and answering that needs no more than this list.
 *
 * <p>The list only ever lets the gateway skip a fetch when it is read whole and well formed; on
 * anything else {@link #read} is empty, and the caller fetches as usual, which reports the error.
 */
final class UpstreamRefList {
  /** A ref list of a repository with a million refs is about 60 MB; a push gateway stops earlier. */
  static final int MAX_BYTES = 16 << 20;

  private UpstreamRefList() {}

  /** Upstream's {@code refs/heads/*} and {@code refs/tags/*}, or empty if it cannot tell. */
  static Optional<Map<String, ObjectId>> read(String remoteUrl, Secret token, int timeoutSeconds) {
    return read(remoteUrl, token, timeoutSeconds, head -> { });
  }

  /**
   * As {@link #read(String, Secret, int)}, also handing {@code onHead} the branch upstream's HEAD
   * names ({@code symref=HEAD:refs/heads/main}), when the list is whole and says.
   */
  static Optional<Map<String, ObjectId>> read(String remoteUrl, Secret token, int timeoutSeconds,
      Consumer<String> onHead) {
    return read(remoteUrl, token, timeoutSeconds, onHead, (tag, peeled) -> { });
  }

  /**
   * As {@link #read(String, Secret, int, Consumer)}, also handing {@code onPeeled} each annotated
   * tag of the list and the object it peels to ({@code <id> refs/tags/v1^{}}), when the list is
   * whole: what a fetch's advertisement shows before the cache has the tags' objects.
   */
  static Optional<Map<String, ObjectId>> read(String remoteUrl, Secret token, int timeoutSeconds,
      Consumer<String> onHead, BiConsumer<String, ObjectId> onPeeled) {
    HttpURLConnection http = null;
    boolean reusable = false;
    try {
      http = new UpstreamHttp(timeoutSeconds).refAdvertisement(remoteUrl, token);
      if (http.getResponseCode() != HttpURLConnection.HTTP_OK
          || !UpstreamHttp.UPLOAD_PACK_ADVERTISEMENT.equals(http.getContentType())) {
        return Optional.empty();
      }
      Optional<Map<String, ObjectId>> refs;
      try (InputStream in = http.getInputStream()) {
        refs = parse(in, onHead, onPeeled);
        reusable = refs.isPresent() && in.read() == -1;
      }
      return refs;
    } catch (IOException | URISyntaxException | IllegalArgumentException e) {
      return Optional.empty();
    } finally {
      if (http != null && !reusable) {
        http.disconnect();
      }
    }
  }

  /** Parses a smart-HTTP v0 upload-pack advertisement; empty unless it is whole and well formed. */
  static Optional<Map<String, ObjectId>> parse(InputStream body) throws IOException {
    return parse(body, head -> { }, (tag, peeled) -> { });
  }

  private static Optional<Map<String, ObjectId>> parse(InputStream body, Consumer<String> onHead,
      BiConsumer<String, ObjectId> onPeeled) throws IOException {
    String head = null;
    Map<String, ObjectId> peeled = new HashMap<>();
    PacketLineIn in = new PacketLineIn(body);
    Map<String, ObjectId> refs = new HashMap<>();
    long total = 0;
    String first = line(in);
    if (!"# service=git-upload-pack".equals(first)) {
      return Optional.empty();
    }
    if (line(in) != null) {
      return Optional.empty(); // a flush must follow the service line
    }
    boolean firstRef = true;
    for (String l; (l = line(in)) != null; ) {
      total += l.length();
      if (total > MAX_BYTES) {
        return Optional.empty();
      }
      if (firstRef) {
        int nul = l.indexOf('\0');
        if (nul < 0) {
          return Optional.empty();
        }
        head = symrefHead(l.substring(nul + 1));
        l = l.substring(0, nul);
        firstRef = false;
      } else if (l.indexOf('\0') >= 0) {
        return Optional.empty();
      }
      int sp = l.indexOf(' ');
      if (sp != Constants.OBJECT_ID_STRING_LENGTH || !ObjectId.isId(l.substring(0, sp))) {
        return Optional.empty();
      }
      String name = l.substring(sp + 1);
      if (name.isEmpty() || name.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
        return Optional.empty();
      }
      if (name.startsWith(Constants.R_TAGS) && name.endsWith("^{}")) {
        String tag = name.substring(0, name.length() - 3);
        if (!refs.containsKey(tag) || peeled.put(tag, ObjectId.fromString(l.substring(0, sp)))
            != null) {
          return Optional.empty(); // git lists a tag's peeled id right after the tag, once
        }
        continue;
      }
      if (name.endsWith("^{}") || !(name.startsWith(Constants.R_HEADS)
          || name.startsWith(Constants.R_TAGS))) {
        continue; // peeled tags, HEAD, pull requests: not mirrored
      }
      if (refs.put(name, ObjectId.fromString(l.substring(0, sp))) != null) {
        return Optional.empty();
      }
    }
    if (firstRef) {
      return Optional.empty(); // not even the capabilities line
    }
    if (head != null && refs.containsKey(head)) {
      onHead.accept(head);
    }
    peeled.forEach(onPeeled);
    return Optional.of(refs);
  }

  /** The branch of {@code symref=HEAD:<branch>} among the capabilities, or null. */
  private static String symrefHead(String capabilities) {
    for (String c : capabilities.split(" ")) {
      if (c.startsWith("symref=HEAD:refs/heads/")) {
        return c.substring("symref=HEAD:".length());
      }
    }
    return null;
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
