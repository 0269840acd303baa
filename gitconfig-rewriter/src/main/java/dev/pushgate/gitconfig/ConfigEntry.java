package dev.pushgate.gitconfig;

/**
 * One {@code name = value} line as git's parser sees it. {@code variable} is the full name as
 * {@code git config --list} prints it (section and key lower-cased, subsection as written);
 * {@code value} is null for a bare key. Text is the file's bytes read as ISO-8859-1, so offsets are
 * byte offsets: {@code [valueStart, valueEnd)} covers the value as written (from just after the
 * {@code =} to its last significant character, closing quote included, comment excluded).
 */
record ConfigEntry(String variable, String value, int line, int valueStart, int valueEnd) {

  /** The part before the first dot. */
  String section() {
    int dot = variable.indexOf('.');
    return dot < 0 ? "" : variable.substring(0, dot);
  }

  /** Between the first and the last dot, the way git's {@code parse_config_key} splits it. */
  String subsection() {
    int first = variable.indexOf('.');
    int last = variable.lastIndexOf('.');
    return first < 0 || first == last ? null : variable.substring(first + 1, last);
  }

  /** After the last dot. */
  String key() {
    return variable.substring(variable.lastIndexOf('.') + 1);
  }
}
