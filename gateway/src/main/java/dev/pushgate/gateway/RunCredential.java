package dev.pushgate.gateway;

import jakarta.servlet.http.HttpServletRequest;
import java.util.Optional;

/** The run credential a git request carries: its {@code Authorization: Bearer} header. */
final class RunCredential {
  private RunCredential() {}

  static Optional<String> of(HttpServletRequest req) {
    String header = req.getHeader("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Optional.empty();
    }
    String credential = header.substring(7).strip();
    return credential.isEmpty() ? Optional.empty() : Optional.of(credential);
  }
}
