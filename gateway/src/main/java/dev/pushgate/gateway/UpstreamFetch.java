package dev.pushgate.gateway;

import dev.pushgate.types.Secret;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URISyntaxException;
import java.util.Collection;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.transport.PackParser;
import org.eclipse.jgit.transport.PacketLineIn;
import org.eclipse.jgit.transport.PacketLineOut;
import org.eclipse.jgit.transport.UserAgent;

/**
 * Brings the objects of ids upstream listed into the cache with one {@code POST git-upload-pack}
 * (protocol v0, stateless): the ref list it answers to was read already, where JGit's fetch would
 * read it a second time. The pack is asked for whole (no thin pack), so it parses against nothing
 * but itself, each object hashed as it is read; refs are the caller's business, and it moves none until
 * this returned.
 */
final class UpstreamFetch {
  /** Without multi_ack, upstream answers the haves with one ACK or NAK; a few more are slack. */
  private static final int MAX_ACK_LINES = 16;
  private static final String CAPABILITIES = " side-band-64k ofs-delta no-progress";

  private final UpstreamHttp http;
  private final long maxPackBytes;

  UpstreamFetch(UpstreamHttp http, long maxPackBytes) {
    this.http = http;
    this.maxPackBytes = maxPackBytes;
  }

  /**
   * Fetches {@code wants} (not empty), telling upstream the cache has {@code haves} and all they
   * reach; on return every wanted object is in {@code cache}.
   *
   * @throws IOException when upstream's answer is not whole and well formed, or a wanted object
   *     is still missing; the cache then holds at most objects no ref points at
   */
  void fetch(Repository cache, String remoteUrl, Secret token, Collection<ObjectId> wants,
      Collection<ObjectId> haves) throws IOException {
    fetch(cache, remoteUrl, token, wants, haves, PackCopy.NONE);
  }

  /**
   * As {@link #fetch(Repository, String, Secret, Collection, Collection)}, handing {@code copy}
   * the pack as the cache's parser consumes it ({@link CachePackParser}), for a client to read
   * while it arrives ({@link PackSpool}).
   */
  void fetch(Repository cache, String remoteUrl, Secret token, Collection<ObjectId> wants,
      Collection<ObjectId> haves, PackCopy copy) throws IOException {
    byte[] request = request(wants, haves);
    HttpURLConnection conn;
    try {
      conn = http.uploadPack(remoteUrl, token);
    } catch (URISyntaxException | IllegalArgumentException e) {
      throw new IOException("upstream's URL is not an HTTP URL", e);
    }
    boolean whole = false;
    try {
      try (OutputStream out = conn.getOutputStream()) {
        out.write(request);
      }
      int status = conn.getResponseCode();
      if (status != HttpURLConnection.HTTP_OK) {
        throw new IOException("upstream answered the fetch with HTTP " + status);
      }
      if (!UpstreamHttp.UPLOAD_PACK_RESULT.equals(conn.getContentType())) {
        throw new IOException("upstream answered the fetch with a body that is not a pack");
      }
      try (InputStream body = conn.getInputStream()) {
        skipAcknowledgements(new PacketLineIn(body));
        SideBandPackIn pack = new SideBandPackIn(body, maxPackBytes);
        parse(cache, pack, copy);
        whole = pack.read() == -1 && body.read() == -1;
      }
    } finally {
      if (!whole) {
        conn.disconnect(); // a connection left mid-answer is not handed to the next request
      }
    }
    for (ObjectId want : wants) {
      if (!cache.getObjectDatabase().has(want)) {
        throw new IOException("upstream's pack lacks " + want.name());
      }
    }
  }

  private static byte[] request(Collection<ObjectId> wants, Collection<ObjectId> haves)
      throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PacketLineOut out = new PacketLineOut(buf);
    boolean first = true;
    for (ObjectId want : wants) {
      out.writeString("want " + want.name()
          + (first ? CAPABILITIES + " agent=" + UserAgent.get() : "") + "\n");
      first = false;
    }
    out.end();
    for (ObjectId have : haves) {
      out.writeString("have " + have.name() + "\n");
    }
    out.writeString("done\n");
    return buf.toByteArray();
  }

  /** Reads upstream's answer to the haves up to its last line, where the pack begins. */
  private static void skipAcknowledgements(PacketLineIn in) throws IOException {
    for (int i = 0; i < MAX_ACK_LINES; i++) {
      String line = in.readString();
      if (line.equals("NAK")) {
        return;
      }
      if (line.startsWith("ACK ") && line.length() >= 44 && ObjectId.isId(line.substring(4, 44))) {
        if (line.length() == 44) {
          return; // the final ACK; "ACK <id> common" and the like come before it
        }
        continue;
      }
      if (line.startsWith("ERR ")) {
        throw new IOException(
            "upstream refused the fetch: " + Forwarder.oneLine(line.substring(4)));
      }
      throw new IOException("upstream's answer to the fetch is malformed");
    }
    throw new IOException("upstream's answer to the fetch acknowledges without end");
  }

  private static void parse(Repository cache, InputStream pack, PackCopy copy)
      throws IOException {
    try (ObjectInserter ins = cache instanceof CacheRepository c ? c.inserter(copy, true)
        : cache.newObjectInserter()) {
      PackParser parser = ins.newPackParser(pack);
      parser.setAllowThin(false);
      // No object checker, as git's and JGit's fetch by default: the objects are upstream's
      // history, which may hold what fsck only warns about (a zero-padded mode, an odd ident)
      // and which every clone accepts; checking them would refuse every push to such a
      // repository. Upstream's framing, the pack's checksum and each object's id are still
      // verified by the parser, and every wanted object must be present after it.
      parser.setCheckEofAfterPackFooter(true);
      parser.parse(NullProgressMonitor.INSTANCE);
      ins.flush();
    }
  }
}
