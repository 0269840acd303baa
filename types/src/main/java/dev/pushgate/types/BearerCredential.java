package dev.pushgate.types;

import java.util.Optional;

/**
 * The credential an HTTP {@code Authorization} header carries, read the one way every surface of
 * pushgate reads it: the scheme's name in any case, one space, the credential with the spaces
 * around it stripped; a header of another scheme, or with nothing after the scheme, carries
 * none.
 */
public final class BearerCredential {
  private BearerCredential() {}

  /** The credential of {@code Authorization: Bearer <credential>}; empty for anything else. */
  public static Optional<String> of(String header) {
    return after(header, "Bearer ");
  }

  /**
   * The credential of {@code Bearer <credential>} or of {@code token <credential>}, the two
   * spellings GitHub's REST API takes; empty for anything else.
   */
  public static Optional<String> ofBearerOrToken(String header) {
    return of(header).or(() -> after(header, "token "));
  }

  private static Optional<String> after(String header, String scheme) {
    if (header == null || !header.regionMatches(true, 0, scheme, 0, scheme.length())) {
      return Optional.empty();
    }
    String credential = header.substring(scheme.length()).strip();
    return credential.isEmpty() ? Optional.empty() : Optional.of(credential);
  }
}
