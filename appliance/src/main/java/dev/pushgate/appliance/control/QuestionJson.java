package dev.pushgate.appliance.control;

import dev.pushgate.types.UntrustedText;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.approvals.Question;

/** A question put to the approvers, as the control API and the approvals page send it. */
public final class QuestionJson {
  private QuestionJson() {}

  /**
   * A question as JSON; {@code text} is applied to every text an agent chose (the page shows
   * them through {@link UntrustedText#visible}, the API gives them as they are).
   */
  public static ObjectNode of(ObjectMapper json, Question q,
      java.util.function.UnaryOperator<String> text) {
    ObjectNode n = json.createObjectNode();
    n.put("id", q.id());
    n.put("action", q.action());
    n.put("runId", text.apply(q.runId()));
    n.put("workspaceId", text.apply(q.workspaceId()));
    n.put("repository", text.apply(q.repository()));
    n.put("ref", text.apply(q.ref()));
    n.put("kind", q.kind());
    n.put("oldId", q.oldId());
    n.put("newId", q.newId());
    n.put("command", text.apply(q.command()));
    n.put("rule", text.apply(q.rule()));
    n.put("reason", text.apply(q.reason()));
    n.put("summary", q.summary());
    n.put("askedAt", q.askedAt().toString());
    n.put("deadline", q.deadline().toString());
    var commits = n.putArray("commits");
    q.commits().forEach(c -> commits.add(text.apply(c)));
    return n;
  }
}
