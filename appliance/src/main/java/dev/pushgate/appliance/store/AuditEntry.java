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
 *     credential's ledger id, a GitHub API call ({@code POST api.github.com/repos/o/r/pulls})
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
    RUN_END_FINDING("run-end-finding"),
    /**
     * One action of a GitHub API call the run's boundary judged: {@code kind} its action class,
     * {@code ref} what it acts on, {@code subject} the call.
     */
    API_CALL("api-call");

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

  /**
   * The {@code kind} prefix of an API call written before API calls had a record type of their
   * own: a {@link Type#PUSH} record with kind {@code api:<action>}, the call in {@code ref}, what
   * it acted on in {@code rule}. Such records stay as written (their hash covers them); they are
   * read through {@link #asRead}.
   */
  static final String OLD_API_KIND = "api:";

  public AuditEntry {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(repository, "repository");
    Objects.requireNonNull(decision, "decision");
  }

  /**
   * What this record says, as readers show it: an API call written as a push record before
   * {@link Type#API_CALL} existed reads as one of that type, with its columns where an {@code
   * api-call} record keeps them. Only for showing: the stored record, and what its hash covers,
   * are never changed.
   */
  public AuditEntry asRead() {
    if (type != Type.PUSH || kind == null || !kind.startsWith(OLD_API_KIND)) {
      return this;
    }
    return new AuditEntry(Type.API_CALL, at, runId, workspaceId, repository, rule, oldId, newId,
        kind.substring(OLD_API_KIND.length()), decision, null, code, reason, outcome,
        durationMillis, settles, ref, actor);
  }
}
