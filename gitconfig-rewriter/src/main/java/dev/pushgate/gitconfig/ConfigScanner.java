package dev.pushgate.gitconfig;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads a git config file the way git 2.39's {@code config.c} ({@code git_parse_source} and
 * friends) does, step for step, so that whatever git refuses is refused here too and every value
 * is located by byte offset. The offsets let a rewrite replace one value and keep every other byte
 * of the file, comments included. Includes are not followed (as {@code git config --file}).
 */
final class ConfigScanner {
  private static final char[] UTF8_BOM = {0xef, 0xbb, 0xbf};

  private final String text;
  private final List<ConfigEntry> entries = new ArrayList<>();
  private int pos;
  private boolean eof;
  private int line = 1;
  private int valueEnd;

  private ConfigScanner(String text) {
    this.text = text;
  }

  /**
   * Parses {@code text}, the file's bytes as ISO-8859-1.
   *
   * @throws ConfigSyntaxException where git would say "bad config line N"
   */
  static List<ConfigEntry> scan(String text) throws ConfigSyntaxException {
    return new ConfigScanner(text).parse();
  }

  private List<ConfigEntry> parse() throws ConfigSyntaxException {
    StringBuilder var = new StringBuilder();
    int baseLength = 0;
    boolean comment = false;
    int bom = 0;
    boolean bomDone = false;
    for (;;) {
      int c = next();
      if (!bomDone) {
        // git skips a UTF-8 byte order mark and refuses a partial one
        if (c == UTF8_BOM[bom]) {
          bom++;
          bomDone = bom == UTF8_BOM.length;
          continue;
        }
        if (bom != 0) {
          throw error();
        }
        bomDone = true;
      }
      if (c == '\n') {
        if (eof) {
          return entries;
        }
        comment = false;
        continue;
      }
      if (comment || isSpace(c)) {
        continue;
      }
      if (c == '#' || c == ';') {
        comment = true;
        continue;
      }
      if (c == '[') {
        var.setLength(0);
        if (!baseVar(var) || var.length() < 1) {
          throw error();
        }
        var.append('.');
        baseLength = var.length();
        continue;
      }
      if (!isAlpha(c)) {
        throw error();
      }
      var.setLength(baseLength);
      var.append(toLower(c));
      entry(var);
    }
  }

  /** git's {@code get_next_char}: CR LF reads as LF, and the end of input reads as LF. */
  private int next() {
    int c;
    if (pos >= text.length()) {
      eof = true;
      line++;
      return '\n';
    }
    c = text.charAt(pos++);
    if (c == '\r' && pos < text.length() && text.charAt(pos) == '\n') {
      pos++;
      c = '\n';
    }
    if (c == '\n') {
      line++;
    }
    return c;
  }

  /** git's {@code get_value}: the rest of the key name, then an optional {@code = value}. */
  private void entry(StringBuilder name) throws ConfigSyntaxException {
    int c;
    for (;;) {
      c = next();
      if (eof || !isKeyChar(c)) {
        break;
      }
      name.append(toLower(c));
    }
    while (c == ' ' || c == '\t') {
      c = next();
    }
    String value = null;
    int start = -1;
    int end = -1;
    if (c != '\n') {
      if (c != '=') {
        throw error();
      }
      start = pos;
      valueEnd = pos;
      value = value();
      end = valueEnd;
    }
    // git counts the line of the entry, not the one its terminating newline moved to
    entries.add(new ConfigEntry(name.toString(), value, line - 1, start, end));
  }

  /** git's {@code parse_value}, also recording where the last significant character ends. */
  private String value() throws ConfigSyntaxException {
    StringBuilder value = new StringBuilder();
    boolean quote = false;
    boolean comment = false;
    int space = 0;
    for (;;) {
      int c = next();
      if (c == '\n') {
        if (quote) {
          line--;
          throw error();
        }
        return value.toString();
      }
      if (comment) {
        continue;
      }
      if (isSpace(c) && !quote) {
        if (value.length() > 0) {
          space++;
        }
        continue;
      }
      if (!quote && (c == ';' || c == '#')) {
        comment = true;
        continue;
      }
      for (; space > 0; space--) {
        value.append(' ');
      }
      if (c == '\\') {
        c = next();
        switch (c) {
          case '\n':
            continue;
          case 't':
            c = '\t';
            break;
          case 'b':
            c = '\b';
            break;
          case 'n':
            c = '\n';
            break;
          case '\\':
          case '"':
            break;
          default:
            throw error();
        }
        value.append((char) c);
        valueEnd = pos;
        continue;
      }
      if (c == '"') {
        quote = !quote;
        valueEnd = pos;
        continue;
      }
      value.append((char) c);
      valueEnd = pos;
    }
  }

  /** git's {@code get_base_var}: {@code [section]}, {@code [section.sub]} or an extended header. */
  private boolean baseVar(StringBuilder name) {
    for (;;) {
      int c = next();
      if (eof) {
        return false;
      }
      if (c == ']') {
        return true;
      }
      if (isSpace(c)) {
        return extendedBaseVar(name, c);
      }
      if (!isKeyChar(c) && c != '.') {
        return false;
      }
      name.append(toLower(c));
    }
  }

  /** git's {@code get_extended_base_var}: {@code [section "subsection"]}, case kept. */
  private boolean extendedBaseVar(StringBuilder name, int first) {
    int c = first;
    do {
      if (c == '\n') {
        line--;
        return false;
      }
      c = next();
    } while (isSpace(c));
    if (c != '"') {
      return false;
    }
    name.append('.');
    for (;;) {
      c = next();
      if (c == '\n') {
        line--;
        return false;
      }
      if (c == '"') {
        break;
      }
      if (c == '\\') {
        c = next();
        if (c == '\n') {
          line--;
          return false;
        }
      }
      name.append((char) c);
    }
    return next() == ']';
  }

  private ConfigSyntaxException error() {
    return new ConfigSyntaxException(line);
  }

  // git's sane_ctype: ASCII only, whitespace is space, tab, LF and CR
  private static boolean isSpace(int c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
  }

  private static boolean isAlpha(int c) {
    return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z';
  }

  private static boolean isKeyChar(int c) {
    return isAlpha(c) || c >= '0' && c <= '9' || c == '-';
  }

  private static char toLower(int c) {
    return (char) (c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
  }
}
