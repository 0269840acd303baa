package dev.pushgate.policy;

import dev.pushgate.types.Glob;
import java.util.regex.Pattern;

/**
 * A pattern over full ref names: {@code refs/heads/main}, {@code refs/heads/release/*} ({@code *}
 * stays within one path segment) or {@code refs/tags/**} ({@code **} spans segments).
 */
public final class RefPattern {
  /** {@code *} one or more characters of a segment, {@code **} one or more of any; no {@code ?}. */
  static final Glob.Dialect DIALECT =
      new Glob.Dialect('/', false, false, Glob.DoubleStar.ANY_CHARACTERS, false, false);

  private final String text;
  private final Pattern regex;
  private final int literalChars;
  private final int spanningWildcards;
  private final boolean exact;

  private RefPattern(String text) {
    this.text = text;
    this.exact = !text.contains("*");
    Glob glob = Glob.compile(text, DIALECT);
    this.regex = Pattern.compile(glob.regex());
    this.literalChars = glob.literals();
    this.spanningWildcards = glob.spanning();
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
    int byLiterals = Integer.compare(literalChars, other.literalChars);
    if (byLiterals != 0) {
      return byLiterals;
    }
    return Integer.compare(other.spanningWildcards, spanningWildcards);
  }

  @Override
  public String toString() {
    return text;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RefPattern p && p.text.equals(text);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }
}
