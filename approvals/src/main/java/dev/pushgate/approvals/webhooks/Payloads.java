package dev.pushgate.approvals.webhooks;

import dev.pushgate.types.UntrustedText;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.approvals.Answer;
import dev.pushgate.approvals.Question;
import dev.pushgate.types.Redaction;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The bodies webhooks receive (docs/operations.md#webhooks). What an agent wrote (a ref name, a
 * command, commit subjects) is data: JSON-escaped in both formats, and in Slack's also shown as
 * {@link UntrustedText#visible} with Slack's control characters escaped, so that it can neither mention a
 * channel nor make a link. A question holds no key of the appliance's; a token an agent wrote into
 * its text is cut out as logs cut it.
 */
final class Payloads {
  /** The generic payload's schema version; a change that removes or retypes a key bumps it. */
  static final int VERSION = 1;
  /** Agent text a Slack message shows, at most, per field; the generic payload has it whole. */
  static final int SLACK_FIELD = 500;
  /** Commit lines a Slack message lists, at most. */
  static final int SLACK_COMMITS = 10;

  private static final ObjectMapper JSON = new ObjectMapper();

  private Payloads() {}

  static byte[] body(Webhook.Format format, WebhookEvent e) {
    ObjectNode n = format == Webhook.Format.SLACK ? slack(e) : generic(e);
    try {
      return JSON.writeValueAsString(n).getBytes(StandardCharsets.UTF_8);
    } catch (JsonProcessingException ex) {
      throw new IllegalStateException("a webhook body could not be written", ex);
    }
  }

  /** Every key is always present; what does not apply is null. */
  static ObjectNode generic(WebhookEvent e) {
    Question q = e.question();
    Answer a = e.answer();
    ObjectNode n = JSON.createObjectNode();
    n.put("event", e.type().id());
    n.put("version", VERSION);
    n.put("question_id", q.id());
    n.put("action", q.action());
    n.put("asks_about", q.asksAbout());
    n.put("run", q.runId());
    n.put("workspace", q.workspaceId());
    n.put("repository", q.repository());
    n.put("ref", text(q.ref()));
    n.put("kind", q.kind());
    n.put("old_id", q.oldId());
    n.put("new_id", q.newId());
    n.put("command", text(q.command()));
    n.put("rule", text(q.rule()));
    n.put("reason", text(q.reason()));
    ArrayNode commits = n.putArray("commits");
    q.commits().forEach(c -> commits.add(text(c)));
    n.put("summary", text(q.summary()));
    n.put("asked_at", q.askedAt().toString());
    n.put("deadline", q.deadline().toString());
    n.put("outcome", a == null ? null : a.outcome().id());
    n.put("by", a == null ? null : text(a.by()));
    n.put("answer", a == null ? null : text(a.reason()));
    return n;
  }

  /** An incoming webhook's {@code text} (the notification) and {@code blocks} (the message). */
  static ObjectNode slack(WebhookEvent e) {
    Question q = e.question();
    Answer a = e.answer();
    String what = slackText(q.summary());
    String headline = a == null
        ? ":raising_hand: pushgate asks: " + what
        : icon(a) + " pushgate question " + ended(a) + ": " + what;
    ObjectNode n = JSON.createObjectNode();
    n.put("text", headline);
    ArrayNode blocks = n.putArray("blocks");
    section(blocks, "*" + (a == null ? "Approval asked" : "Approval " + ended(a)) + "*\n"
        + what);
    StringBuilder facts = new StringBuilder();
    line(facts, "Run", q.runId());
    line(facts, "Repository", q.repository());
    line(facts, "Rule", q.rule());
    line(facts, "Reason", q.reason());
    if (a != null) {
      line(facts, "Answer", a.reason());
    }
    section(blocks, facts.toString().stripTrailing());
    if (!q.commits().isEmpty()) {
      List<String> shown = q.commits().stream().limit(SLACK_COMMITS)
          .map(c -> "• " + slackText(c)).toList();
      int more = q.commits().size() - shown.size();
      // A push's lines are its commits; an API call's, every action the answer covers.
      section(blocks, (q.asksAbout().equals("api-call") ? "*What the answer covers*\n"
          : "*Commits*\n") + String.join("\n", shown)
          + (more > 0 ? "\n… and " + more + " more lines" : ""));
    }
    ObjectNode context = blocks.addObject();
    context.put("type", "context");
    context.putArray("elements").addObject().put("type", "mrkdwn").put("text",
        "question " + slackText(q.id()) + " · asked " + q.askedAt()
            + (a == null ? " · answer by " + q.deadline() : "")).put("verbatim", true);
    return n;
  }

  private static String ended(Answer a) {
    return switch (a.outcome()) {
      case ALLOWED -> "allowed" + (a.by() == null ? "" : " by " + slackText(a.by()));
      case DENIED -> "denied" + (a.by() == null ? "" : " by " + slackText(a.by()));
      case TIMED_OUT -> "timed out";
      case NO_APPROVER -> "not asked: no approver";
      case CANCELLED -> "withdrawn";
      case TOO_LONG -> "not asked: too long";
    };
  }

  private static String icon(Answer a) {
    return switch (a.outcome()) {
      case ALLOWED -> ":white_check_mark:";
      case DENIED -> ":no_entry:";
      default -> ":hourglass:";
    };
  }

  private static void line(StringBuilder out, String label, String value) {
    if (value != null && !value.isBlank()) {
      out.append('*').append(label).append(":* ").append(slackText(value)).append('\n');
    }
  }

  private static void section(ArrayNode blocks, String mrkdwn) {
    ObjectNode s = blocks.addObject();
    s.put("type", "section");
    // verbatim: Slack does not turn plain @here, @channel, #channel or a bare URL in agent text
    // into a mention or a link; the escaping of & < > covers Slack's explicit forms.
    s.putObject("text").put("type", "mrkdwn").put("text", mrkdwn).put("verbatim", true);
  }

  /**
   * Text as a payload carries it: a token or key an agent put in a command or a commit subject is
   * cut out ({@link Redaction}), as it is from logs, for a webhook's readers are more and farther
   * than the approver's.
   */
  static String text(String s) {
    return Redaction.redact(s);
  }

  /**
   * Text for Slack's mrkdwn: visible (no control or invisible characters), shortened, and with
   * {@code & < >} escaped as Slack asks, so that {@code <!channel>} or {@code <https://x|y>} in a
   * ref name or commit subject is shown, not acted on.
   */
  static String slackText(String text) {
    String visible = UntrustedText.visible(text(text));
    if (visible.length() > SLACK_FIELD) {
      visible = visible.substring(0, SLACK_FIELD) + "…";
    }
    return visible.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
