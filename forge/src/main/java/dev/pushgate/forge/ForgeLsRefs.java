package dev.pushgate.forge;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.RepositoryCache;
import org.eclipse.jgit.transport.PacketLineIn;
import org.eclipse.jgit.transport.PacketLineOut;
import org.eclipse.jgit.util.FS;

/**
 * Protocol v2's {@code ls-refs} over stateless HTTP, answered as git's upload-pack answers it
 * (GitHub's): with {@code symrefs}, every symbolic ref is named with the ref it resolves to
 * ({@code symref-target:}), not HEAD's alone, which is all JGit's upload-pack names. The gateway
 * reads upstream's ref list this way to learn which branches are symbolic upstream.
 */
final class ForgeLsRefs {
  /** A request larger than this is no ls-refs git sends. */
  private static final int MAX_REQUEST = 64 * 1024;

  private ForgeLsRefs() {}

  /** True for a v2 request to upload-pack: this class answers it. */
  static boolean isV2UploadPack(HttpServletRequest req) {
    String protocol = req.getHeader("Git-Protocol");
    return "POST".equals(req.getMethod()) && req.getPathInfo().endsWith("/git-upload-pack")
        && protocol != null && protocol.contains("version=2");
  }

  /** Answers an {@code ls-refs} of {@code repoDir}; anything else is a 400. */
  static void answer(HttpServletRequest req, HttpServletResponse rsp, Path repoDir)
      throws IOException {
    byte[] body = req.getInputStream().readNBytes(MAX_REQUEST + 1);
    Request request = body.length > MAX_REQUEST ? null : Request.read(body);
    if (request == null) {
      rsp.sendError(400, "the local forge serves protocol v2's ls-refs only");
      return;
    }
    rsp.setStatus(200);
    rsp.setContentType("application/x-git-upload-pack-result");
    // The repository kept open between requests, as LocalForge's git servlet opens it: this
    // answers every gateway sync, and a fresh one read the configs and the pack list each time.
    try (Repository repo = RepositoryCache.open(
            RepositoryCache.FileKey.exact(repoDir.toFile(), FS.DETECTED), true);
        OutputStream out = rsp.getOutputStream()) {
      PacketLineOut pkt = new PacketLineOut(out);
      List<Ref> refs = new ArrayList<>();
      Ref head = repo.exactRef(Constants.HEAD);
      if (head != null) {
        refs.add(head);
      }
      refs.addAll(repo.getRefDatabase().getRefsByPrefix(Constants.R_REFS));
      for (Ref ref : refs) {
        ObjectId id = ref.getObjectId();
        if (id == null || !request.wants(ref.getName())) {
          continue; // a dangling symref, as git's for_each_ref skips it
        }
        StringBuilder line = new StringBuilder(id.name()).append(' ').append(ref.getName());
        if (request.symrefs && ref.isSymbolic()) {
          line.append(" symref-target:").append(ref.getLeaf().getName());
        }
        if (request.peel) {
          Ref peeled = repo.getRefDatabase().peel(ref.getLeaf());
          if (peeled.getPeeledObjectId() != null) {
            line.append(" peeled:").append(peeled.getPeeledObjectId().name());
          }
        }
        pkt.writeString(line.append('\n').toString());
      }
      pkt.end();
    }
  }

  /** An {@code ls-refs} request's arguments. */
  private static final class Request {
    boolean symrefs;
    boolean peel;
    final List<String> prefixes = new ArrayList<>();

    static Request read(byte[] body) throws IOException {
      InputStream in = new ByteArrayInputStream(body);
      PacketLineIn pkt = new PacketLineIn(in);
      try {
        if (!"command=ls-refs".equals(pkt.readString())) {
          return null;
        }
        for (String l = pkt.readString(); !PacketLineIn.isDelimiter(l); l = pkt.readString()) {
          if (PacketLineIn.isEnd(l)) {
            return new Request(); // no arguments
          }
        }
        Request r = new Request();
        for (String l = pkt.readString(); !PacketLineIn.isEnd(l); l = pkt.readString()) {
          if (l.equals("symrefs")) {
            r.symrefs = true;
          } else if (l.equals("peel")) {
            r.peel = true;
          } else if (l.startsWith("ref-prefix ")) {
            r.prefixes.add(l.substring("ref-prefix ".length()));
          }
        }
        return r;
      } catch (IOException | RuntimeException e) {
        return null;
      }
    }

    boolean wants(String name) {
      return prefixes.isEmpty() || prefixes.stream().anyMatch(name::startsWith);
    }
  }
}
