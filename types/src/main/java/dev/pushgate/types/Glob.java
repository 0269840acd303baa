package dev.pushgate.types;

/**
 * The one glob compiler: a glob becomes a regular expression that matches a whole string. Every
 * glob language of pushgate is a {@link Dialect} of it (ref patterns, content and deny globs,
 * protected-path components, egress host entries); what the languages differ in is an option, and
 * what each refuses to be written is checked by its own parser before it compiles here.
 *
 * <p>The expression is written in the syntax RE2 and {@code java.util.regex} share (inline flags,
 * every ASCII punctuation escaped, other characters as they are), so each reader keeps the engine
 * it needs: RE2/J where the string matched is the agent's to choose and the time must stay linear
 * in it. It always starts with {@code (?s)}: a name may hold U+0085, U+2028 or U+2029, which
 * {@code .} would not match otherwise, and a name no wildcard matches would escape the rule meant
 * for it.
 *
 * @param regex the expression, to compile with the reader's engine; it matches the whole string
 * @param literals how many characters the glob matches as themselves, separators included
 * @param spanning how many of its wildcards may span separators
 */
public record Glob(String regex, int literals, int spanning) {
  /** What {@code **} means. */
  public enum DoubleStar {
    /** Nothing of its own: two {@code *}. */
    TWO_STARS,
    /** One or more characters, separators included ({@code refs/tags/**}). */
    ANY_CHARACTERS,
    /**
     * Written as a whole segment: any number of whole segments, none included ({@code a/**}{@code
     * /b} matches {@code a/b}); elsewhere, two {@code *}.
     */
    WHOLE_SEGMENTS
  }

  /**
   * A glob language.
   *
   * @param separator what {@code *} and {@code ?} never match ({@code /} between path segments,
   *     {@code .} between host labels)
   * @param starMayBeEmpty whether {@code *} matches the empty string, or needs one character
   * @param questionMark whether {@code ?} matches one character (otherwise it is itself)
   * @param doubleStar what {@code **} means
   * @param leadingStarSpans whether a {@code *} that is the whole first segment matches one or more
   *     segments rather than one ({@code *.example.com} covers every subdomain)
   * @param ignoreCase whether the expression ignores case; match such a glob with RE2/J, whose
   *     folding is Unicode's ({@code java.util.regex}'s {@code (?i)} folds ASCII only)
   */
  public record Dialect(
      char separator,
      boolean starMayBeEmpty,
      boolean questionMark,
      DoubleStar doubleStar,
      boolean leadingStarSpans,
      boolean ignoreCase) {
    public Dialect {
      if (separator == '*' || separator == '?' || separator == '\\' || doubleStar == null) {
        throw new IllegalArgumentException("a glob dialect needs a separator that is not *, ? or"
            + " \\, and a meaning for **");
      }
    }
  }

  /** Compiles {@code glob}, as its dialect's parser let it through, in {@code dialect}. */
  public static Glob compile(String glob, Dialect dialect) {
    StringBuilder re = new StringBuilder(dialect.ignoreCase() ? "(?is)" : "(?s)");
    String separator = String.valueOf(dialect.separator());
    String notSeparator = "[^" + escaped(dialect.separator()) + "]";
    String[] segments = glob.split(java.util.regex.Pattern.quote(separator), -1);
    int literals = 0;
    int spanning = 0;
    for (int s = 0; s < segments.length; s++) {
      String seg = segments[s];
      boolean last = s == segments.length - 1;
      if (dialect.doubleStar() == DoubleStar.WHOLE_SEGMENTS && seg.equals("**")) {
        re.append(last ? ".*" : "(?:" + notSeparator + "*" + escaped(dialect.separator()) + ")*");
        spanning++;
        continue;
      }
      if (dialect.leadingStarSpans() && s == 0 && !last && seg.equals("*")) {
        re.append(".+");
        spanning++;
      } else {
        for (int i = 0; i < seg.length(); i++) {
          char c = seg.charAt(i);
          if (c == '*' && dialect.doubleStar() == DoubleStar.ANY_CHARACTERS
              && i + 1 < seg.length() && seg.charAt(i + 1) == '*') {
            re.append(".+");
            spanning++;
            i++;
          } else if (c == '*') {
            re.append(notSeparator).append(dialect.starMayBeEmpty() ? '*' : '+');
          } else if (c == '?' && dialect.questionMark()) {
            re.append(notSeparator);
          } else {
            re.append(escaped(c));
            literals++;
          }
        }
      }
      if (!last) {
        re.append(escaped(dialect.separator()));
        literals++;
      }
    }
    return new Glob(re.toString(), literals, spanning);
  }

  /** {@code c} as itself in both engines: ASCII punctuation escaped, anything else as it is. */
  private static String escaped(char c) {
    boolean punctuation = c < 0x80 && !Character.isLetterOrDigit(c) && c >= 0x20 && c != 0x7f;
    return punctuation ? "\\" + c : String.valueOf(c);
  }
}
