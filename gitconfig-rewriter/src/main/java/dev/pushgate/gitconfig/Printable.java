package dev.pushgate.gitconfig;

/** Renders untrusted text for an error message: control characters as escapes, long text cut. */
final class Printable {
  private static final int MAX = 200;

  private Printable() {}

  static String of(String s) {
    if (s == null) {
      return "(none)";
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < s.length() && out.length() < MAX; i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        out.append(String.format("\\x%02x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.length() >= MAX ? out.substring(0, MAX) + "…" : out.toString();
  }
}
