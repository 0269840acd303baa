package dev.pushgate.gateway;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.transport.PacketLineOut;

/**
 * A client's fetch request answered with the pack the cache is receiving from upstream as it
 * arrives ({@link FetchStream}), instead of one written from the cache once it has all of it: the
 * transfer from upstream and the one to the client overlap instead of following each other.
 *
 * <p>Only the plainest requests are answered so, which is what git sends for a clone and for a
 * fetch: wants, haves, and either {@code done} or (protocol v0 with {@code multi_ack_detailed}
 * and {@code no-done}, or v2) a round answered {@code ready}, after any rounds the gateway
 * answered itself ({@link #answerRound}); side-band framing and {@code ofs-delta} (upstream's
 * pack may hold offset deltas; it is never thin). Any
 * other argument (shallow, deepen, filter, want-ref, packfile-uris, wait-for-done, sideband-all,
 * anything unknown) leaves the request to JGit's upload-pack on the cache, after the cache's fetch.
 */
final class StreamedFetch {
  /** What side-band-64k carries in one packet: 65520 bytes less the length and the band. */
  private static final int MAX_DATA_64K = 65515;
  /** The same for plain side-band. */
  private static final int MAX_DATA = 995;

  /** A fetch request a stream may answer. */
  record Request(boolean v2, Set<ObjectId> wants, List<ObjectId> haves, boolean done,
      boolean sideBand64k, boolean progress) {}

  private StreamedFetch() {}

  /** The v2 arguments a stream's answer honours, or that change nothing in it. */
  private static final Set<String> V2_ARGUMENTS =
      Set.of("ofs-delta", "no-progress", "thin-pack", "include-tag");

  /**
   * {@code body} as a request a stream may answer, or empty if it is anything else. It is read as
   * the gateway read it for JGit ({@link FetchRequestBody}), whole and with its haves checked.
   */
  static Optional<Request> parse(FetchRequestBody body) {
    if (!body.fetches()) {
      return Optional.empty();
    }
    Set<String> caps = body.capabilities();
    if (body.v2()) {
      // agent=, session-id=, object-format=sha1: nothing the answer depends on
      boolean sha1 = caps.stream()
          .noneMatch(c -> c.startsWith("object-format=") && !c.equals("object-format=sha1"));
      return sha1 && body.arguments().contains("ofs-delta")
          && V2_ARGUMENTS.containsAll(body.arguments())
          ? Optional.of(new Request(true, body.wants(), body.haves(), body.done(), true,
              !body.arguments().contains("no-progress")))
          : Optional.empty();
    }
    boolean sideBand64k = caps.contains("side-band-64k");
    if (!body.arguments().isEmpty() // shallow, deepen, filter: not streamed
        || !caps.contains("ofs-delta") || !(sideBand64k || caps.contains("side-band"))
        || !body.done() && !(caps.contains("multi_ack_detailed") && caps.contains("no-done"))) {
      return Optional.empty();
    }
    return Optional.of(new Request(false, body.wants(), body.haves(), body.done(), sideBand64k,
        !caps.contains("no-progress")));
  }

  /**
   * Answers {@code request} with {@code claim}'s pack as it arrives: the acknowledgements JGit's
   * upload-pack would send for the haves in common, then the pack on band 1. Should the cache's
   * fetch fail midway, the client is told on band 3 and has no pack trailer, so its git fails
   * with that message and keeps nothing.
   */
  static void answer(HttpServletResponse rsp, Request request, FetchStream.Claim claim)
      throws IOException {
    OutputStream out = uploadPackResult(rsp);
    PacketLineOut pkt = new PacketLineOut(out);
    acknowledge(pkt, request, claim.common());
    int max = request.sideBand64k() ? MAX_DATA_64K : MAX_DATA;
    if (request.progress()) {
      band(out, 2, ("pushgate: streaming upstream's pack as it arrives\n")
          .getBytes(StandardCharsets.UTF_8), 0, -1);
    }
    byte[] buf = new byte[max];
    try (PackSpool.Reader pack = claim.pack()) {
      for (int n; (n = readPack(pack, buf, out)) > 0; ) {
        band(out, 1, buf, 0, n);
        out.flush();
      }
    }
    pkt.end();
    out.flush();
  }

  /**
   * Answers {@code request}, a negotiation round without {@code done}, as upload-pack answers one
   * that is not ready yet: {@code common} acknowledged, then (v0) {@code NAK} or (v2) the end of
   * the acknowledgments. The client sends its next round, repeating the haves acknowledged.
   */
  static void answerRound(HttpServletResponse rsp, Request request, List<ObjectId> common)
      throws IOException {
    OutputStream out = uploadPackResult(rsp);
    PacketLineOut pkt = new PacketLineOut(out);
    if (request.v2()) {
      pkt.writeString("acknowledgments\n");
      if (common.isEmpty()) {
        pkt.writeString("NAK\n");
      }
      for (ObjectId c : common) {
        pkt.writeString("ACK " + c.name() + "\n");
      }
      pkt.end();
    } else {
      for (ObjectId c : common) {
        pkt.writeString("ACK " + c.name() + " common\n");
      }
      pkt.writeString("NAK\n");
      pkt.flush();
    }
    out.flush();
  }

  /** Starts {@code rsp} as upload-pack's answer; its body. */
  private static OutputStream uploadPackResult(HttpServletResponse rsp) throws IOException {
    rsp.setStatus(HttpServletResponse.SC_OK);
    rsp.setContentType(UpstreamHttp.UPLOAD_PACK_RESULT);
    rsp.setHeader("Cache-Control", "no-cache");
    return rsp.getOutputStream();
  }

  /**
   * The next bytes of the pack, -1 at its end; on the cache's failure, {@link StreamBroken} after
   * telling the client why.
   */
  private static int readPack(PackSpool.Reader pack, byte[] buf, OutputStream out)
      throws IOException {
    try {
      return pack.read(buf, 0, buf.length);
    } catch (IOException e) {
      band(out, 3, ("pushgate: " + e.getMessage() + "\n").getBytes(StandardCharsets.UTF_8), 0,
          -1);
      out.flush();
      throw new StreamBroken(e.getMessage());
    }
  }

  /** The pack broke off and the client was told; the request is answered. */
  static final class StreamBroken extends IOException {
    private static final long serialVersionUID = 1L;

    StreamBroken(String message) {
      super(message);
    }
  }

  private static void acknowledge(PacketLineOut pkt, Request request, List<ObjectId> common)
      throws IOException {
    ObjectId last = common.isEmpty() ? null : common.get(common.size() - 1);
    if (request.v2()) {
      if (!request.done()) {
        pkt.writeString("acknowledgments\n");
        for (ObjectId c : common) {
          pkt.writeString("ACK " + c.name() + "\n");
        }
        pkt.writeString("ready\n");
        pkt.writeDelim();
      }
      pkt.writeString("packfile\n");
    } else if (request.done()) {
      pkt.writeString(last == null ? "NAK\n" : "ACK " + last.name() + "\n");
    } else {
      for (ObjectId c : common) {
        pkt.writeString("ACK " + c.name() + " common\n");
      }
      pkt.writeString("ACK " + last.name() + " ready\n");
      pkt.writeString("NAK\n");
      pkt.writeString("ACK " + last.name() + "\n");
    }
    pkt.flush();
  }

  /** One side-band packet of {@code len} bytes ({@code -1}: all of {@code b}) on {@code band}. */
  private static void band(OutputStream out, int band, byte[] b, int off, int len)
      throws IOException {
    int n = len < 0 ? b.length - off : len;
    byte[] header = String.format("%04x", n + 5).getBytes(StandardCharsets.US_ASCII);
    out.write(header);
    out.write(band);
    out.write(b, off, n);
  }
}
