package dev.pushgate.policy;

import java.util.regex.Pattern;

/**
 * A pattern over full ref names: {@code refs/heads/main}, {@code refs/heads/release/*} ({@code *}
 * stays within one path segment) or {@code refs/tags/**} ({@code **} spans segments).
 */
public final class RefPattern {
  private final String text;
  private final Pattern regex;
  private final int literalChars;
  private final int spanningWildcards;
  private final boolean exact;

  private RefPattern(String text) {
    this.text = text;
    this.exact = !text.contains("*");
    StringBuilder re = new StringBuilder();
    int literal = 0;
    int spanning = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '*') {
        if (i + 1 < text.length() && text.charAt(i + 1) == '*') {
          re.append(".+");
          spanning++;
          i++;
        } else {
          re.append("[^/]+");
        }
      } else {
        re.append(Pattern.quote(String.valueOf(c)));
        literal++;
      }
    }
    // DOTALL: a ref may hold U+2028, U+2029 or U+0085, which "." would not match otherwise, and
    // a ref that no wildcard matches would escape the rule meant for it.
    this.regex = Pattern.compile(re.toString(), Pattern.DOTALL);
    this.literalChars = literal;
    this.spanningWildcards = spanning;
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
