package dev.pushgate.appliance.approvals;

/**
 * Text an agent wrote (a command, a ref name, a commit subject), made safe to show a person who
 * decides on it. What the person reads must be what runs: nothing may redraw the screen, fake a
 * line break, reorder characters, hide between visible ones, or push the rest of the line out of
 * sight. So every character that is not plainly visible is shown as an escape, and a long run of
 * spaces is shown as its count.
 */
public final class VisibleText {
  /** Runs of spaces at least this long are shown as {@code [N spaces]}. */
  static final int SPACE_RUN = 8;

  private VisibleText() {}

  /**
   * A line of a file (a diff an approver reads): as {@link #of}, except that the line's
   * indentation (its leading tabs and spaces) is kept as it is, since it is part of code. After
   * the first visible character the rules of {@link #of} hold: a run of spaces or a tab there
   * could push the rest of the line out of sight.
   */
  public static String ofLine(String text) {
    if (text == null) {
      return null;
    }
    int indent = 0;
    while (indent < text.length() && (text.charAt(indent) == ' ' || text.charAt(indent) == '\t')) {
      indent++;
    }
    return text.substring(0, indent) + of(text.substring(indent));
  }

  /**
   * {@code text} with control, format (zero-width, bidirectional), line and paragraph separator,
   * private-use, unassigned and surrogate characters, invisible fillers and variation selectors,
   * and every space other than U+0020, shown as
   * {@code \xNN} or <code>&#92;uNNNN</code> (<code>&#92;U0001NNNN</code> beyond the BMP); runs of {@value
   * #SPACE_RUN} or more spaces shown as {@code [N spaces]}. Null stays null.
   */
  public static String of(String text) {
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
        if (run >= SPACE_RUN) {
          out.append('[').append(run).append(" spaces]");
        } else {
          out.append(" ".repeat(run));
        }
        i = end;
        continue;
      }
      if (hidden(c)) {
        out.append(c < 0x100 ? String.format("\\x%02x", c)
            : c < 0x10000 ? String.format("\\u%04x", c) : String.format("\\U%08x", c));
      } else {
        out.appendCodePoint(c);
      }
      i += Character.charCount(c);
    }
    return out.toString();
  }

  /** Whether a person could not see {@code c}, or it would change how the rest looks. */
  static boolean hidden(int c) {
    return switch (Character.getType(c)) {
      case Character.CONTROL, Character.FORMAT, Character.LINE_SEPARATOR,
          Character.PARAGRAPH_SEPARATOR, Character.SPACE_SEPARATOR, Character.PRIVATE_USE,
          Character.UNASSIGNED, Character.SURROGATE -> true;
      default -> c == 0x115f || c == 0x1160 || c == 0x3164 || c == 0xffa0 // Hangul fillers
          || (c >= 0xfe00 && c <= 0xfe0f) || (c >= 0xe0100 && c <= 0xe01ef); // variation selectors
    };
  }
}
