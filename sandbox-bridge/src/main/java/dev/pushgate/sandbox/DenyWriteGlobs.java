package dev.pushgate.sandbox;

import dev.pushgate.types.UntrustedText;
import java.util.List;

/**
 * File-name patterns no run may write inside a writable mount, and whether the rules set them.
 *
 * @param globs file-name patterns ({@code .env}, {@code *.key}); no {@code /}
 * @param explicit true when the workspace rules set the list, false for the default
 */
public record DenyWriteGlobs(List<String> globs, boolean explicit) {
  /** The default list, used when the rules say nothing. */
  public static final List<String> DEFAULT_GLOBS = List.of(".env", "*.key", "*.pem");

  /** The default, not set by the rules. */
  public static final DenyWriteGlobs DEFAULT = new DenyWriteGlobs(DEFAULT_GLOBS, false);

  public DenyWriteGlobs {
    if (globs == null) {
      throw new SandboxRequestException("denyWriteGlobs", "denyWriteGlobs is missing");
    }
    for (int i = 0; i < globs.size(); i++) {
      String g = globs.get(i);
      String field = "denyWriteGlobs[" + i + "]";
      if (g == null || g.isBlank()) {
        throw new SandboxRequestException(field, field + " is empty");
      }
      if (g.indexOf('/') >= 0 || g.indexOf('\\') >= 0 || UntrustedText.hasControl(g)) {
        throw new SandboxRequestException(
            field, field + " must be a file name pattern without /: " + UntrustedText.printable(g));
      }
    }
    globs = List.copyOf(globs);
  }

  /** A list the rules set. */
  public static DenyWriteGlobs explicit(List<String> globs) {
    return new DenyWriteGlobs(globs, true);
  }
}
