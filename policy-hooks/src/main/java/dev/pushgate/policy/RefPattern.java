package dev.pushgate.policy;

import dev.pushgate.types.Glob;
import dev.pushgate.types.WrittenGlob;
import java.util.regex.Pattern;

/**
 * A pattern over full ref names: {@code refs/heads/main}, {@code refs/heads/release/*} ({@code *}
 * stays within one path segment) or {@code refs/tags/**} ({@code **} spans segments).
 */
public final class RefPattern extends WrittenGlob {
  /** {@code *} one or more characters of a segment, {@code **} one or more of any; no {@code ?}. */
  static final Glob.Dialect DIALECT =
      new Glob.Dialect('/', false, false, Glob.DoubleStar.ANY_CHARACTERS, false, false);

  private final Pattern regex;
  private final boolean exact;

  private RefPattern(String text) {
    super(text, text, DIALECT);
    this.exact = !text.contains("*");
    this.regex = Pattern.compile(compiled().regex());
  }

  /**
   * Parses a pattern. It must name full refs ({@code refs/...}); {@code **} must be a whole path
   * segment; no empty segment, {@code .}, {@code ..} or control character.
   */
  public static RefPattern parse(String text) {
    if (text == null || text.isEmpty()) {
      throw new IllegalArgumentException("a ref pattern is empty");
    }
    if (!text.startsWith("refs/")) {
      throw new IllegalArgumentException(
          "ref pattern must start with refs/ (for example refs/heads/main): " + text);
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x20 || c == 0x7f || c == ' ' || c == '~' || c == '^' || c == ':' || c == '?'
          || c == '[' || c == '\\') {
        throw new IllegalArgumentException(
            String.format("ref pattern has a forbidden character %#04x at %d: %s", (int) c, i, text));
      }
    }
    for (String segment : text.split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
        throw new IllegalArgumentException("ref pattern has an empty, . or .. segment: " + text);
      }
      if (segment.contains("**") && !segment.equals("**")) {
        throw new IllegalArgumentException("** must be a whole path segment: " + text);
      }
      if (segment.contains("***")) {
        throw new IllegalArgumentException("*** is not a pattern: " + text);
      }
    }
    return new RefPattern(text);
  }

  public boolean matches(String ref) {
    return regex.matcher(ref).matches();
  }

  /**
   * Orders patterns by how specific they are: an exact ref beats any wildcard; between wildcards,
   * more literal characters win, and at equal literal characters fewer {@code **} win (so {@code
   * refs/heads/*} beats {@code refs/heads/**}). Positive when this pattern is more specific.
   */
  public int compareSpecificity(RefPattern other) {
    if (exact != other.exact) {
      return exact ? 1 : -1;
    }
    int byLiterals = Integer.compare(compiled().literals(), other.compiled().literals());
    if (byLiterals != 0) {
      return byLiterals;
    }
    return Integer.compare(other.compiled().spanning(), compiled().spanning());
  }
}
