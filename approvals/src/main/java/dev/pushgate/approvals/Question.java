package dev.pushgate.approvals;

import dev.pushgate.gateway.ApprovalQuestion;
import dev.pushgate.types.UntrustedText;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A question held open for an approver: what a door asks about ({@link ApprovalQuestion}, the
 * gateway's one description of a held ref update or GitHub API call, or a command an agent wants
 * to run), with the id, time and deadline the desk gives it. Fields that do not apply are null.
 *
 * @param about what is asked, as the door described it; for a command, its run and the rule
 * @param command the command an agent wants to run, or null for a push or an API call
 */
public record Question(
    String id,
    Instant askedAt,
    Instant deadline,
    ApprovalQuestion about,
    String command) {

  public Question {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(about, "about");
    Objects.requireNonNull(about.runId(), "runId");
  }

  /** A question with each field given, as the store and the tests make one. */
  public Question(String id, Instant askedAt, Instant deadline, String action, String runId,
      String workspaceId, String repository, String ref, String kind, String oldId, String newId,
      String command, String rule, String reason, List<String> commits) {
    this(id, askedAt, deadline, new ApprovalQuestion(runId, workspaceId, repository, ref, kind,
        oldId, newId, rule, reason, commits == null ? List.of() : commits,
        Objects.requireNonNull(action, "action")), command);
  }

  /** A door's question, not yet held: the desk gives it its id and times. */
  public static Question asked(ApprovalQuestion about) {
    return new Question("-", null, null, about, null);
  }

  /** The same question as held by the desk, under {@code id} until {@code deadline}. */
  public Question held(String id, Instant askedAt, Instant deadline) {
    return new Question(id, askedAt, deadline, about, command);
  }

  public String action() {
    return about.action();
  }

  public String runId() {
    return about.runId();
  }

  public String workspaceId() {
    return about.workspaceId();
  }

  public String repository() {
    return about.repository();
  }

  public String ref() {
    return about.ref();
  }

  public String kind() {
    return about.kind();
  }

  public String oldId() {
    return about.oldId();
  }

  public String newId() {
    return about.newId();
  }

  public String rule() {
    return about.rule();
  }

  public String reason() {
    return about.reason();
  }

  /** What the answer covers, one line each (for a push, the commits new to the repository). */
  public List<String> commits() {
    return about.commitSummaries();
  }

  /**
   * One line a person reads in git's output or a terminal, never shortened. What an agent wrote (a
   * command, a ref name) is shown as {@link UntrustedText#visible}, so it cannot redraw the
   * approver's screen, fake a second line or hide part of itself.
   */
  public String summary() {
    if (command != null) {
      return "run " + runId() + " wants to run: " + UntrustedText.visible(command);
    }
    String range = oldId() == null ? "" : " " + shortId(oldId()) + ".." + shortId(newId());
    return kind() + " " + UntrustedText.visible(ref()) + " of " + repository() + range;
  }

  /**
   * What the question is about, as the audit names its records: {@code command} (a Claude Code
   * hook call), {@code push} (a ref update held by the gateway) or {@code api-call} (a GitHub API
   * call, whose {@code action} is its action classes).
   */
  public String asksAbout() {
    return command != null ? "command" : action().equals("push") ? "push" : "api-call";
  }

  private static String shortId(String id) {
    return id.length() > 10 ? id.substring(0, 10) : id;
  }
}
