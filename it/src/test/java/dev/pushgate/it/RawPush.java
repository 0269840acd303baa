package dev.pushgate.it;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pushgate.testkit.RunningAppliance;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.function.IntFunction;
import org.eclipse.jgit.lib.ObjectId;

/** Hand-built receive-pack requests, for input git itself would never send. */
final class RawPush {
  /**
   * The gateway's one answer to a push naming an object it does not send and its run cannot
   * reach, whether nobody has it or only a refused push left it in the cache (no id, type or
   * size: docs/push-path.md, step 5).
   */
  static final String ABSENT_OBJECTS = "malformed push request: Exception while parsing pack"
      + " stream: missing necessary objects (the push names an object it does not send, which"
      + " this repository's branches and tags do not reach; fetch, then push again)\n";

  private RawPush() {}

  static String command(ObjectId oldId, ObjectId newId, String ref) {
    return oldId.name() + " " + newId.name() + " " + ref;
  }

  static byte[] request(String command, byte[] pack) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    pkt(out, command + "\0report-status side-band-64k agent=it\n");
    out.write("0000".getBytes(StandardCharsets.US_ASCII));
    out.write(pack);
    return out.toByteArray();
  }

  /**
   * A request creating {@code count} refs, named {@code ref.apply(i)}, at {@code id}: the
   * capabilities on the first command, then an empty pack.
   */
  static byte[] creations(ObjectId id, int count, IntFunction<String> ref, String capabilities)
      throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < count; i++) {
      pkt(out, command(ObjectId.zeroId(), id, ref.apply(i)) + (i == 0 ? "\0" + capabilities : "")
          + "\n");
    }
    out.write("0000".getBytes(StandardCharsets.US_ASCII));
    out.write(emptyPack());
    return out.toByteArray();
  }

  /** Sends {@code body} to the gateway's receive-pack of acme/widget as {@code run}. */
  static HttpResponse<String> send(RunningAppliance app, JsonNode run, byte[] body)
      throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create(app.gatewayUrl() + "acme/widget.git/git-receive-pack"))
        .header("Authorization", "Bearer " + ForgeRefs.credential(run))
        .header("Content-Type", "application/x-git-receive-pack-request")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.ISO_8859_1));
  }

  /** A valid pack with no object. */
  static byte[] emptyPack() throws Exception {
    ByteArrayOutputStream p = new ByteArrayOutputStream();
    p.write(new byte[] {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 0});
    p.write(MessageDigest.getInstance("SHA-1").digest(p.toByteArray()));
    return p.toByteArray();
  }

  /** A pack announcing three objects that ends after its header. */
  static byte[] truncatedPack() {
    return new byte[] {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 3, (byte) 0x95, 0x0a};
  }

  private static void pkt(ByteArrayOutputStream out, String line) throws Exception {
    byte[] b = line.getBytes(StandardCharsets.UTF_8);
    out.write(String.format("%04x", b.length + 4).getBytes(StandardCharsets.US_ASCII));
    out.write(b);
  }
}
