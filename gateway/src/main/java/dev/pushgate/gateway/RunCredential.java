package dev.pushgate.gateway;

import dev.pushgate.types.BearerCredential;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Optional;

/** The run credential a git request carries: its {@code Authorization: Bearer} header. */
final class RunCredential {
  private RunCredential() {}

  static Optional<String> of(HttpServletRequest req) {
    return BearerCredential.of(req.getHeader("Authorization"));
  }
}
