package dev.pushgate.gateway;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The gateway's answer outside git's protocol: one line of {@code text/plain}, which git prints
 * after {@code remote:}. Every door of the gateway (the filters, the receive-pack's error handler)
 * answers through it, so that git shows each the same way.
 */
final class PlainAnswer {
  private PlainAnswer() {}

  static void send(HttpServletResponse rsp, int status, String message) throws IOException {
    rsp.setStatus(status);
    rsp.setContentType("text/plain; charset=UTF-8");
    rsp.getOutputStream().write((message + "\n").getBytes(StandardCharsets.UTF_8));
  }
}
