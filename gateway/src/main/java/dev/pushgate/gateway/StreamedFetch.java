package dev.pushgate.gateway;

import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.transport.PacketLineIn;
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

  /** {@code body} as a request a stream may answer, or empty if it is anything else. */
  static Optional<Request> parse(byte[] body, boolean v2) throws IOException {
    try {
      return v2 ? parseV2(new PacketLineIn(new ByteArrayInputStream(body)))
          : parseV0(new PacketLineIn(new ByteArrayInputStream(body)));
    } catch (IOException | RuntimeException e) {
      // Cut or malformed (a bad pkt-line length, an object id that is not one): the body is in
      // memory, so nothing else throws here; JGit answers it as it answers any, in git's ERR line.
      return Optional.empty();
    }
  }

  private static Optional<Request> parseV0(PacketLineIn in) throws IOException {
    Set<ObjectId> wants = new LinkedHashSet<>();
    Set<String> caps = Set.of();
    for (String line; !PacketLineIn.isEnd(line = in.readString()); ) {
      if (!line.startsWith("want ") || line.length() < 45 || !ObjectId.isId(line.substring(5, 45))) {
        return Optional.empty(); // shallow, deepen, filter: not streamed
      }
      if (wants.isEmpty()) {
        caps = Set.of(line.substring(45).trim().split(" +"));
      } else if (line.length() != 45) {
        return Optional.empty();
      }
      wants.add(ObjectId.fromString(line.substring(5, 45)));
    }
    List<ObjectId> haves = new ArrayList<>();
    boolean done = false;
    for (String line; ; ) {
      try {
        line = in.readString();
      } catch (EOFException e) {
        break; // the last round's flush was the body's end
      }
      if (PacketLineIn.isEnd(line)) {
        continue;
      }
      if (line.equals("done")) {
        done = true;
        break;
      }
      Optional<ObjectId> have = have(line);
      if (have.isEmpty()) {
        return Optional.empty();
      }
      haves.add(have.get());
    }
    boolean sideBand64k = caps.contains("side-band-64k");
    if (!caps.contains("ofs-delta") || !(sideBand64k || caps.contains("side-band"))
        || !done && !(caps.contains("multi_ack_detailed") && caps.contains("no-done"))) {
      return Optional.empty();
    }
    return Optional.of(new Request(false, wants, haves, done, sideBand64k,
        !caps.contains("no-progress")));
  }

  private static Optional<Request> parseV2(PacketLineIn in) throws IOException {
    if (!"command=fetch".equals(in.readString())) {
      return Optional.empty();
    }
    for (String line; !PacketLineIn.isDelimiter(line = in.readString()); ) {
      if (PacketLineIn.isEnd(line)
          || line.startsWith("object-format=") && !line.equals("object-format=sha1")) {
        return Optional.empty();
      }
      // agent=, session-id=, object-format=sha1: nothing the answer depends on
    }
    Set<ObjectId> wants = new LinkedHashSet<>();
    List<ObjectId> haves = new ArrayList<>();
    boolean done = false;
    boolean ofsDelta = false;
    boolean progress = true;
    for (String line; !PacketLineIn.isEnd(line = in.readString()); ) {
      if (line.startsWith("want ") && line.length() == 45 && ObjectId.isId(line.substring(5))) {
        wants.add(ObjectId.fromString(line.substring(5)));
      } else if (line.startsWith("have ")) {
        Optional<ObjectId> have = have(line);
        if (have.isEmpty()) {
          return Optional.empty();
        }
        haves.add(have.get());
      } else if (line.equals("done")) {
        done = true;
      } else if (line.equals("ofs-delta")) {
        ofsDelta = true;
      } else if (line.equals("no-progress")) {
        progress = false;
      } else if (!line.equals("thin-pack") && !line.equals("include-tag")) {
        return Optional.empty();
      }
    }
    return ofsDelta ? Optional.of(new Request(true, wants, haves, done, true, progress))
        : Optional.empty();
  }

  private static Optional<ObjectId> have(String line) {
    return line.startsWith("have ") && line.length() == 45 && ObjectId.isId(line.substring(5))
        ? Optional.of(ObjectId.fromString(line.substring(5))) : Optional.empty();
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
