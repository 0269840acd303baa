package dev.pushgate.appliance.control;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.types.AuditEntry;

/**
 * One audited decision, of a push, of the Claude Code hook or of the GitHub API boundary, as the
 * control API and {@code pushgate audit --json} show it: {@code action} says which ({@code push},
 * {@code command}, {@code api-call}).
 */
public final class AuditJson {
  private AuditJson() {}

  /** {@code e} is a decision as {@link dev.pushgate.appliance.store.AuditStore#list} reads it. */
  public static ObjectNode of(AuditEntry e) {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("at", e.at().toString());
    n.put("runId", e.runId());
    n.put("workspaceId", e.workspaceId());
    n.put("repository", e.repository());
    boolean command = e.type() == AuditEntry.Type.COMMAND;
    n.put("action", e.type().id());
    // A hook decision's row keeps the command line where a push's keeps its ref.
    n.put("ref", command ? null : e.ref());
    if (command) {
      n.put("command", e.ref());
    }
    if (e.type() == AuditEntry.Type.API_CALL) {
      n.put("call", e.subject());
    }
    n.put("oldId", e.oldId());
    n.put("newId", e.newId());
    n.put("kind", e.kind());
    n.put("decision", e.decision());
    n.put("rule", e.rule());
    n.put("code", e.code());
    n.put("reason", e.reason());
    n.put("outcome", e.outcome());
    n.put("durationMillis", e.durationMillis() == null ? 0 : e.durationMillis());
    return n;
  }
}
