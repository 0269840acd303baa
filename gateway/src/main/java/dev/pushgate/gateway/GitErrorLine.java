package dev.pushgate.gateway;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.eclipse.jgit.transport.PacketLineOut;

/**
 * An upload-pack request answered with git's own error channel: {@code 200} and an {@code ERR}
 * packet line (after the service line, for an advertisement), which git prints as {@code fatal:
 * remote error: <message>} for an advertisement and for the POSTs after it alike, in protocol v0
 * and v2. JGit's {@code GitSmartHttpTools.sendError} writes the same lines but first reads the
 * whole request body, which a request shed for want of room must not cost.
 */
final class GitErrorLine {
  private GitErrorLine() {}

  /** Whether {@code req} is one of a fetch's (upload-pack: its advertisement, or a POST). */
  static boolean isFetch(HttpServletRequest req) {
    String path = req.getPathInfo();
    if (path == null) {
      return false;
    }
    return path.endsWith("/info/refs") && "git-upload-pack".equals(req.getParameter("service"))
        || "POST".equals(req.getMethod()) && path.endsWith("/git-upload-pack");
  }

  /** {@code message} is one line, already rendered; its request was an upload-pack one. */
  static void send(HttpServletRequest req, HttpServletResponse rsp, String message)
      throws IOException {
    boolean advertisement = req.getPathInfo() != null && req.getPathInfo().endsWith("/info/refs");
    ByteArrayOutputStream body = new ByteArrayOutputStream(256);
    PacketLineOut out = new PacketLineOut(body);
    if (advertisement) {
      out.writeString("# service=git-upload-pack\n");
      out.end();
    }
    out.writeString("ERR " + message + "\n");
    rsp.setStatus(HttpServletResponse.SC_OK);
    rsp.setContentType(advertisement ? "application/x-git-upload-pack-advertisement"
        : "application/x-git-upload-pack-result");
    rsp.setContentLength(body.size());
    rsp.getOutputStream().write(body.toByteArray());
  }
}
