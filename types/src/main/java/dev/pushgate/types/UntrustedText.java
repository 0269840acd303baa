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
