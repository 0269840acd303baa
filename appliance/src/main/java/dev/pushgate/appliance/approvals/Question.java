package dev.pushgate.appliance.approvals;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A question held open for an approver: a ref update a push rule says to ask about, or a command
 * an agent wants to run. Fields that do not apply are null.
 */
public record Question(
    String id,
    Instant askedAt,
    Instant deadline,
    String action,
    String runId,
    String workspaceId,
    String repository,
    String ref,
    String kind,
    String oldId,
    String newId,
    String command,
    String rule,
    String reason,
    List<String> commits) {

  public Question {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(runId, "runId");
    commits = commits == null ? List.of() : List.copyOf(commits);
  }

  /**
   * One line a person reads in git's output or a terminal. What an agent wrote (a command, a ref
   * name) is shown with its control characters escaped, so it cannot redraw the approver's screen.
   */
  public String summary() {
    if (command != null) {
      return "run " + runId + " wants to run: " + printable(command);
    }
    String range = oldId == null ? "" : " " + shortId(oldId) + ".." + shortId(newId);
    return kind + " " + printable(ref) + " of " + repository + range;
  }

  /** {@code text} with control and bidirectional-override characters shown as escapes. */
  public static String printable(String text) {
    if (text == null) {
      return null;
    }
    StringBuilder out = new StringBuilder(text.length());
    text.codePoints().forEach(c -> {
      if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || (c >= 0x202a && c <= 0x202e)
          || (c >= 0x2066 && c <= 0x2069)) {
        out.append(c < 0x100 ? String.format("\\x%02x", c) : String.format("\\u%04x", c));
      } else {
        out.appendCodePoint(c);
      }
    });
    return out.toString();
  }

  private static String shortId(String id) {
    return id.length() > 10 ? id.substring(0, 10) : id;
  }
}
