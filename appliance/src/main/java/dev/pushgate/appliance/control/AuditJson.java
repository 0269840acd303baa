package dev.pushgate.appliance.control;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.gateway.PushRecord;

/**
 * One audited decision, of a push or of the Claude Code hook, as the control API and {@code
 * pushgate audit --json} show it.
 */
public final class AuditJson {
  private AuditJson() {}

  public static ObjectNode of(PushRecord r) {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("at", r.at().toString());
    n.put("runId", r.runId());
    n.put("workspaceId", r.workspaceId());
    n.put("repository", r.repository());
    boolean command = HookDecisions.KIND.equals(r.kind());
    n.put("action", command ? "command" : "push");
    // A hook decision's row keeps the command line where a push's keeps its ref.
    n.put("ref", command ? null : r.ref());
    if (command) {
      n.put("command", r.ref());
    }
    n.put("oldId", r.oldId());
    n.put("newId", r.newId());
    n.put("kind", r.kind());
    n.put("decision", r.decision().id());
    n.put("rule", r.rule());
    n.put("code", r.code() == null ? null : r.code().name());
    n.put("reason", r.reason());
    n.put("outcome", r.outcome() == null ? null : r.outcome().text());
    n.put("durationMillis", r.durationMillis());
    return n;
  }
}
