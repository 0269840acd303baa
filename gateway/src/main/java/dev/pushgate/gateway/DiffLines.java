package dev.pushgate.gateway;

import dev.pushgate.gateway.Diffstat.FileDiff;
import dev.pushgate.gateway.Diffstat.Finding;
import dev.pushgate.gateway.Diffstat.Line;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jgit.util.RawParseUtils;

/**
 * One file's unified diff, as JGit's {@code DiffFormatter} writes it, read into numbered lines for
 * an approver: the headers before the first hunk are dropped (the page names the file itself),
 * each line keeps its number in the old and the new file so a content rule's finding lands on its
 * line. The text is the pushed file's, never interpreted; the page shows it as text.
 */
final class DiffLines {
  private static final Pattern HUNK = Pattern.compile("^@@ -(\\d+)(?:,\\d+)? \\+(\\d+)(?:,\\d+)? @@");

  private DiffLines() {}

  /**
   * @param max lines to keep at most; the rest of the file's changed and context lines are
   *     counted in {@link FileDiff#hiddenLines}
   * @param findings this file's findings with a line: the line they name shows the finding in
   *     place of its text (a secret is never shown)
   */
  static FileDiff of(byte[] patch, int max, int maxChars, List<Finding> findings) {
    String[] raw = RawParseUtils.decode(patch).split("\n", -1);
    List<Line> out = new ArrayList<>();
    int hidden = 0;
    int oldLine = 0;
    int newLine = 0;
    boolean inHunk = false;
    for (String text : raw) {
      Matcher m = HUNK.matcher(text);
      if (m.find()) {
        inHunk = true;
        oldLine = Integer.parseInt(m.group(1));
        newLine = Integer.parseInt(m.group(2));
        if (out.size() < max) {
          out.add(new Line(Line.Kind.HUNK, 0, 0, cut(text, maxChars), null));
        }
        continue;
      }
      if (!inHunk || text.isEmpty() || text.startsWith("\\")) {
        continue; // headers, the end of the output, "\ No newline at end of file"
      }
      Line line = switch (text.charAt(0)) {
        case '+' -> new Line(Line.Kind.ADDED, 0, newLine++, text.substring(1), null);
        case '-' -> new Line(Line.Kind.REMOVED, oldLine++, 0, text.substring(1), null);
        default -> new Line(Line.Kind.CONTEXT, oldLine++, newLine++, text.substring(1), null);
      };
      if (out.size() >= max) {
        hidden++;
        continue;
      }
      out.add(withFinding(line, findings, maxChars));
    }
    return new FileDiff(out, hidden);
  }

  private static Line withFinding(Line line, List<Finding> findings, int maxChars) {
    if (line.newLine() > 0) {
      for (Finding f : findings) {
        if (f.line() == line.newLine()) {
          return new Line(line.kind(), line.oldLine(), line.newLine(),
              "(line not shown: it holds what the content rule found)", f.text());
        }
      }
    }
    return new Line(line.kind(), line.oldLine(), line.newLine(), cut(line.text(), maxChars),
        null);
  }

  private static String cut(String text, int maxChars) {
    if (text.length() <= maxChars) {
      return text;
    }
    int end = Character.isHighSurrogate(text.charAt(maxChars - 1)) ? maxChars - 1 : maxChars;
    return text.substring(0, end) + "… (" + (text.length() - end) + " more characters)";
  }
}
