package dev.pushgate.policy;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The literal texts every match of a regex starts with, read off the regex's own spelling:
 * {@code (?i)(?:access|auth|(?-i:[Aa]pi|API))…} starts with {@code access}, {@code auth} or
 * {@code api}. A scanner then tries the regex only where one of them occurs, instead of at every
 * offset. Conservative: anything it does not understand gives no answer, and the regex is run
 * everywhere. Comparison ignores case (a superset of the places a case-sensitive regex matches).
 */
final class LeadingLiterals {
  /** Shorter literals occur too often to be worth anchoring on. */
  static final int MIN_LENGTH = 2;

  private LeadingLiterals() {}

  /** The lower-cased literals, or empty when some match may start otherwise. */
  static Optional<Set<String>> of(String regex) {
    Set<String> out = new LinkedHashSet<>();
    if (!collect(regex, out)) {
      return Optional.empty();
    }
    for (String s : out) {
      if (s.length() < MIN_LENGTH) {
        return Optional.empty();
      }
    }
    return Optional.of(out);
  }

  private static boolean collect(String re, Set<String> into) {
    java.util.List<String> alts = alternatives(re);
    if (alts.size() > 1) {
      for (String alt : alts) {
        if (!collect(alt, into)) {
          return false;
        }
      }
      return true;
    }
    String s = re;
    while (true) {
      if (s.startsWith("(?i)")) {
        s = s.substring(4);
      } else if (s.startsWith("\\b") || s.startsWith("^")) {
        s = s.substring(s.startsWith("^") ? 1 : 2);
      } else {
        break;
      }
    }
    if (s.startsWith("(")) {
      int close = closing(s);
      if (close < 0 || close + 1 < s.length() && "?*{+".indexOf(s.charAt(close + 1)) >= 0) {
        return false; // an optional or repeated group: the match may start after it
      }
      int open = s.startsWith("(?:") || s.startsWith("(?i:") ? s.indexOf(':') + 1
          : s.startsWith("(?-i:") ? 5 : s.startsWith("(?") ? -1 : 1;
      if (open < 0) {
        return false; // a lookaround or a named group: not worth understanding
      }
      for (String alt : alternatives(s.substring(open, close))) {
        if (!collect(alt, into)) {
          return false;
        }
      }
      return true;
    }
    StringBuilder lit = new StringBuilder();
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c < 128 && Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == ' ' || c == ':'
          || c == '=' || c == '"' || c == '\'') {
        lit.append(c);
        i++;
      } else if (c == '\\' && i + 1 < s.length() && ".-_/:$".indexOf(s.charAt(i + 1)) >= 0) {
        lit.append(s.charAt(i + 1));
        i += 2;
      } else if (c == '[' && i + 3 < s.length() && s.charAt(i + 3) == ']'
          && Character.toLowerCase(s.charAt(i + 1)) == Character.toLowerCase(s.charAt(i + 2))) {
        lit.append(s.charAt(i + 1)); // [Aa]: one letter in either case
        i += 4;
      } else {
        break;
      }
    }
    if (i < s.length() && "?*{".indexOf(s.charAt(i)) >= 0 && lit.length() > 0) {
      lit.setLength(lit.length() - 1); // the last character is optional
    }
    if (lit.length() == 0) {
      return false;
    }
    into.add(lit.toString().toLowerCase(Locale.ROOT));
    return true;
  }

  /** The index of the parenthesis closing the group {@code s} starts with, or -1. */
  private static int closing(String s) {
    java.util.List<Integer> closes = outermost(s, ')');
    return closes.isEmpty() ? -1 : closes.get(0);
  }

  private static java.util.List<String> alternatives(String body) {
    java.util.List<String> out = new java.util.ArrayList<>();
    int from = 0;
    for (int bar : outermost(body, '|')) {
      out.add(body.substring(from, bar));
      from = bar + 1;
    }
    out.add(body.substring(from));
    return out;
  }

  /**
   * Where {@code wanted} ({@code |} or {@code )}) stands outside every group, with the group a
   * {@code )} closes counted as left; never inside a character class ({@code ]} right after
   * {@code [} is a member, as both regex engines read it) or after a backslash. One reading of
   * the regex for splitting alternatives and for finding a group's end.
   */
  private static java.util.List<Integer> outermost(String s, char wanted) {
    java.util.List<Integer> at = new java.util.ArrayList<>();
    int depth = 0;
    boolean inClass = false;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\') {
        i++;
      } else if (inClass) {
        inClass = c != ']';
      } else if (c == '[') {
        inClass = true;
        if (i + 1 < s.length() && s.charAt(i + 1) == ']') {
          i++;
        }
      } else {
        depth += c == '(' ? 1 : c == ')' ? -1 : 0;
        if (c == wanted && depth == 0) {
          at.add(i);
        }
      }
    }
    return at;
  }
}
