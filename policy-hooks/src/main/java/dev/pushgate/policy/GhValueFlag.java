package dev.pushgate.policy;

import java.util.List;

/**
 * A gh flag that takes a value, read as gh's flag parser (pflag) reads one: {@code --long value},
 * {@code --long=value}, and for a short flag {@code -s value} and {@code -svalue}. One reading for
 * every finding that depends on a flag's value ({@code gh api -X}, {@code --hostname}, {@code -R}).
 *
 * @param shortName the short spelling ({@code -X}), or null when there is none
 * @param longName the long spelling ({@code --method})
 */
record GhValueFlag(String shortName, String longName) {
  static final GhValueFlag METHOD = new GhValueFlag("-X", "--method");
  static final GhValueFlag HOSTNAME = new GhValueFlag(null, "--hostname");
  static final GhValueFlag REPO = new GhValueFlag("-R", "--repo");

  /**
   * A value found on the command line.
   *
   * @param text the value
   * @param last the index of the last word the flag took (the value's own word when apart)
   */
  record Value(String text, int last) {}

  /** The value the word at {@code k} gives this flag; null when it is another word, or has none. */
  Value at(List<String> w, int k) {
    String a = w.get(k);
    if ((a.equals(longName) || a.equals(shortName)) && k + 1 < w.size()) {
      return new Value(w.get(k + 1), k + 1);
    }
    if (a.startsWith(longName + "=")) {
      return new Value(a.substring(longName.length() + 1), k);
    }
    if (shortName != null && a.startsWith(shortName) && a.length() > shortName.length()) {
      return new Value(a.substring(shortName.length()), k);
    }
    return null;
  }
}
