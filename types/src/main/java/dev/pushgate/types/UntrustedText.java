package dev.pushgate.types;

/**
 * Untrusted text (a ref name, a command, a path, an error body from GitHub, a row another host
 * wrote) made safe to show inside a message of ours, a line of git's output, a log line or an
 * approver's screen. One rule says which characters are not plainly visible ({@link #hidden}):
 * C0 and C1 controls and DEL, format characters (bidi overrides and isolates, zero-width ones),
 * line and paragraph separators, every space other than U+0020, private-use, unassigned and lone
 * surrogate code points, invisible fillers and variation selectors. The renderings differ only in
 * what they do with such a character, on purpose:
 *
 * <ul>
 *   <li>{@link #printable}: shown as an escape, cut at {@value #MAX_PRINTABLE} characters (an
 *       error message naming a bad value);
 *   <li>{@link #quoted}: shown as a JSON escape inside double quotes (data that must not end its
 *       quotation);
 *   <li>{@link #visible}: shown as an escape, with long runs of spaces counted (what a person
 *       decides on must be what runs);
 *   <li>{@link #oneLine}: dropped to one space (text joined into a line of ours);
 *   <li>{@link #name}: only letters, digits, {@code .}, {@code _} and {@code -} kept (a name
 *       inside a structured value, such as a certificate's subject).
 * </ul>
 */
public final class UntrustedText {
  /** At most this many characters of a {@link #printable} text are shown. */
  public static final int MAX_PRINTABLE = 200;
  /** At most this many characters of a {@link #quoted} text are shown. */
  public static final int MAX_QUOTED = 200;
  /** Runs of spaces at least this long are shown by {@link #visible} as {@code [N spaces]}. */
  public static final int SPACE_RUN = 8;

  private UntrustedText() {}

  /**
   * Whether a person could not see {@code cp}, or it would change how the rest of the line
   * looks: the one rule every rendering here applies. U+0020 is visible.
   */
  public static boolean hidden(int cp) {
    return switch (Character.getType(cp)) {
      case Character.CONTROL, Character.FORMAT, Character.LINE_SEPARATOR,
          Character.PARAGRAPH_SEPARATOR, Character.SPACE_SEPARATOR, Character.PRIVATE_USE,
          Character.UNASSIGNED, Character.SURROGATE -> cp != ' ';
      default -> cp == 0x115f || cp == 0x1160 || cp == 0x3164 || cp == 0xffa0 // Hangul fillers
          || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef); // variation selectors
    };
  }

  /**
   * For an error message naming a bad value: every {@link #hidden} character as an escape
   * ({@code \xNN}, <code>&#92;uNNNN</code>, <code>&#92;U0001NNNN</code>), cut after {@value
   * #MAX_PRINTABLE} characters with {@code …}; {@code (none)} for null, {@code ""} for empty.
   */
  public static String printable(String s) {
    if (s == null) {
      return "(none)";
    }
    if (s.isEmpty()) {
      return "\"\"";
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length() && b.length() <= MAX_PRINTABLE; ) {
      int cp = s.codePointAt(i);
      appendEscaped(b, cp);
      i += Character.charCount(cp);
    }
    return b.length() > MAX_PRINTABLE ? b.substring(0, MAX_PRINTABLE) + "…" : b.toString();
  }

  /**
   * Untrusted text as unmistakable data inside a message of ours: a JSON-style string in double
   * quotes, its {@code "} and {@code \} escaped, and every {@link #hidden} character written as a
   * JSON escape (backslash, u, four hex digits; a pair of them beyond the BMP), so that neither a
   * quote, a line break nor a reordering can end the quotation or change what the rest of the
   * message says. Longer than {@link #MAX_QUOTED} characters, it is cut and {@code …} follows the
   * closing quote.
   */
  public static String quoted(String s) {
    String text = s == null ? "" : s;
    StringBuilder b = new StringBuilder("\"");
    int shown = 0;
    for (int i = 0; i < text.length(); i++) {
      if (shown++ == MAX_QUOTED) {
        return b.append("\"…").toString();
      }
      char c = text.charAt(i);
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        int cp = text.codePointAt(i);
        if (hidden(cp)) {
          b.append(String.format("\\u%04x\\u%04x", (int) c, (int) text.charAt(i + 1)));
        } else {
          b.appendCodePoint(cp);
        }
        i++;
      } else if (hidden(c)) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }

  /**
   * Text an agent wrote (a command, a ref name, a commit subject) as a person who decides on it
   * sees it: every {@link #hidden} character as an escape ({@code \xNN}, <code>&#92;uNNNN</code>,
   * <code>&#92;U0001NNNN</code>), and runs of {@value #SPACE_RUN} or more spaces as {@code [N
   * spaces]}, which could push the rest of the line out of sight. Null stays null.
   */
  public static String visible(String text) {
    if (text == null) {
      return null;
    }
    StringBuilder out = new StringBuilder(text.length());
    int i = 0;
    while (i < text.length()) {
      int c = text.codePointAt(i);
      if (c == ' ') {
        int end = i;
        while (end < text.length() && text.charAt(end) == ' ') {
          end++;
        }
        int run = end - i;
        out.append(run >= SPACE_RUN ? "[" + run + " spaces]" : " ".repeat(run));
        i = end;
        continue;
      }
      appendEscaped(out, c);
      i += Character.charCount(c);
    }
    return out.toString();
  }

  /**
   * A line of a file (a diff an approver reads): as {@link #visible}, except that the line's
   * indentation (its leading tabs and spaces) is kept as it is, since it is part of code. After
   * the first visible character the rules of {@link #visible} hold.
   */
  public static String visibleLine(String text) {
    if (text == null) {
      return null;
    }
    int indent = 0;
    while (indent < text.length() && (text.charAt(indent) == ' ' || text.charAt(indent) == '\t')) {
      indent++;
    }
    return text.substring(0, indent) + visible(text.substring(indent));
  }

  /**
   * Text joined into a line of ours (a refusal, a log line, an operator message): every run of
   * {@link #hidden} characters, with the spaces around it, becomes one space, and the ends are
   * stripped, so the text can neither break the line nor reorder it. Spaces between visible
   * characters are kept as they are: what a person reads keeps its length (a run of spaces that
   * pushes the rest of a subject out of sight is still counted where it is cut). Null is empty.
   */
  public static String oneLine(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder b = new StringBuilder(s.length());
    int i = 0;
    while (i < s.length()) {
      int cp = s.codePointAt(i);
      if (cp != ' ' && !hidden(cp)) {
        b.appendCodePoint(cp);
        i += Character.charCount(cp);
        continue;
      }
      int start = i;
      boolean folds = false;
      while (i < s.length() && (s.codePointAt(i) == ' ' || hidden(s.codePointAt(i)))) {
        folds |= s.codePointAt(i) != ' ';
        i += Character.charCount(s.codePointAt(i));
      }
      if (b.length() > 0 && i < s.length()) { // a gap inside the text, not at its ends
        b.append(folds ? " " : s.substring(start, i));
      }
    }
    return b.toString();
  }

  /** As {@link #oneLine(String)}, cut after {@code max} characters with {@code …}. */
  public static String oneLine(String s, int max) {
    String line = oneLine(s);
    if (line.length() <= max) {
      return line;
    }
    int end = Character.isLowSurrogate(line.charAt(max)) ? max - 1 : max; // a pair stays whole
    return line.substring(0, end) + "…";
  }

  /**
   * A name inside a structured value (a certificate subject's common name): only ASCII letters,
   * digits, {@code .}, {@code _} and {@code -} are kept, anything else becomes {@code _}.
   */
  public static String name(String s) {
    return s.replaceAll("[^A-Za-z0-9._-]", "_");
  }

  /** True when the text has a control character (including NUL, CR and LF). */
  public static boolean hasControl(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        return true;
      }
    }
    return false;
  }

  private static void appendEscaped(StringBuilder b, int cp) {
    if (!hidden(cp)) {
      b.appendCodePoint(cp);
    } else if (cp < 0x100) {
      b.append(String.format("\\x%02x", cp));
    } else if (cp < 0x10000) {
      b.append(String.format("\\u%04x", cp));
    } else {
      b.append(String.format("\\U%08x", cp));
    }
  }
}
