package dev.pushgate.types;

import java.time.Instant;
import java.util.Objects;

/**
 * What one audit record says, before it is chained: the columns of the {@code audit} table but
 * the chain's own. The one audit record type: the gateway writes its push decisions as these
 * (through its {@code AuditLog} port), the appliance every other kind, and every reader reads
 * them. Which columns a type fills is listed in docs/audit.md; {@code runId}, {@code
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
   * What was decided about a push or a command; {@link #id} is the word stored in {@code
   * decision}. Records of other types store their own words there ({@code issued}, {@code
   * reported}, …).
   */
  public enum Decision {
    ALLOWED("allowed"),
    DENIED("denied"),
    /** Left to the person at the agent, by the command hook. */
    ASKED("asked");

    private final String id;

    Decision(String id) {
      this.id = id;
    }

    public String id() {
      return id;
    }

    /** The decision stored as {@code id}. */
    public static Decision of(String id) {
      for (Decision d : values()) {
        if (d.id.equals(id)) {
          return d;
        }
      }
      throw new IllegalArgumentException("not an audited decision: " + id);
    }
  }

  /**
   * What became of an update or a command: one of the {@link Settled} states, or upstream's (or
   * the forward's) rejection in the words the person pushing was shown. {@link #text} is what
   * the audit stores in {@code outcome} and shows.
   */
  public sealed interface Outcome permits Outcome.Settled, Outcome.Rejected {
    Outcome OK = Settled.OK;
    Outcome PENDING = Settled.PENDING;
    Outcome NOT_FORWARDED = Settled.NOT_FORWARDED;
    Outcome NOT_RUN = Settled.NOT_RUN;

    String text();

    /** The outcomes pushgate names itself. */
    enum Settled implements Outcome {
      OK("ok"),
      /** Allowed and audited; upstream has not answered yet. */
      PENDING("pending"),
      NOT_FORWARDED("not forwarded"),
      /** A command the command hook refused. */
      NOT_RUN("not run");

      private final String text;

      Settled(String text) {
        this.text = text;
      }

      @Override
      public String text() {
        return text;
      }
    }

    /** Refused on the way upstream or by upstream itself. */
    record Rejected(String text) implements Outcome {
      public Rejected {
        Objects.requireNonNull(text, "text");
      }
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
    return toBuilder().type(Type.API_CALL).ref(rule).kind(kind.substring(OLD_API_KIND.length()))
        .rule(null).subject(ref).build();
  }

  /**
   * What a NUL in a text column is stored as: U+2400 SYMBOL FOR NULL. PostgreSQL refuses NUL in
   * text, SQLite takes it; one rule for both stores, applied before the record is stored and
   * hashed, so that the hash covers what is stored and every reader (table, JSON, sink, verify)
   * shows the same text. A record written raw before this rule keeps its NUL (its hash covers it).
   * A lone surrogate, which has no UTF-8 form (both stores' drivers and the hash's encoder wrote
   * it as {@code ?}, while the sink kept it), is stored as U+FFFD by the same rule.
   */
  public static final char STORED_NUL = '\u2400';

  /**
   * This record as it is stored: each NUL in its text columns as {@link #STORED_NUL}, each lone
   * surrogate as U+FFFD REPLACEMENT CHARACTER.
   */
  public AuditEntry storable() {
    return new AuditEntry(type, at, nul(runId), nul(workspaceId), nul(repository), nul(ref),
        nul(oldId), nul(newId), nul(kind), nul(decision), nul(rule), nul(code), nul(reason),
        nul(outcome), durationMillis, settles, nul(subject), nul(actor));
  }

  private static String nul(String s) {
    if (s == null) {
      return null;
    }
    StringBuilder out = null;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      char stored = c;
      if (c == '\0') {
        stored = STORED_NUL;
      } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        if (out != null) {
          out.append(c).append(s.charAt(i + 1));
        }
        i++;
        continue;
      } else if (Character.isSurrogate(c)) {
        stored = '\ufffd';
      }
      if (stored != c && out == null) {
        out = new StringBuilder(s.length()).append(s, 0, i);
      }
      if (out != null) {
        out.append(stored);
      }
    }
    return out == null ? s : out.toString();
  }

  /** A record of {@code type}, its columns set one by one ({@link Builder#build} checks them). */
  public static Builder builder(Type type) {
    return new Builder(type);
  }

  /** This record's columns in a builder, to make a changed copy. */
  public Builder toBuilder() {
    return new Builder(type).at(at).runId(runId).workspaceId(workspaceId).repository(repository)
        .ref(ref).oldId(oldId).newId(newId).kind(kind).decision(decision).rule(rule).code(code)
        .reason(reason).outcome(outcome).durationMillis(durationMillis).settles(settles)
        .subject(subject).actor(actor);
  }

  /**
   * Sets an {@link AuditEntry}'s columns by name: a record type fills only some of eighteen, and
   * a column passed by position is one slip from another's place (and another hash).
   */
  public static final class Builder {
    private Type type;
    private Instant at;
    private String runId;
    private String workspaceId;
    private String repository;
    private String ref;
    private String oldId;
    private String newId;
    private String kind;
    private String decision;
    private String rule;
    private String code;
    private String reason;
    private String outcome;
    private Long durationMillis;
    private Long settles;
    private String subject;
    private String actor;

    private Builder(Type type) {
      this.type = type;
    }

    public Builder type(Type value) {
      type = value;
      return this;
    }

    public Builder at(Instant value) {
      at = value;
      return this;
    }

    public Builder runId(String value) {
      runId = value;
      return this;
    }

    public Builder workspaceId(String value) {
      workspaceId = value;
      return this;
    }

    public Builder repository(String value) {
      repository = value;
      return this;
    }

    public Builder ref(String value) {
      ref = value;
      return this;
    }

    public Builder oldId(String value) {
      oldId = value;
      return this;
    }

    public Builder newId(String value) {
      newId = value;
      return this;
    }

    public Builder kind(String value) {
      kind = value;
      return this;
    }

    public Builder decision(String value) {
      decision = value;
      return this;
    }

    public Builder decision(Decision value) {
      return decision(value.id());
    }

    public Builder rule(String value) {
      rule = value;
      return this;
    }

    public Builder code(String value) {
      code = value;
      return this;
    }

    public Builder reason(String value) {
      reason = value;
      return this;
    }

    public Builder outcome(String value) {
      outcome = value;
      return this;
    }

    /** {@code value}'s text; null for none (a decision without an outcome). */
    public Builder outcome(Outcome value) {
      return outcome(value == null ? null : value.text());
    }

    public Builder durationMillis(Long value) {
      durationMillis = value;
      return this;
    }

    public Builder settles(Long value) {
      settles = value;
      return this;
    }

    public Builder subject(String value) {
      subject = value;
      return this;
    }

    public Builder actor(String value) {
      actor = value;
      return this;
    }

    /**
     * The record.
     *
     * @throws NullPointerException naming a column every record has ({@code at}, {@code runId},
     *     {@code repository}, {@code decision}) when it was not set
     */
    public AuditEntry build() {
      return new AuditEntry(type, at, runId, workspaceId, repository, ref, oldId, newId, kind,
          decision, rule, code, reason, outcome, durationMillis, settles, subject, actor);
    }
  }
}
