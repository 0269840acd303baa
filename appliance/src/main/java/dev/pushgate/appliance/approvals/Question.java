package dev.pushgate.appliance.approvals;

import dev.pushgate.types.UntrustedText;
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
   * One line a person reads in git's output or a terminal, never shortened. What an agent wrote (a
   * command, a ref name) is shown as {@link UntrustedText#visible}, so it cannot redraw the
   * approver's screen, fake a second line or hide part of itself.
   */
  public String summary() {
    if (command != null) {
      return "run " + runId + " wants to run: " + UntrustedText.visible(command);
    }
    String range = oldId == null ? "" : " " + shortId(oldId) + ".." + shortId(newId);
    return kind + " " + UntrustedText.visible(ref) + " of " + repository + range;
  }

  /**
   * What the question is about, as the audit names its records: {@code command} (a Claude Code
   * hook call), {@code push} (a ref update held by the gateway) or {@code api-call} (a GitHub API
   * call, whose {@code action} is its action classes).
   */
  public String asksAbout() {
    return command != null ? "command" : action.equals("push") ? "push" : "api-call";
  }

  private static String shortId(String id) {
    return id.length() > 10 ? id.substring(0, 10) : id;
  }
}
