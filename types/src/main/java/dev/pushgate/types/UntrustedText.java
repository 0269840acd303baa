package dev.pushgate.types;

/** Renders untrusted text for an error message: control characters escaped, length bounded. */
public final class UntrustedText {
  private UntrustedText() {}

  public static String printable(String s) {
    if (s == null) {
      return "(none)";
    }
    if (s.isEmpty()) {
      return "\"\"";
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length() && b.length() <= 200; i++) {
      char c = s.charAt(i);
      b.append(c < 0x20 || c == 0x7f ? String.format("\\x%02x", (int) c) : String.valueOf(c));
    }
    return b.length() > 200 ? b.substring(0, 200) + "…" : b.toString();
  }

  /** At most this many characters of a {@link #quoted} text are shown. */
  public static final int MAX_QUOTED = 200;

  /**
   * Untrusted text as unmistakable data inside a message of ours: a JSON-style string in double
   * quotes, its {@code "} and {@code \} escaped, and every character that is not plainly visible
   * written as a JSON escape (backslash, u, four hex digits) (controls, line and paragraph separators, bidi and other format
   * characters such as U+202E, spaces other than U+0020, private-use, unassigned and lone
   * surrogates), so that neither a quote, a line break nor a reordering can end the quotation or
   * change what the rest of the message says. Longer than {@link #MAX_QUOTED} characters, it is cut
   * and {@code …} follows the closing quote.
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
        if (visible(cp)) {
          b.appendCodePoint(cp);
        } else {
          b.append(String.format("\\u%04x\\u%04x", (int) c, (int) text.charAt(i + 1)));
        }
        i++;
      } else if (visible(c)) {
        b.append(c);
      } else {
        b.append(String.format("\\u%04x", (int) c));
      }
    }
    return b.append('"').toString();
  }

  private static boolean visible(int cp) {
    if (cp == ' ') {
      return true;
    }
    switch (Character.getType(cp)) {
      case Character.CONTROL, Character.FORMAT, Character.LINE_SEPARATOR,
          Character.PARAGRAPH_SEPARATOR, Character.SPACE_SEPARATOR, Character.PRIVATE_USE,
          Character.SURROGATE, Character.UNASSIGNED:
        return false;
      default:
        return true;
    }
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
}
