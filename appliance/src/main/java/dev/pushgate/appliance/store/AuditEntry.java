package dev.pushgate.appliance.store;

import java.time.Instant;
import java.util.Objects;

/**
 * What one audit record says, before it is chained: the columns of the {@code audit} table but
 * the chain's own. Which columns a type fills is listed in docs/audit.md; {@code runId}, {@code
 * repository} and {@code decision} are always present (the table requires them).
 *
 * @param settles the id of the push decision a {@link Type#PUSH_OUTCOME} settles
 * @param subject what the record is about beyond the run: an approval question's id, a
 *     credential's ledger id
 * @param actor who acted when a person did: the approver who answered a question
 */
public record AuditEntry(
    Type type,
    Instant at,
    String runId,
    String workspaceId,
    String repository,
    String ref,
    String oldId,
    String newId,
    String kind,
    String decision,
    String rule,
    String code,
    String reason,
    String outcome,
    Long durationMillis,
    Long settles,
    String subject,
    String actor) {

  /** The kinds of record; {@link #id} is the word stored in {@code record_type}. */
  public enum Type {
    PUSH("push"),
    PUSH_OUTCOME("push-outcome"),
    COMMAND("command"),
    APPROVAL_ASKED("approval-asked"),
    APPROVAL_ANSWERED("approval-answered"),
    TOKEN_ISSUED("token-issued"),
    TOKEN_REVOKED("token-revoked"),
    /** What the end-of-run check found in the run's worktrees and undid or reports. */
    RUN_END_FINDING("run-end-finding");

    private final String id;

    Type(String id) {
      this.id = id;
    }

    public String id() {
      return id;
    }

    public static Type of(String id) {
      for (Type t : values()) {
        if (t.id.equals(id)) {
          return t;
        }
      }
      throw new IllegalArgumentException("not an audit record type: " + id);
    }
  }

  public AuditEntry {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(repository, "repository");
    Objects.requireNonNull(decision, "decision");
  }
}
