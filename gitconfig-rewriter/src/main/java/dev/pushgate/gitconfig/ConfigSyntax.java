package dev.pushgate.gitconfig;

/**
 * Writes values and subsection names the way git's own parser ({@code config.c}) reads them back.
 * Not JGit's {@code Config.toText()}: it leaves a carriage return unquoted (git then reads it as a
 * space, or drops it at the end of a value) and escapes a tab in a subsection as {@code \t}, which
 * git reads back as {@code t}.
 */
final class ConfigSyntax {
  private ConfigSyntax() {}

  /**
   * A value, quoted only when git would otherwise change it: leading or trailing spaces (dropped
   * when unquoted), {@code #} and {@code ;} (comment starts) and a carriage return (whitespace to
   * git). Backslash, double quote, newline, tab and backspace are escaped. Messages never contain
   * the value, which may be a credential.
   */
  static String value(String value) {
    checkEncodable(value, "value");
    boolean quote = value.startsWith(" ") || value.endsWith(" ");
    StringBuilder out = new StringBuilder(value.length() + 8);
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '"' -> out.append("\\\"");
        case '\n' -> out.append("\\n");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '#', ';', '\r' -> {
          quote = true;
          out.append(c);
        }
        default -> out.append(c);
      }
    }
    return quote ? "\"" + out + "\"" : out.toString();
  }

  /**
   * A subsection name, always quoted: inside {@code [section "..."]} git takes the character after a
   * backslash literally, so only the double quote and the backslash need escaping. A newline cannot
   * be written at all.
   */
  static String subsection(String name) {
    checkEncodable(name, "subsection name");
    StringBuilder out = new StringBuilder(name.length() + 4).append('"');
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '\n') {
        throw new IllegalArgumentException(
            "a git config subsection name cannot contain a newline (at index " + i + ")");
      }
      if (c == '"' || c == '\\') {
        out.append('\\');
      }
      out.append(c);
    }
    return out.append('"').toString();
  }

  private static void checkEncodable(String s, String what) {
    if (s == null) {
      throw new IllegalArgumentException("a git config " + what + " is missing");
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\0') {
        throw new IllegalArgumentException(
            "a git config " + what + " cannot contain a NUL character (at index " + i + ")");
      }
      if (Character.isSurrogate(c)) {
        boolean paired = Character.isHighSurrogate(c) && i + 1 < s.length()
            && Character.isLowSurrogate(s.charAt(i + 1));
        if (!paired) {
          throw new IllegalArgumentException(
              "a git config " + what + " has an unpaired surrogate (at index " + i + ")");
        }
        i++;
      }
    }
  }
}
