package dev.pushgate.policy;

import dev.pushgate.types.UntrustedText;
import java.util.Objects;

/**
 * A workspace rules document was refused. Nothing of it applies. The message is one line: {@code
 * line 7, column 15: bad decision 'maybe' (expected allow, ask or deny)} for a document read from
 * text, {@code rules.push[1].decision: bad decision 'maybe' (expected allow, ask or deny)} for
 * rules given as a JSON tree.
 */
public final class RulesException extends Exception {
  private final int line;
  private final int column;
  private final String path;
  private final String problem;

  RulesException(int line, int column, String path, String problem) {
    super(render(line, column, oneLine(path, "path"), oneLine(problem, "problem")));
    this.line = line;
    this.column = column;
    this.path = oneLine(path, "path");
    this.problem = oneLine(problem, "problem");
  }

  /** The 1-based line of the offending text, or 0 when the rules were not read from text. */
  public int line() {
    return line;
  }

  /** The 1-based column of the offending text, or 0 when the rules were not read from text. */
  public int column() {
    return column;
  }

  /**
   * Where in the document the problem is, as a JSON path such as {@code push[1].decision}
   * (prefixed with the caller's path for {@link WorkspaceRules#fromJson}); empty for the root.
   */
  public String path() {
    return path;
  }

  /** The problem alone, without its location. */
  public String problem() {
    return problem;
  }

  /** Document text quoted in a path or problem (a key, a pattern) may hold a line break. */
  private static String oneLine(String s, String what) {
    return UntrustedText.oneLine(Objects.requireNonNull(s, what));
  }

  private static String render(int line, int column, String path, String problem) {
    if (line > 0) {
      return "line " + line + ", column " + column + ": " + problem;
    }
    return path.isEmpty() ? problem : path + ": " + problem;
  }
}
