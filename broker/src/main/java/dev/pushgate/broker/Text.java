package dev.pushgate.broker;

import java.util.regex.Pattern;

/** Makes text from GitHub fit for a one-line operator message. */
final class Text {
  private static final Pattern REQUEST_ID = Pattern.compile("[A-Za-z0-9:._-]{1,100}");

  private Text() {}

  /** Control characters become spaces, runs of space collapse, and long text is cut. */
  static String oneLine(String s, int max) {
    if (s == null) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    boolean space = false;
    for (int i = 0; i < s.length() && b.length() < max; i++) {
      char c = s.charAt(i);
      if (Character.isWhitespace(c) || Character.isISOControl(c)) {
        space = b.length() > 0;
        continue;
      }
      if (space) {
        b.append(' ');
        space = false;
      }
      b.append(c);
    }
    String out = b.toString();
    return out.length() >= max ? out + "…" : out;
  }

  /** The request id if it looks like one; anything else is dropped rather than echoed. */
  static String requestId(String header) {
    return header != null && REQUEST_ID.matcher(header).matches() ? header : null;
  }

  /** Whether a credential can travel in an HTTP header as it is. */
  static boolean headerSafe(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c <= 0x20 || c >= 0x7f) {
        return false;
      }
    }
    return true;
  }

  static String seconds(java.time.Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? ms / 1000 + " s" : String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
  }
}
